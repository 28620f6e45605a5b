// Private to dashboards/: the pieces every generated dashboard shares
// (template variables, label selectors, catalog-driven panels). Not an
// interface; other components include dashboards/dashboard_set.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dashboards/grafana_model.h"
#include "detect/detect_config.h"
#include "schema/metric_catalog.h"

namespace gpufleet::dashboards {

// The series that carries a workload's team (data/metrics.toml lists
// workload_team among its labels; the exporter checks it).
inline constexpr std::string_view kTeamSeries = "gpu_workload_step_duration_seconds";
inline constexpr std::string_view kTeamLabel = "workload_team";
// Per-device price from the server's /metrics (cost/cost_metrics.h).
inline constexpr std::string_view kCostSeries = "gpufleet_cost_device_usd_per_hour";
inline constexpr std::string_view kPflopCostSeries = "gpufleet_cost_usd_per_effective_pflop_hour";
// Legend naming one device (or partition).
inline constexpr std::string_view kDeviceLegend = "{{node}} {{pci_bus_id}} {{partition_id}}";

struct Context {
  const MetricCatalog& catalog;
  const detect::DetectConfig& config;
  std::vector<std::string> alert_names;  // from the exported rule group
  // The memory-contention rule's thresholds (bandwidth above, occupancy
  // below) and where they came from.
  double bandwidth_above = 0.85;
  double occupancy_below = 0.5;
  std::string thresholds_origin;

  // Catalog unit as a Grafana unit; "none" when the metric is unknown (the
  // exporter's name check reports it).
  std::string Unit(std::string_view metric) const;
  // help + comparability from the catalog.
  std::string Describe(std::string_view metric) const;
};

// A short panel title for a catalog metric ("SM / CU active"); the metric
// name itself when there is none.
std::string Title(std::string_view metric);

// `metric{vendor=~"$vendor",cloud=~"$cloud",model=~"$model",node=~"$node"<,extra>}`
std::string Sel(std::string_view metric, std::string_view extra = "");
// `(expr and on (gpu_uuid) <devices of $team>)`: keeps every device when
// $team is All (".*"), else the devices whose workloads carry that team.
std::string Team(std::string_view expr);
// Team(Sel(metric)).
std::string Dev(std::string_view metric, std::string_view extra = "");
// Devices in the memory-contention corner (bandwidth above, occupancy below).
std::string Corner(const Context& ctx);
// `ALERTS{alertname=~"<every exported rule>",...}`.
std::string Alerts(const Context& ctx);

// vendor, cloud, model, node, team (chained: each narrows the next).
void AddFleetVariables(DashboardBuilder& b);

// Small panel constructors.
Panel Stat(std::string title, std::string description, std::string unit, std::string expr,
           std::string legend = "", int width = 4);
Panel Series(std::string title, std::string description, std::string unit,
             std::vector<Query> queries, int width = 8);
Panel Table(std::string title, std::string description, std::vector<std::string> exprs,
            int width = 24);
Panel TopK(std::string title, std::string description, std::string unit, std::string expr);
Query Range(std::string expr, std::string legend);

nlohmann::json FleetOverview(const Context& ctx);
nlohmann::json NodeDashboard(const Context& ctx);
nlohmann::json JobDashboard(const Context& ctx);
nlohmann::json VendorComparison(const Context& ctx);
nlohmann::json ContentionDashboard(const Context& ctx);
nlohmann::json CostDashboard(const Context& ctx);

}  // namespace gpufleet::dashboards
