// Exports the threshold rules of a DetectConfig as a Prometheus / vmalert
// rule group (YAML), so a distributed engine (Prometheus, VictoriaMetrics
// vmalert, Mimir ruler) fires the same alerts as the built-in detectors.
//
// Equivalence: each condition becomes a comparison on the canonical metric;
// conditions are joined per device with `and on (node, gpu, gpu_uuid,
// partition_id)`; "drop" becomes
// `m < (1 - drop) * avg_over_time(m[reference] offset for)`; the rule window
// becomes `for`. Built-in staleness uses the config's lookback, which equals
// Prometheus' default 5m lookback delta in the fleet defaults. The group's
// evaluation interval is the collection interval.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "detect/detect_config.h"

namespace gpufleet::detect {

// "memory_contention" -> "GpufleetMemoryContention".
std::string AlertName(std::string_view rule_name);
// The PromQL expression of one rule.
std::string RuleExpr(const RuleConfig& rule);
// The alert's summary annotation (static text, so that promtool unit tests
// and receivers can match it exactly; the labels carry the device).
std::string RuleSummary(const RuleConfig& rule);
// The whole rules file. `origin` is named in the header comment.
std::string ExportPrometheusRules(const DetectConfig& config, std::string_view origin);

}  // namespace gpufleet::detect
