// Cost per job and per unit of work: the ledger's charges per workload
// divided by the work the WorkMeter counted (steps, tokens).
//
//   job cost   = every charge on the workload's lines in the period: its
//                basis charge, idle handed to it, contention (net: charges
//                for contention it caused minus credits for time it lost)
//                and its network transfers. A workload is named as the
//                report's "workload" grouping names it (workload_name, else
//                "slurm job <id>", else the pod); its work is the work
//                series of that workload_name, else of its pods
//                (workload_pod), so a holder whose gpu_workload_info names
//                only a pod meets steps labelled with a workload_name.
//   $/step     = job cost / steps (gpu_workload_step_duration_seconds points)
//   $/Mtoken   = job cost / tokens x 10^6 (gpu_workload_tokens_total increase)
//   either is absent (-1) when the workload reported no such work.
//
// Cost per unit jump (the incident "cost_per_unit_jump", server/
// cost_jump_alerts.h): a workload's cost per unit over the last hour
// (kJumpRecentS) against the 24 hours before it (kJumpBaselineS); it jumps
// when recent >= kJumpRatio x baseline and both windows have at least
// kJumpMinSteps steps (or kJumpMinTokens tokens; steps are preferred when
// the workload reports both).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost/ledger.h"
#include "cost/work_meter.h"

namespace gpufleet::cost {

struct JobCost {
  std::string workload, team;
  int64_t micro_usd = 0;
  int64_t contention_micro = 0;  // net contention on the job
  int64_t network_micro = 0;
  double gpu_hours = 0;
  double lost_gpu_hours = 0;
  int64_t steps = 0;
  double tokens = 0;
  double usd_per_step = -1;
  double usd_per_million_tokens = -1;
};

// Jobs by cost, largest first; unallocated idle is not a job.
StatusOr<std::vector<JobCost>> JobCosts(
    const Ledger& ledger, const std::map<std::string, WorkTotals>& work,
    const std::vector<std::pair<std::string, std::string>>& teams);

inline constexpr int64_t kJumpRecentS = 3600;
inline constexpr int64_t kJumpBaselineS = 24 * 3600;
inline constexpr double kJumpRatio = 1.30;
inline constexpr int64_t kJumpMinSteps = 10;
inline constexpr double kJumpMinTokens = 100'000;

struct UnitCostChange {
  std::string workload, team;
  std::string unit;  // "step" or "million tokens"
  double baseline_usd_per_unit = 0, recent_usd_per_unit = 0;
  double ratio = 0;  // recent / baseline
  bool jumped = false;
};

// One change per workload with enough work in both windows (see above).
std::vector<UnitCostChange> UnitCostChanges(const std::vector<JobCost>& baseline,
                                            const std::vector<JobCost>& recent);

// Whether a JSON report carries "jobs": asked for, or grouped by workload
// (a report by team does not list every job of the period unasked).
bool JobsWanted(const std::vector<std::string>& by, bool asked);

// `report_json` (RenderJson) with "jobs": one object per job (workload,
// team, cost_usd, contention_usd, network_usd, gpu_hours, steps, tokens,
// usd_per_step, usd_per_million_tokens; null when not known).
std::string WithJobs(const std::string& report_json, const std::vector<JobCost>& jobs);

// Prometheus text for /metrics over a period labelled `window` (e.g.
// "month"): gpu_workload_cost_usd, gpu_workload_cost_usd_per_step,
// gpu_workload_cost_usd_per_million_tokens, each {workload, team, window}.
std::string RenderJobMetrics(const std::vector<JobCost>& jobs, const std::string& window);

}  // namespace gpufleet::cost
