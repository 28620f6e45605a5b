// Ground-truth evaluation of the detection engine on a simulated fleet
// (FleetSim): precision, recall and detection latency per kind, and false
// incidents per 100 GPU-days on clean scenarios (noise, noisy-neighbour
// bursts and faults, no injected episodes).
//
// Incidents: consecutive evaluations (every collection interval) in which a
// finding of one class is active on the same subject form one incident; a
// gap of more than 3 intervals ends it. Contention findings (memory /
// latency-bound / sustained) on a device form one incident labelled with
// the dominant root cause at its first evaluation that has causes
// ("unclassified" if none ever). An incident is a true positive when it
// overlaps an injected episode of its kind on its devices (from the
// episode's start to 15 minutes after its end); variance and cross-cloud
// incidents that overlap a different injected episode on their devices
// (contention slows steps too) are counted as "explained", neither true nor
// false. Latency = first evaluation of the incident - episode start.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "detect/detect_config.h"

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

StatusOr<EvalReport> RunDetectionEval(const DetectConfig& config, const EvalOptions& options);
// A Markdown table plus the clean-scenario line.
std::string FormatEvalReport(const EvalReport& report);

}  // namespace gpufleet::detect
