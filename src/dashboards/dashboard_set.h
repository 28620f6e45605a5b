// gpufleet's Grafana dashboards (`gpufleet dashboards export`): fleet
// overview, node, job, vendor comparison, contention and cost, generated from
// the metric catalog (data/metrics.toml) and the detect config whose rules
// `gpufleet rules export` writes. docs/dashboards.md describes them.
//
// Every query is checked when the set is built: each metric it selects must
// be in the catalog, be ALERTS (with alertnames the exported rules define), or
// be one of the server's /metrics names the dashboards read; a renamed metric
// makes Build fail naming the dashboard, panel and query instead of leaving an
// empty panel.
//
// Thread safety: pure functions over immutable inputs.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "detect/detect_config.h"
#include "schema/metric_catalog.h"

namespace gpufleet::dashboards {

struct GeneratedDashboard {
  std::string file_name;  // "gpufleet-overview.json"
  nlohmann::json json;    // Grafana classic dashboard model
};

// The names a query may select, and where each set comes from.
struct KnownNames {
  std::set<std::string> catalog;      // data/metrics.toml
  std::set<std::string> alert_names;  // `- alert:` names of the exported rule group
  std::set<std::string> cost;         // cost::RenderCostMetrics' series
  std::set<std::string> server;       // ServerMetricNames()
  bool Contains(const std::string& metric) const;
};

// The server self-metrics (gpufleet server's /metrics, server/server.cc) the
// dashboards read. The integration test checks them against a running server.
const std::vector<std::string>& ServerMetricNames();

KnownNames KnownNamesFor(const MetricCatalog& catalog, const detect::DetectConfig& config);

// The six dashboards. Errors: a query selecting an unknown metric or an
// alertname no exported rule has, or a query PromQL the checker cannot scan.
StatusOr<std::vector<GeneratedDashboard>> BuildDashboards(const MetricCatalog& catalog,
                                                          const detect::DetectConfig& config);

// Checks one dashboard's queries (panel targets and variable queries)
// against `names`; the error names dashboard, panel and refId.
Status CheckDashboardQueries(const nlohmann::json& dashboard, const KnownNames& names);

// Writes each dashboard as DIR/<file_name> (pretty-printed, trailing
// newline); creates DIR if missing. Returns the paths written.
StatusOr<std::vector<std::string>> WriteDashboards(const std::vector<GeneratedDashboard>& set,
                                                   const std::string& dir);

}  // namespace gpufleet::dashboards
