// EvalIncidentTracker: findings -> incidents exactly as the server's
// incident life cycle (detect/incident_lifecycle.h, default resolve_after
// kDefaultResolveAfterNs) opens them, run in memory on every evaluation:
// one incident per dedup key (Finding::key) from its first finding until it
// has been absent for more than resolve_after. Capture triggers other than
// "low_utilization" and informational memory_bound / host_bound findings are not
// tracked. Contention incidents are labelled with the dominant root cause
// at their first evaluation that has causes ("unclassified" if none ever).
//
// Detection quality itself is scored through the replay path
// (detect/replay.h; `gpufleet sim detect` writes the simulated fleet in the
// replay format), so the evaluation and replay cannot drift.
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

}  // namespace gpufleet::detect
