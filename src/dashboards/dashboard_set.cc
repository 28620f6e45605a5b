#include "dashboards/dashboard_set.h"

#include <filesystem>
#include <sstream>
#include <system_error>

#include "core/file_util.h"
#include "cost/cost_metrics.h"
#include "cost/price_book.h"
#include "dashboards/dashboard_parts.h"
#include "dashboards/promql_refs.h"
#include "detect/rules_export.h"

namespace gpufleet::dashboards {
namespace {

using json = nlohmann::json;

// Names after `prefix` at the start of lines of `text` (up to a space).
std::set<std::string> LineNames(const std::string& text, std::string_view prefix) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(prefix);
    if (at == std::string::npos) continue;
    if (line.find_first_not_of(' ') != at) continue;
    std::string rest = line.substr(at + prefix.size());
    out.insert(rest.substr(0, rest.find(' ')));
  }
  return out;
}

// The memory_contention rule's thresholds, if the config has that rule.
void ReadContentionThresholds(const detect::DetectConfig& config, Context& ctx) {
  ctx.thresholds_origin = "no memory_contention rule in the detect config: defaults 0.85 / 0.5";
  for (const detect::RuleConfig& r : config.rules) {
    if (r.name != "memory_contention") continue;
    bool bw = false, occ = false;
    for (const detect::Condition& c : r.conditions) {
      if (c.metric == "gpu_memory_bandwidth_utilization_ratio" &&
          c.op == detect::Condition::Op::kGreater) {
        ctx.bandwidth_above = c.value;
        bw = true;
      } else if (c.metric == "gpu_sm_occupancy_ratio" && c.op == detect::Condition::Op::kLess) {
        ctx.occupancy_below = c.value;
        occ = true;
      }
    }
    if (bw && occ) ctx.thresholds_origin = "thresholds from the detect config's rule";
  }
}

Status CheckExpr(const std::string& where, const std::string& expr, const KnownNames& names) {
  StatusOr<PromqlRefs> refs = ExtractPromqlRefs(expr);
  if (!refs.ok()) return InvalidArgumentError(where + ": " + refs.status().message());
  for (const std::string& m : refs->metrics) {
    if (!names.Contains(m)) {
      return NotFoundError(where + ": metric '" + m +
                           "' is not in the metric catalog (data/metrics.toml), the exported "
                           "rules' ALERTS or the server's /metrics names");
    }
  }
  for (const LabelMatcher& lm : refs->matchers) {
    if (lm.label != "alertname") continue;
    std::string_view rest = lm.value;
    while (!rest.empty()) {
      const size_t bar = rest.find('|');
      const std::string name(rest.substr(0, bar));
      if (names.alert_names.count(name) == 0) {
        return NotFoundError(where + ": alertname '" + name +
                             "' is not a rule of `gpufleet rules export`");
      }
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
    }
  }
  return OkStatus();
}

}  // namespace

bool KnownNames::Contains(const std::string& metric) const {
  return catalog.count(metric) > 0 || cost.count(metric) > 0 || server.count(metric) > 0 ||
         metric == "ALERTS";
}

const std::vector<std::string>& ServerMetricNames() {
  static const std::vector<std::string> kNames = {"gpufleet_server_incidents_open",
                                                  "gpufleet_server_incidents_opened_total"};
  return kNames;
}

KnownNames KnownNamesFor(const MetricCatalog& catalog, const detect::DetectConfig& config) {
  KnownNames names;
  for (const MetricDef& m : catalog.metrics()) names.catalog.insert(m.name);
  names.alert_names = LineNames(detect::ExportPrometheusRules(config, "dashboards"), "- alert: ");
  // The cost series, as the server renders them (HELP/TYPE lines are
  // written even when nothing is metered yet).
  names.cost = LineNames(cost::RenderCostMetrics({}, cost::PriceBook(), {}), "# TYPE ");
  for (const std::string& s : ServerMetricNames()) names.server.insert(s);
  return names;
}

Status CheckDashboardQueries(const json& dashboard, const KnownNames& names) {
  const std::string uid = dashboard.value("uid", "?");
  for (const json& v : dashboard["templating"]["list"]) {
    if (v.value("type", "") != "query") continue;
    // label_values(<series>, <label>): check the series selector.
    std::string def = v.value("definition", "");
    const size_t open = def.find('('), comma = def.rfind(',');
    if (open == std::string::npos || comma == std::string::npos || comma < open) {
      return InvalidArgumentError("dashboard " + uid + ", variable " + v.value("name", "?") +
                                  ": expected label_values(series, label), got " + def);
    }
    RETURN_IF_ERROR(CheckExpr("dashboard " + uid + ", variable " + v.value("name", "?"),
                              def.substr(open + 1, comma - open - 1), names));
  }
  for (const json& a : dashboard["annotations"]["list"]) {
    if (!a.contains("expr")) continue;  // Grafana's built-in annotations
    RETURN_IF_ERROR(CheckExpr("dashboard " + uid + ", annotation " + a.value("name", "?"),
                              a.value("expr", ""), names));
  }
  for (const json& p : dashboard["panels"]) {
    if (p.value("type", "") == "row") continue;
    for (const json& t : p["targets"]) {
      RETURN_IF_ERROR(CheckExpr("dashboard " + uid + ", panel '" + p.value("title", "?") +
                                    "', query " + t.value("refId", "?"),
                                t.value("expr", ""), names));
    }
  }
  return OkStatus();
}

StatusOr<std::vector<GeneratedDashboard>> BuildDashboards(const MetricCatalog& catalog,
                                                          const detect::DetectConfig& config) {
  const KnownNames names = KnownNamesFor(catalog, config);
  Context ctx{catalog, config, {names.alert_names.begin(), names.alert_names.end()}, 0.85, 0.5,
              ""};
  ReadContentionThresholds(config, ctx);
  const MetricDef* team = catalog.Find(kTeamSeries);
  bool has_team = false;
  if (team != nullptr) {
    for (const std::string& l : team->labels) has_team |= l == kTeamLabel;
  }
  if (!has_team) {
    return NotFoundError("metric catalog: " + std::string(kTeamSeries) +
                         " with label " + std::string(kTeamLabel) +
                         " is what the dashboards' team variable reads; it is missing");
  }
  std::vector<GeneratedDashboard> out = {
      {"gpufleet-overview.json", FleetOverview(ctx)},
      {"gpufleet-node.json", NodeDashboard(ctx)},
      {"gpufleet-job.json", JobDashboard(ctx)},
      {"gpufleet-vendors.json", VendorComparison(ctx)},
      {"gpufleet-contention.json", ContentionDashboard(ctx)},
      {"gpufleet-cost.json", CostDashboard(ctx)}};
  for (const GeneratedDashboard& d : out) RETURN_IF_ERROR(CheckDashboardQueries(d.json, names));
  return out;
}

StatusOr<std::vector<std::string>> WriteDashboards(const std::vector<GeneratedDashboard>& set,
                                                   const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return UnavailableError("creating " + dir + ": " + ec.message());
  std::vector<std::string> paths;
  for (const GeneratedDashboard& d : set) {
    const std::string path = (std::filesystem::path(dir) / d.file_name).string();
    RETURN_IF_ERROR(WriteStringToFile(path, d.json.dump(2) + "\n"));
    paths.push_back(path);
  }
  return paths;
}

}  // namespace gpufleet::dashboards
