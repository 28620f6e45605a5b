// CostReport: a ledger grouped by any of team, namespace, workload, pod,
// slurm_account, slurm_user, slurm_job, model, cloud, region, node, device,
// pricing; rendered as text, CSV or JSON. Columns per group: GPU-hours
// held, idle GPU-hours (unheld time, or handed to the group by the idle rule),
// the allocation basis (held time x price, what OpenCost charges), the chosen
// basis's charge, idle, contention (net: charges to neighbours minus credits to
// victims), network (transfers x egress price, on top of the GPUs' cost),
// total, and GPU-hours lost to contention. Network charges group by their
// source cloud / region and "(network)" for model, node, device, pricing. Lines without a holder
// are grouped as "(unallocated)".
//
// Money is summed in micro-dollars and printed in dollars with cents; the
// totals row is the fleet's cost for the metered minutes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "cost/ledger.h"

namespace gpufleet::cost {

struct CostRow {
  std::vector<std::string> key;  // one value per grouping dimension
  double gpu_hours = 0;          // held
  double idle_gpu_hours = 0;     // unheld GPU time (unallocated, or handed over by the idle rule)
  double lost_gpu_hours = 0;
  int64_t allocation_micro = 0;
  int64_t base_micro = 0;
  int64_t idle_micro = 0;
  int64_t contention_micro = 0;
  int64_t network_micro = 0;  // declared transfers x egress price (network.h)
  double network_gb = 0;
  int64_t total_micro = 0;
};

struct CostReport {
  int64_t from_s = 0, to_s = 0;
  std::string basis, idle_rule, contention_rule;
  std::vector<std::string> by;
  std::vector<CostRow> rows;  // largest total first
  CostRow total;
  int64_t device_minutes = 0;
  std::vector<std::string> warnings;  // non-empty = partial
};

// A holder's team: its workload_team label, else the site's namespace ->
// team map, else its namespace, else its Slurm account.
std::string TeamOf(const Holder& h, const std::vector<std::pair<std::string, std::string>>& teams);

// A holder's workload as the "workload" grouping names it: workload_name,
// else "slurm job <id>", else the pod.
std::string WorkloadOf(const Holder& h);

// Valid grouping names, for --help and errors.
const std::vector<std::string>& GroupingNames();

// `teams`: namespace -> team for holders without a team label.
StatusOr<CostReport> BuildReport(const Ledger& ledger, const std::vector<std::string>& by,
                                 const std::vector<std::pair<std::string, std::string>>& teams);

std::string RenderText(const CostReport& r);
std::string RenderCsv(const CostReport& r);
std::string RenderJson(const CostReport& r);

}  // namespace gpufleet::cost

namespace gpufleet::cost {

// A time argument in unix seconds: "now", "-30d" / "-6h" / "-90m" (before
// `now_s`), "2026-12-01", "2026-12-01T08:00:00Z", or unix seconds.
StatusOr<int64_t> ParseTimeArg(std::string_view text, int64_t now_s);

}  // namespace gpufleet::cost
