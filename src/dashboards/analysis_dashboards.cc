// The dashboards no vendor ships: the same meaning compared across vendors
// (with the catalog's comparability notes), the memory-contention corner with
// the exported rules' alerts and the server's incidents, and cost from the
// server's gpufleet_cost_* series.
#include "dashboards/dashboard_parts.h"

namespace gpufleet::dashboards {
namespace {

const std::string kDev(kDeviceLegend);

// The per-device price, restricted like every device series. One series per
// device even where the store has it twice (scraped from the server's
// /metrics with job/instance labels, and forwarded by the server without).
std::string Cost() {
  return Team("(max by (node, gpu_uuid, partition_id, model, cloud, region, pricing) (" +
              std::string(kCostSeries) +
              "{cloud=~\"$cloud\",model=~\"$model\",node=~\"$node\"}) and on (gpu_uuid) " +
              Sel("gpu_up") + ")");
}

}  // namespace

nlohmann::json VendorComparison(const Context& ctx) {
  DashboardBuilder b("gpufleet-vendors", "gpufleet / Vendor comparison",
                     "One canonical meaning per chart, every vendor and model on it, in one "
                     "unit; each panel's description carries the catalog's note on how far "
                     "the vendors' numbers compare.",
                     {"gpufleet"});
  AddFleetVariables(b);
  b.AddRow("Activity, same meaning across vendors");
  for (const char* m : {"gpu_utilization_ratio", "gpu_graphics_engine_active_ratio",
                        "gpu_sm_active_ratio", "gpu_sm_occupancy_ratio", "gpu_tensor_active_ratio",
                        "gpu_memory_bandwidth_utilization_ratio", "gpu_memory_copy_busy_ratio"}) {
    b.AddPanel(Series(Title(m) + " by model", ctx.Describe(m), ctx.Unit(m),
                      {Range("avg by (vendor, model) (" + Dev(m) + ")", "{{vendor}} {{model}}")}));
  }
  b.AddRow("Power, heat and memory");
  b.AddPanel(Series("Power per GPU by model", ctx.Describe("gpu_power_watts"), "watt",
                    {Range("avg by (vendor, model) (" + Dev("gpu_power_watts") + ")",
                           "{{vendor}} {{model}}")}));
  b.AddPanel(Series("Power over limit by model", ctx.Describe("gpu_power_limit_watts"),
                    "percentunit",
                    {Range("avg by (vendor, model) (" + Dev("gpu_power_watts") +
                               " / on (gpu_uuid, partition_id) " +
                               Dev("gpu_power_limit_watts") + ")",
                           "{{vendor}} {{model}}")}));
  b.AddPanel(Series("Hottest sensor by model", ctx.Describe("gpu_temperature_celsius"), "celsius",
                    {Range("max by (vendor, model) (" + Dev("gpu_temperature_celsius") + ")",
                           "{{vendor}} {{model}}")}));
  b.AddPanel(Series("Memory in use by model", ctx.Describe("gpu_memory_used_bytes"), "percentunit",
                    {Range("sum by (vendor, model) (" + Dev("gpu_memory_used_bytes") +
                               ") / sum by (vendor, model) (" + Dev("gpu_memory_total_bytes") + ")",
                           "{{vendor}} {{model}}")}));
  b.AddPanel(Series("Profiler counters available", ctx.Describe("gpu_profiling_available"),
                    "percentunit",
                    {Range("avg by (vendor, model) (" + Dev("gpu_profiling_available") + ")",
                           "{{vendor}} {{model}}")}));
  b.AddPanel(Table("Canonical series each vendor reports",
                   "How many series of each canonical metric every vendor and model reports "
                   "now; a missing row is a meaning the vendor does not expose (see "
                   "docs/metrics.md).",
                   {"count by (vendor, model, __name__) ({__name__=~\"gpu_.+\",vendor=~\"$vendor\","
                    "cloud=~\"$cloud\",model=~\"$model\",node=~\"$node\"})"},
                   24));
  return b.Build();
}

nlohmann::json ContentionDashboard(const Context& ctx) {
  DashboardBuilder b("gpufleet-contention", "gpufleet / Contention",
                     "Silent memory contention: bandwidth near saturation while occupancy is "
                     "low (the memory_contention rule's corner, " + ctx.thresholds_origin +
                         "), the exported rules' alerts, the server's incidents and who shares "
                         "the contended devices.",
                     {"gpufleet"});
  AddFleetVariables(b);
  const std::string corner = Corner(ctx);
  // The exported rules' alerts on every chart's time axis.
  b.AddAnnotation("Rule alerts", Alerts(ctx), "{{alertname}} {{alertstate}}",
                  "{{node}} {{pci_bus_id}} {{partition_id}}");
  b.AddRow("Now");
  Panel now = Stat("Devices in the contention corner",
                   "Devices with memory bandwidth utilization above the rule's threshold and "
                   "occupancy below its threshold at this instant.",
                   "none", "count(" + corner + ") or vector(0)");
  now.has_threshold = true;
  now.threshold = 1;
  b.AddPanel(now);
  b.AddPanel(Stat("Rule alerts by state",
                  "ALERTS series of the exported rules (gpufleet rules export) evaluated by "
                  "Prometheus or vmalert: pending, then firing after the rule's for.",
                  "none", "count by (alertstate) (" + Alerts(ctx) + ")", "{{alertstate}}"));
  b.AddPanel(Stat("Open incidents (gpufleet server)",
                  "gpufleet_server_incidents_open from the server's /metrics; not filtered by "
                  "the variables.",
                  "none", "gpufleet_server_incidents_open"));
  b.AddPanel(Stat("Incidents opened in range", "", "none",
                  "increase(gpufleet_server_incidents_opened_total[$__range])"));
  b.AddPanel(Table("Workloads on contended devices",
                   "Every workload bound to a device in the corner: the victim and its "
                   "neighbours.",
                   {Sel("gpu_workload_info") + " and on (node, gpu_uuid, partition_id) " + corner},
                   8));
  b.AddRow("Over time");
  Panel bw = Series(Title("gpu_memory_bandwidth_utilization_ratio"),
                    ctx.Describe("gpu_memory_bandwidth_utilization_ratio"), "percentunit",
                    {Range(Dev("gpu_memory_bandwidth_utilization_ratio"), kDev)});
  bw.has_threshold = true;
  bw.threshold = ctx.bandwidth_above;
  b.AddPanel(bw);
  Panel occ = Series(Title("gpu_sm_occupancy_ratio"), ctx.Describe("gpu_sm_occupancy_ratio"),
                     "percentunit", {Range(Dev("gpu_sm_occupancy_ratio"), kDev)});
  occ.has_threshold = true;
  occ.threshold = ctx.occupancy_below;
  b.AddPanel(occ);
  b.AddPanel(Series("Devices in the corner", "", "none",
                    {Range("count(" + corner + ") or vector(0)", "devices")}));
  b.AddPanel(Series("Step time on contended devices",
                    "The step time workloads on contended devices report: the slowdown they see.",
                    "s",
                    {Range(Sel(kTeamSeries) + " and on (gpu_uuid, partition_id) " + corner,
                           "{{workload_name}} " + kDev)}));
  b.AddPanel(Series("Utilization of contended devices",
                    "Coarse utilization stays high while the device is contended: why "
                    "utilization alone does not show contention.",
                    "percentunit",
                    {Range(Sel("gpu_utilization_ratio") +
                               " and on (node, gpu_uuid, partition_id) " + corner,
                           kDev)}));
  b.AddPanel(Series(Title("gpu_memory_stall_ratio"), ctx.Describe("gpu_memory_stall_ratio"),
                    "percentunit", {Range(Dev("gpu_memory_stall_ratio"), kDev)}));
  b.AddPanel(Series("Rule alerts", "", "none",
                    {Range("count by (alertname, alertstate) (" + Alerts(ctx) + ")",
                           "{{alertname}} {{alertstate}}")}));
  b.AddPanel(Series("Incidents opened", "gpufleet_server_incidents_opened_total.", "none",
                    {Range("increase(gpufleet_server_incidents_opened_total[$__rate_interval])",
                           "opened")}));
  b.AddPanel(Table("Bandwidth and occupancy per device",
                   "A: memory bandwidth utilization, B: occupancy, one row per device.",
                   {Dev("gpu_memory_bandwidth_utilization_ratio"), Dev("gpu_sm_occupancy_ratio")},
                   12));
  b.AddPanel(Table("Rule alerts per device", "", {Alerts(ctx)}, 12));
  return b.Build();
}

nlohmann::json CostDashboard(const Context& ctx) {
  DashboardBuilder b("gpufleet-cost", "gpufleet / Cost",
                     "What the selected GPUs cost per hour from the server's cost ledger "
                     "(gpufleet_cost_* on its /metrics; energy excluded), idle and contended "
                     "cost, and price over delivered compute. The authoritative split with "
                     "idle and contention charges is `gpufleet cost report`.",
                     {"gpufleet"});
  AddFleetVariables(b);
  const std::string cost = Cost();
  const std::string util = Sel("gpu_utilization_ratio");
  // Each team's share of a device: 1 / the number of teams on it (counted
  // over every team, so picking one in $team keeps its true share).
  const std::string team_series =
      "group by (gpu_uuid, partition_id, workload_team) (" + std::string(kTeamSeries) + ")";
  const std::string picked_teams = "group by (gpu_uuid, partition_id, workload_team) (" +
                                   std::string(kTeamSeries) + "{workload_team=~\"$team\"})";
  b.AddRow("Now");
  b.AddPanel(Stat("Cost now", "Sum of the selected devices' prices per hour.", "currencyUSD",
                  "sum(" + cost + ")", "", 6));
  b.AddPanel(Stat("Idle cost now", "Price per hour of devices with no workload bound.",
                  "currencyUSD",
                  "sum(" + cost + " unless on (gpu_uuid, partition_id) gpu_workload_info) or "
                  "vector(0)", "", 6));
  b.AddPanel(Stat("Price-weighted idle share",
                  "1 - sum(price x utilization) / sum(price): the share of spend on time the "
                  "devices were not busy.",
                  "percentunit",
                  "1 - sum(" + cost + " * on (gpu_uuid, partition_id) " + util + ") / sum(" +
                      cost + ")",
                  "", 6));
  b.AddPanel(Stat("Cost of contended devices", "Price per hour of devices in the contention "
                  "corner now.", "currencyUSD",
                  "sum(" + cost + " and on (gpu_uuid, partition_id) " + Corner(ctx) +
                      ") or vector(0)", "", 6));
  b.AddRow("Over time");
  b.AddPanel(Series("Cost by cloud", "", "currencyUSD",
                    {Range("sum by (cloud) (" + cost + ")", "{{cloud}}")}));
  b.AddPanel(Series("Cost by model", "", "currencyUSD",
                    {Range("sum by (model) (" + cost + ")", "{{model}}")}));
  b.AddPanel(Series("Cost by team",
                    "Each device's price split evenly among the teams whose workloads report "
                    "steps on it; devices without such a workload are not in this chart.",
                    "currencyUSD",
                    {Range("sum by (workload_team) (" + cost +
                               " * on (gpu_uuid, partition_id) group_right () (" + picked_teams +
                               " / on (gpu_uuid, partition_id) group_left () count by (gpu_uuid, "
                               "partition_id) (" + team_series + ")))",
                           "{{workload_team}}")}));
  b.AddPanel(Series("Cost by pricing", "on_demand, spot, committed, negotiated, owned.",
                    "currencyUSD",
                    {Range("sum by (pricing) (" + cost + ")", "{{pricing}}")}));
  b.AddPanel(Series("Price per busy GPU-hour by cloud",
                    "Sum of prices over sum of utilization of the priced devices.",
                    "currencyUSD",
                    {Range("sum by (cloud) (" + cost + ") / sum by (cloud) (" + util +
                               " and on (gpu_uuid, partition_id) " + std::string(kCostSeries) +
                               ")",
                           "{{cloud}}")}));
  b.AddPanel(Series("Price per effective PFLOP-hour",
                    "gpufleet_cost_usd_per_effective_pflop_hour: prices over peak dense bf16 "
                    "PFLOP/s x measured tensor activity.",
                    "currencyUSD",
                    {Range(std::string(kPflopCostSeries) +
                               "{cloud=~\"$cloud\",model=~\"$model\"}",
                           "{{model}} {{cloud}}")}));
  b.AddPanel(Series("Power by cloud", "Energy is metered but not in these prices.", "watt",
                    {Range("sum by (cloud) (" + Dev("gpu_power_watts") + ")", "{{cloud}}")}));
  b.AddPanel(Table("Devices and their price", "", {cost}, 16));
  return b.Build();
}

}  // namespace gpufleet::dashboards
