#include "dashboards/dashboard_parts.h"

#include <cstdio>
#include <utility>

namespace gpufleet::dashboards {
namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string Context::Unit(std::string_view metric) const {
  const MetricDef* def = catalog.Find(metric);
  return def == nullptr ? "none" : GrafanaUnit(def->unit);
}

std::string Context::Describe(std::string_view metric) const {
  const MetricDef* def = catalog.Find(metric);
  if (def == nullptr) return "";
  std::string out = "`" + def->name + "`: " + def->help;
  if (!def->comparability.empty()) out += "\n\nAcross vendors: " + def->comparability;
  return out;
}

std::string Title(std::string_view metric) {
  static const std::pair<std::string_view, std::string_view> kTitles[] = {
      {"gpu_utilization_ratio", "Utilization (engine busy time)"},
      {"gpu_graphics_engine_active_ratio", "Graphics / compute engine active"},
      {"gpu_sm_active_ratio", "SM / CU / EU active"},
      {"gpu_sm_occupancy_ratio", "Occupancy"},
      {"gpu_tensor_active_ratio", "Tensor / matrix pipes active"},
      {"gpu_memory_bandwidth_utilization_ratio", "Memory bandwidth utilization"},
      {"gpu_memory_copy_busy_ratio", "Memory busy time"},
      {"gpu_power_watts", "Power"},
      {"gpu_temperature_celsius", "Temperature"},
      {"gpu_memory_stall_ratio", "Memory stalls"},
      {"gpu_clock_hertz", "Clocks"}};
  for (const auto& [name, title] : kTitles) {
    if (name == metric) return std::string(title);
  }
  return std::string(metric);
}

std::string Sel(std::string_view metric, std::string_view extra) {
  std::string out(metric);
  out += "{vendor=~\"$vendor\",cloud=~\"$cloud\",model=~\"$model\",node=~\"$node\"";
  if (!extra.empty()) {
    out += ",";
    out += extra;
  }
  out += "}";
  return out;
}

std::string Team(std::string_view expr) {
  // gpu_up never carries workload_team, so `gpu_up{workload_team=~".*"}`
  // is every device and `gpu_up{workload_team=~"research"}` none: with $team
  // on All the filter keeps idle devices too.
  const std::string team = std::string(kTeamLabel) + "=~\"$team\"";
  return "(" + std::string(expr) + " and on (gpu_uuid) (" + std::string(kTeamSeries) + "{" +
         team + "} or gpu_up{" + team + "}))";
}

std::string Dev(std::string_view metric, std::string_view extra) {
  return Team(Sel(metric, extra));
}

std::string Corner(const Context& ctx) {
  return Team("(" + Sel("gpu_memory_bandwidth_utilization_ratio") + " > " +
              Num(ctx.bandwidth_above) +
              " and on (node, gpu_uuid, partition_id) " + Sel("gpu_sm_occupancy_ratio") + " < " +
              Num(ctx.occupancy_below) + ")");
}

std::string Alerts(const Context& ctx) {
  std::string names;
  for (const std::string& n : ctx.alert_names) {
    if (!names.empty()) names += "|";
    names += n;
  }
  return Sel("ALERTS", "alertname=~\"" + names + "\"");
}

void AddFleetVariables(DashboardBuilder& b) {
  b.AddVariable({"vendor", "Vendor", "gpu_up", "vendor"});
  b.AddVariable({"cloud", "Cloud", "gpu_up{vendor=~\"$vendor\"}", "cloud"});
  b.AddVariable({"model", "Model", "gpu_up{vendor=~\"$vendor\",cloud=~\"$cloud\"}", "model"});
  b.AddVariable({"node", "Node",
                 "gpu_up{vendor=~\"$vendor\",cloud=~\"$cloud\",model=~\"$model\"}", "node"});
  b.AddVariable({"team", "Team",
                 std::string(kTeamSeries) + "{vendor=~\"$vendor\",node=~\"$node\"}",
                 std::string(kTeamLabel)});
}

Query Range(std::string expr, std::string legend) {
  Query q;
  q.expr = std::move(expr);
  q.legend = std::move(legend);
  return q;
}

Panel Stat(std::string title, std::string description, std::string unit, std::string expr,
           std::string legend, int width) {
  Panel p;
  p.type = "stat";
  p.title = std::move(title);
  p.description = std::move(description);
  p.unit = std::move(unit);
  p.width = width;
  p.height = 5;
  Query q;
  q.expr = std::move(expr);
  q.legend = std::move(legend);
  q.instant = true;
  p.queries.push_back(std::move(q));
  return p;
}

Panel Series(std::string title, std::string description, std::string unit,
             std::vector<Query> queries, int width) {
  Panel p;
  p.type = "timeseries";
  p.title = std::move(title);
  p.description = std::move(description);
  p.unit = std::move(unit);
  p.width = width;
  p.height = 8;
  p.queries = std::move(queries);
  if (p.unit == "percentunit") p.has_range = true;
  return p;
}

Panel Table(std::string title, std::string description, std::vector<std::string> exprs,
            int width) {
  Panel p;
  p.type = "table";
  p.title = std::move(title);
  p.description = std::move(description);
  p.width = width;
  p.height = 8;
  for (std::string& e : exprs) {
    Query q;
    q.expr = std::move(e);
    q.instant = true;
    q.table_format = true;
    p.queries.push_back(std::move(q));
  }
  p.merge_rows = p.queries.size() > 1;
  return p;
}

Panel TopK(std::string title, std::string description, std::string unit, std::string expr) {
  Panel p = Stat(std::move(title), std::move(description), std::move(unit), std::move(expr),
                 std::string(kDeviceLegend), 6);
  p.type = "bargauge";
  p.height = 8;
  return p;
}

}  // namespace gpufleet::dashboards
