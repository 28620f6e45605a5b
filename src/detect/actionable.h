// Only actionable incidents: the pass the DetectionEngine runs over one
// evaluation's findings before they reach the incident life cycle.
//
//   - A device with no workload attached is idle capacity (a cost matter),
//     not an incident: findings whose every device is idle are dropped. A
//     device counts as idle only on a node that reports workload attribution
//     (some gpu_workload_info in the lookback), so a node without any
//     attribution source keeps its findings.
//   - A capture trigger belongs to the incident it serves: its trigger name
//     and command move onto a finding of another kind on the same device
//     (the first by key), and the trigger finding itself is dropped. On a
//     device with work but no other finding, the trigger's own condition is
//     the incident (kind = the trigger's name, e.g. "low_utilization": a job
//     holding a GPU it barely uses), carrying its capture.
//   - Contention needs evidence. A contention finding (the three rule kinds)
//     states its evidence in the summary and as an Evidence entry: a
//     neighbour on the device (a second workload on it, or a workload on
//     another partition of the same GPU) or a slowdown against its own
//     previous 30 minutes that a neighbour explains and nothing else does
//     (Finding::slowdown_evidence, root_cause.h). Without either it becomes kind memory_bound,
//     severity "info" (one per rule and device, key memory_bound/<rule>/<device>, the rule kept in
//     Finding::rule): a job that is memory-bound on its own.
//   - A baseline deviation is evidence, not a cause: on a device with an
//     alerting finding of another kind (contention, cross-cloud, variance,
//     low utilization) its evidence moves onto that finding; alone it
//     stays a baseline_deviation of severity "info" (no alert), a lead for
//     whoever looks at the device.
//
// Drops are counted in ActionableStats, never silent. Private to detect/.
#pragma once

#include <cstdint>
#include <vector>

#include "detect/detector.h"
#include "detect/finding.h"
#include "detect/root_cause.h"

namespace gpufleet::detect {

struct ActionableStats {
  uint64_t memory_bound = 0;  // contention findings without evidence of contention
  uint64_t idle_device_findings = 0;   // findings dropped: idle devices only
  uint64_t captures_attached = 0;      // triggers moved onto an incident's finding
  uint64_t captures_as_incident = 0;   // triggers that became their condition's incident
  uint64_t baseline_folded = 0;        // baseline deviations moved onto a finding's evidence
  uint64_t baseline_informational = 0;  // baseline deviations with no cause: severity info
};

// Rewrites `findings` in place (see above); adds to `stats`.
void KeepActionable(const EvalContext& ctx, std::vector<Finding>& findings,
                    ActionableStats& stats);

}  // namespace gpufleet::detect
