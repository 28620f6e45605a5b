// The ledger in other tools' shapes:
//
// FOCUS 1.2 (FinOps Open Cost and Usage Specification) cost-and-usage rows,
// CSV, one row per device x holder x charge kind over the period: every
// mandatory column, plus ResourceId / ResourceName / ResourceType, RegionId,
// ConsumedQuantity / ConsumedUnit (GPU-hours), ListUnitPrice /
// ContractedUnitPrice, PricingCategory, SkuId, SubAccountId (the team), Tags
// (team, namespace, pod, workload, Slurm job and account, device model) and
// gpufleet's own columns, prefixed x_ as the spec asks: x_CostCategory
// (base, idle_allocated, idle_unallocated, idle_share, contention, and
// network: one Networking row per transfer, priced per GB),
// x_Basis, x_AllocationCost (what the allocation basis charges) and
// x_LostGpuHours. Contention credits are ChargeCategory "Credit", contention
// charges "Adjustment"; nulls are empty fields. Prices are what gpufleet
// charges: ListCost = ContractedCost = EffectiveCost = BilledCost (a site
// discount is already in the price; commitment amortization is not
// modelled).
//
// OpenCost's /allocation response shape ({"code","status","data":[{name:
// Allocation}]}) for one window, so dashboards written for OpenCost read
// gpufleet's figures: gpuHours, gpuCost (allocation basis), gpuCostAdjustment
// (contention), gpuCostIdle (idle handed to the allocation by the idle rule),
// gpuEfficiency (usage basis / allocation basis), totalCost; CPU, RAM,
// network and volume fields are 0 (gpufleet prices GPUs only). With
// include_idle, unallocated idle is the "__idle__" allocation, as OpenCost
// names it.
#pragma once

#include <string>
#include <vector>

#include "cost/cost_report.h"
#include "cost/ledger.h"

namespace gpufleet::cost {

// The FOCUS 1.2 column names gpufleet writes, in order.
const std::vector<std::string>& FocusColumns();
std::string RenderFocusCsv(const Ledger& ledger,
                           const std::vector<std::pair<std::string, std::string>>& teams);

// `allocation` and `usage`: the same period under the allocation and usage
// bases (usage gives gpuEfficiency). `aggregate`: OpenCost's aggregate
// parameter: namespace, pod, node, cluster, controller, team, or label:team.
StatusOr<std::string> RenderOpenCostAllocation(
    const Ledger& allocation, const Ledger& usage, const std::string& aggregate, bool include_idle,
    const std::vector<std::pair<std::string, std::string>>& teams);

}  // namespace gpufleet::cost
