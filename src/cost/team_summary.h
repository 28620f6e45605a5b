// The monthly plain-language report per team: sentences derived from the
// ledger's figures of a month and the month before it, e.g.
//
//   "research spent $1,234.56 in 2026-12, 12% more than in 2026-11 ($1,102.00)."
//   "Cost per step rose 35% ($0.100 -> $0.135 over 12,000 steps)."
//   "18 points of the change came from GPU time lost to memory contention
//    ($412.00) on aws h100-sxm nodes, caused by workload noisy-etl (team data)."
//   "Largest workloads: train ($900.00), eval ($300.00)."
//
// Rules (each figure is the ledger's, under the policy the caller chose):
//   the team's cost  = its groups' totals (report grouped by team);
//   cost per step    = over the team's workloads that report steps
//                      (WorkMeter): their cost before contention (base, idle,
//                      network: what their GPU time cost) / their steps;
//                      absent without steps in both months;
//   lost to contention = the credits its workloads got as victims (the value
//                      of GPU time lost, by the ledger's contention rule);
//   points from contention = (those workloads' losses / steps this month -
//                      the same last month) / cost per step last month x 100;
//   kind             = the kinds of the incidents behind the credits (memory,
//                      latency-bound, sustained contention), split by amount
//                      when there are several;
//   culprit          = on the devices where the team's workloads were
//                      credited, the other holders charged for the contention
//                      (the ledger charges the neighbour that caused it), the
//                      largest charge first; "where" = those devices' cloud and
//                      GPU model, the largest credit first.
// A team with nothing in either month gets one sentence saying so.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost/ledger.h"
#include "cost/work_meter.h"

namespace gpufleet::cost {

struct TeamMonth {
  int64_t cost_micro = 0;       // everything charged to the team
  int64_t gross_micro = 0;      // before contention lines
  int64_t lost_micro = 0;       // contention credits, as a positive amount
  int64_t caused_micro = 0;     // contention charged to the team as neighbour
  int64_t steps = 0;            // of the team's workloads that report steps
  int64_t step_cost_micro = 0;  // their cost before contention
  int64_t step_lost_micro = 0;  // their contention credits (positive)
  double tokens = 0;
  double usd_per_step = -1;
};

struct TeamSummary {
  std::string team, month, previous_month;
  TeamMonth now, before;
  double cost_change_pct = 0;       // vs the month before (0 when it had no cost)
  double step_cost_change_pct = 0;  // when both months have steps
  double contention_points = 0;
  std::string culprit, culprit_team, where;
  // This month's contention credits by incident kind (memory_contention...;
  // "" when the ledger was not told), largest first.
  std::vector<std::pair<std::string, int64_t>> lost_by_kind;
  std::vector<std::pair<std::string, int64_t>> top_workloads;  // micro-USD
  std::vector<std::string> sentences;
};

// `now` and `before`: ledgers of the month and the month before; `work_*`:
// the WorkMeter's totals of the same periods; `month` names: "2026-12".
StatusOr<TeamSummary> SummarizeTeam(const std::string& team, const Ledger& now,
                                    const std::map<std::string, WorkTotals>& work_now,
                                    const Ledger& before,
                                    const std::map<std::string, WorkTotals>& work_before,
                                    const std::vector<std::pair<std::string, std::string>>& teams,
                                    const std::string& month, const std::string& previous_month);

std::string RenderSummaryText(const TeamSummary& s);
std::string RenderSummaryJson(const TeamSummary& s);

}  // namespace gpufleet::cost
