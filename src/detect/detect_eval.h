// Ground-truth evaluation of the detection engine on a simulated fleet
// (FleetSim): precision, recall and detection latency per kind, and false
// incidents per 100 GPU-days on clean scenarios (noise, noisy-neighbour
// bursts and faults, no injected episodes).
//
// Incidents: the server's incident life cycle (detect/incident_lifecycle.h)
// with its default resolve_after (kDefaultResolveAfterNs, 120 s of simulated
// clock), run in memory on every evaluation (each collection interval): one
// incident per dedup key (Finding::key) from its first finding until it has
// been absent for more than resolve_after; a later finding opens a new one.
// Capture triggers other than "low_utilization" are not scored. Contention
// incidents (memory / latency-bound / sustained, one per rule and device,
// as the server opens them) are labelled with the dominant root cause at
// their first evaluation that has causes ("unclassified" if none ever).
// An incident is a true positive when it
// overlaps an injected episode of its kind on its devices (from the
// episode's start to 15 minutes after its end); variance and cross-cloud
// incidents that overlap a different injected episode on their devices
// (contention slows steps too) are counted as "explained", neither true nor
// false. Latency = first evaluation of the incident - episode start.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "detect/detect_config.h"
#include "detect/finding.h"
#include "detect/incident_book.h"
#include "detect/incident_lifecycle.h"

namespace gpufleet::detect {

struct EvalOptions {
  double gpu_days = 100;        // with injected episodes
  double clean_gpu_days = 100;  // clean scenario (0 = skip)
  uint64_t seed = 1;
};

struct KindQuality {
  std::string kind;
  int episodes = 0;
  int detected = 0;
  int incidents = 0;  // incidents labelled with this kind
  int true_incidents = 0;
  int explained = 0;  // variance / cloud: overlapping another injected episode
  std::vector<double> latencies_s;
  double latency_bound_s = 0;  // the goal: rule window + 2 intervals
  int within_bound = 0;

  double precision() const {
    return incidents - explained > 0 ? static_cast<double>(true_incidents) / (incidents - explained)
                                     : 1;
  }
  double recall() const { return episodes ? static_cast<double>(detected) / episodes : 1; }
};

struct EvalReport {
  uint64_t seed = 0;
  int64_t resolve_after_ns = 0;  // of the life cycle that grouped the findings
  double gpu_days = 0;
  double clean_gpu_days = 0;
  std::vector<KindQuality> kinds;
  int clean_false_incidents = 0;
  std::map<std::string, int> clean_false_by_kind;
  double false_per_100_gpu_days() const {
    return clean_gpu_days > 0 ? 100 * clean_false_incidents / clean_gpu_days : 0;
  }
  const KindQuality* Find(std::string_view kind) const;
};

// One scored incident.
struct EvalIncident {
  std::string cls;    // contention | variance | cloud_specific | idle | baseline
  std::string label;  // the kind it claims (contention: the dominant cause)
  std::vector<std::string> devices;
  int64_t first_ns = 0;  // first finding
  int64_t last_ns = 0;   // last finding
  int64_t bound_ns = 0;  // rule window of the first finding + 2 intervals
};

// Findings -> incidents for the evaluation, through IncidentLifecycle on an
// in-memory book. Not thread-safe.
class EvalIncidentTracker {
 public:
  EvalIncidentTracker(const DetectConfig& config, LifecyclePolicy policy = {});
  // The findings of one evaluation at now_ns (times must not decrease).
  Status Add(const std::vector<Finding>& findings, int64_t now_ns);
  // Every incident so far, in opening order.
  StatusOr<std::vector<EvalIncident>> Incidents() const;

 private:
  const DetectConfig& config_;
  std::unique_ptr<IncidentBook> book_;
  IncidentLifecycle lifecycle_;
  std::map<int64_t, EvalIncident> scored_;  // by incident id
};

StatusOr<EvalReport> RunDetectionEval(const DetectConfig& config, const EvalOptions& options);
// A Markdown table plus the clean-scenario line.
std::string FormatEvalReport(const EvalReport& report);

}  // namespace gpufleet::detect
