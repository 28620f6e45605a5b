// The canonical metric catalog (data/metrics.toml): every metric gpufleet
// serves, with unit, type, family, help and comparability notes.
//
// Thread safety: immutable after construction; Default() is safe to call
// from any thread.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace gpufleet {

enum class MetricType { kGauge, kCounter, kInfo };

std::string_view MetricTypeName(MetricType t);  // "gauge", "counter", "info"

struct MetricDef {
  std::string name;   // e.g. "gpu_power_watts"
  std::string unit;   // "ratio", "bytes", "watts", ... or "" for plain counts
  MetricType type = MetricType::kGauge;
  std::string family;
  std::string help;
  std::string comparability;
  std::vector<std::string> labels;  // extra labels allowed beyond device labels
};

class MetricCatalog {
 public:
  // Parses catalog TOML. `origin` names the file in errors. Validates names
  // (Prometheus rules, gpu_ prefix, _total iff counter, _info iff info, unit
  // suffix present in the name) and rejects duplicates.
  static StatusOr<MetricCatalog> Parse(std::string_view toml, std::string_view origin);
  // The catalog compiled into the binary. Aborts if it is invalid (a bug
  // caught by tests).
  static const MetricCatalog& Default();

  // nullptr when unknown.
  const MetricDef* Find(std::string_view name) const;
  const std::vector<MetricDef>& metrics() const { return metrics_; }

  // Markdown reference (docs/metrics.md).
  std::string RenderMarkdown() const;

 private:
  std::vector<MetricDef> metrics_;
  std::unordered_map<std::string_view, size_t> index_;
};

}  // namespace gpufleet
