// A small builder for Grafana's classic dashboard JSON model (the shape
// Grafana's "Import dashboard" and file provisioning read, schemaVersion 39 as
// in the AMD device-metrics-exporter dashboards of Grafana 11).
//
// What it guarantees, so the generators above it stay declarative:
//   - every panel and every query names the data source through the
//     `${datasource}` template variable (a Prometheus-type data source chosen
//     on the dashboard, so one JSON works against Prometheus, VictoriaMetrics
//     or Mimir);
//   - panels are laid out left to right on Grafana's 24-column grid, wrapping
//     to a new line when a panel does not fit; rows take a full line; no two
//     panels overlap;
//   - panel ids are unique within the dashboard, query refIds unique within
//     the panel.
//
// Units are Grafana unit ids ("percentunit", "bytes", "watt", ...); see
// GrafanaUnit() for the mapping from the metric catalog's units.
//
// Thread safety: a builder is used from one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpufleet::dashboards {

// Grafana's unit id for a catalog unit ("ratio" -> "percentunit", "bytes" ->
// "bytes", "watts" -> "watt", ...; "" -> "none").
std::string GrafanaUnit(std::string_view catalog_unit);

struct Query {
  std::string expr;         // PromQL; may use the dashboard's $variables
  std::string legend;       // legendFormat, e.g. "{{vendor}}"; "" = Grafana's default
  bool instant = false;     // one evaluation at the end of the range (stat, table, bar gauge)
  bool table_format = false;  // "format": "table" (one row per series)
};

struct Panel {
  std::string type;  // "timeseries", "stat", "table", "bargauge"
  std::string title;
  std::string description;
  std::string unit = "none";
  int width = 8;   // grid columns, 1-24
  int height = 7;  // grid rows (30 px each)
  std::vector<Query> queries;
  // Optional threshold drawn as a dashed line (timeseries) or colour step
  // (stat, bar gauge); `has_threshold` false = none.
  bool has_threshold = false;
  double threshold = 0;
  // Optional fixed axis range (ratios: 0-1).
  bool has_range = false;
  double min = 0, max = 1;
  // Table panels: merge the instant queries' rows on their common labels.
  bool merge_rows = false;
};

// A query variable over label values, e.g. name "node", label "node",
// series selector "gpu_up{cloud=~\"$cloud\"}". Multi-select with an "All"
// option whose value is ".*" (so an absent label matches as well).
struct LabelVariable {
  std::string name;
  std::string label;        // what the drop-down shows
  std::string series;       // label_values(<series>, <label_name>)
  std::string label_name;
};

class DashboardBuilder {
 public:
  DashboardBuilder(std::string uid, std::string title, std::string description,
                   std::vector<std::string> tags);

  void AddVariable(const LabelVariable& v) { variables_.push_back(v); }
  // A Prometheus annotation: every series of `expr` marks the time axis of
  // every panel where it has samples; title and text are label templates.
  void AddAnnotation(std::string name, std::string expr, std::string title_format,
                     std::string text_format);
  // A collapsed=false row header across the full width.
  void AddRow(std::string_view title);
  void AddPanel(const Panel& panel);

  // The dashboard JSON (id null, version 1, time now-1h..now, refresh 30s).
  nlohmann::json Build() const;

  const std::vector<Panel>& panels() const { return panels_; }

 private:
  nlohmann::json PanelJson(const Panel& p, int id, int x, int y) const;

  std::string uid_, title_, description_;
  std::vector<std::string> tags_;
  std::vector<LabelVariable> variables_;
  std::vector<nlohmann::json> annotations_;
  std::vector<Panel> panels_;  // rows are panels of type "row"
};

}  // namespace gpufleet::dashboards
