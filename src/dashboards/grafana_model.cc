#include "dashboards/grafana_model.h"

#include <algorithm>
#include <utility>

namespace gpufleet::dashboards {
namespace {

using json = nlohmann::json;

constexpr int kGridColumns = 24;
// Grafana 11's classic model (the AMD fixtures in ../shared carry 39 too).
constexpr int kSchemaVersion = 39;

json DataSource() { return {{"type", "prometheus"}, {"uid", "${datasource}"}}; }

json DataSourceVariable() {
  return {{"name", "datasource"},
          {"label", "Data source"},
          {"type", "datasource"},
          {"query", "prometheus"},
          {"current", json::object()},
          {"hide", 0},
          {"includeAll", false},
          {"multi", false},
          {"options", json::array()},
          {"refresh", 1},
          {"regex", ""},
          {"skipUrlSync", false}};
}

json QueryVariable(const LabelVariable& v) {
  const std::string query = "label_values(" + v.series + ", " + v.label_name + ")";
  return {{"name", v.name},
          {"label", v.label},
          {"type", "query"},
          {"datasource", DataSource()},
          {"definition", query},
          {"query", {{"qryType", 1}, {"query", query}, {"refId", "PrometheusVariableQueryEditor"}}},
          {"current", {{"selected", true}, {"text", {"All"}}, {"value", {"$__all"}}}},
          {"hide", 0},
          {"includeAll", true},
          {"allValue", ".*"},
          {"multi", true},
          {"options", json::array()},
          {"refresh", 2},  // on time range change
          {"regex", ""},
          {"skipUrlSync", false},
          {"sort", 1}};
}

}  // namespace

std::string GrafanaUnit(std::string_view unit) {
  static const std::pair<std::string_view, std::string_view> kUnits[] = {
      {"ratio", "percentunit"}, {"bytes", "bytes"},     {"watts", "watt"},
      {"joules", "joule"},      {"celsius", "celsius"}, {"hertz", "hertz"},
      {"seconds", "s"},         {"bytes_per_second", "Bps"}, {"per_second", "ops"}};
  for (const auto& [from, to] : kUnits) {
    if (from == unit) return std::string(to);
  }
  return "none";
}

DashboardBuilder::DashboardBuilder(std::string uid, std::string title, std::string description,
                                   std::vector<std::string> tags)
    : uid_(std::move(uid)),
      title_(std::move(title)),
      description_(std::move(description)),
      tags_(std::move(tags)) {}

void DashboardBuilder::AddAnnotation(std::string name, std::string expr,
                                     std::string title_format, std::string text_format) {
  annotations_.push_back({{"name", std::move(name)},
                          {"datasource", DataSource()},
                          {"enable", true},
                          {"hide", false},
                          {"iconColor", "red"},
                          {"expr", std::move(expr)},
                          {"step", "30s"},
                          {"titleFormat", std::move(title_format)},
                          {"textFormat", std::move(text_format)},
                          {"useValueForTime", false}});
}

void DashboardBuilder::AddRow(std::string_view title) {
  Panel row;
  row.type = "row";
  row.title = std::string(title);
  row.width = kGridColumns;
  row.height = 1;
  panels_.push_back(std::move(row));
}

void DashboardBuilder::AddPanel(const Panel& panel) {
  Panel p = panel;
  p.width = std::clamp(p.width, 1, kGridColumns);
  p.height = std::max(p.height, 2);
  panels_.push_back(std::move(p));
}

json DashboardBuilder::PanelJson(const Panel& p, int id, int x, int y) const {
  json out = {{"id", id},
              {"type", p.type},
              {"title", p.title},
              {"gridPos", {{"h", p.height}, {"w", p.width}, {"x", x}, {"y", y}}}};
  if (p.type == "row") {
    out["collapsed"] = false;
    out["panels"] = json::array();
    return out;
  }
  out["description"] = p.description;
  out["datasource"] = DataSource();
  json steps = json::array({{{"color", "green"}, {"value", nullptr}}});
  if (p.has_threshold) steps.push_back({{"color", "red"}, {"value", p.threshold}});
  json defaults = {{"unit", p.unit},
                   {"color", {{"mode", p.type == "timeseries" ? "palette-classic" : "thresholds"}}},
                   {"thresholds", {{"mode", "absolute"}, {"steps", steps}}},
                   {"mappings", json::array()}};
  if (p.has_range) {
    defaults["min"] = p.min;
    defaults["max"] = p.max;
  }
  if (p.type == "timeseries") {
    defaults["custom"] = {{"drawStyle", "line"},
                          {"lineWidth", 1},
                          {"fillOpacity", 0},
                          {"showPoints", "never"},
                          {"spanNulls", false},
                          {"thresholdsStyle", {{"mode", p.has_threshold ? "dashed" : "off"}}}};
    out["options"] = {
        {"legend", {{"displayMode", "list"}, {"placement", "bottom"}, {"showLegend", true}}},
        {"tooltip", {{"mode", "multi"}, {"sort", "desc"}}}};
  } else if (p.type == "stat") {
    out["options"] = {{"reduceOptions", {{"calcs", {"lastNotNull"}}, {"fields", ""}, {"values", false}}},
                      {"colorMode", "value"},
                      {"graphMode", "area"},
                      {"textMode", "auto"}};
  } else if (p.type == "bargauge") {
    out["options"] = {{"reduceOptions", {{"calcs", {"lastNotNull"}}, {"fields", ""}, {"values", false}}},
                      {"orientation", "horizontal"},
                      {"displayMode", "gradient"}};
  } else if (p.type == "table") {
    out["options"] = {{"showHeader", true}};
    json transforms = json::array();
    if (p.merge_rows) transforms.push_back({{"id", "merge"}, {"options", json::object()}});
    const json hidden = {{"Time", true}, {"__name__", true}, {"job", true}, {"instance", true}};
    transforms.push_back({{"id", "organize"}, {"options", {{"excludeByName", hidden}}}});
    out["transformations"] = transforms;
  }
  out["fieldConfig"] = {{"defaults", defaults}, {"overrides", json::array()}};
  json targets = json::array();
  for (size_t i = 0; i < p.queries.size(); ++i) {
    const Query& q = p.queries[i];
    json t = {{"datasource", DataSource()},
              {"expr", q.expr},
              {"refId", std::string(1, static_cast<char>('A' + i))},
              {"instant", q.instant},
              {"range", !q.instant},
              {"editorMode", "code"}};
    if (!q.legend.empty()) t["legendFormat"] = q.legend;
    if (q.table_format) t["format"] = "table";
    targets.push_back(std::move(t));
  }
  out["targets"] = std::move(targets);
  return out;
}

json DashboardBuilder::Build() const {
  json panels = json::array();
  int x = 0, y = 0, line_height = 0, id = 1;
  for (const Panel& p : panels_) {
    if (p.type == "row" || x + p.width > kGridColumns) {  // start a new line
      y += line_height;
      x = 0;
      line_height = 0;
    }
    panels.push_back(PanelJson(p, id++, x, y));
    x += p.width;
    line_height = std::max(line_height, p.height);
    if (p.type == "row") x = kGridColumns;  // nothing beside a row header
  }
  json annotations = json::array({{{"builtIn", 1},
                                   {"datasource", {{"type", "grafana"}, {"uid", "-- Grafana --"}}},
                                   {"enable", true},
                                   {"hide", true},
                                   {"iconColor", "rgba(0, 211, 255, 1)"},
                                   {"name", "Annotations & Alerts"},
                                   {"type", "dashboard"}}});
  for (const json& a : annotations_) annotations.push_back(a);
  json vars = json::array({DataSourceVariable()});
  for (const LabelVariable& v : variables_) vars.push_back(QueryVariable(v));
  return {{"id", nullptr},
          {"uid", uid_},
          {"title", title_},
          {"description", description_},
          {"tags", tags_},
          {"timezone", "browser"},
          {"editable", true},
          {"graphTooltip", 1},
          {"schemaVersion", kSchemaVersion},
          {"version", 1},
          {"refresh", "30s"},
          {"time", {{"from", "now-1h"}, {"to", "now"}}},
          {"timepicker", json::object()},
          {"fiscalYearStartMonth", 0},
          {"links", json::array()},
          {"annotations", {{"list", annotations}}},
          {"templating", {{"list", vars}}},
          {"panels", panels}};
}

}  // namespace gpufleet::dashboards
