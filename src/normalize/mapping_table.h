// MappingTable: how one source's readings (library fields or exporter
// metrics) become canonical metrics. Loaded from data/mappings/<source>.toml.
//
// File format (TOML):
//
//   source = "dcgm_exporter"
//   vendor = "nvidia"                 # vendor label when the input has none
//   sentinels = [4294967295.0]        # values meaning "no value" for every metric
//   sentinel_at_least = 9.2e18        # optional: any value >= this is a sentinel
//
//   [labels]                          # exporter label -> canonical label
//   rename = { UUID = "gpu_uuid", modelName = "model", Hostname = "node" }
//   keep = ["sensor"]                 # passed through unchanged
//   # every other input label is dropped (and counted)
//   [labels.when_present]             # constant labels added when a label is present
//   GPU_I_ID = { partition_kind = "mig" }
//
//   [[metric]]
//   from = "DCGM_FI_DEV_POWER_USAGE"  # reading or exposition metric name
//   to = "gpu_power_watts"            # canonical name; must exist in the catalog
//   scale = 1.0                       # canonical = input * scale
//   method = "nvml"                   # optional `method` label
//   labels = { sensor = "gpu" }       # optional constant labels
//   derive = "rate"                   # optional: per-second rate of a counter input
//   sentinels = [65535.0]             # optional, per metric
//
// Thread safety: immutable after Parse().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/labels.h"
#include "core/status.h"
#include "schema/metric_catalog.h"
#include "schema/vendor.h"

namespace gpufleet {

enum class Derive { kNone, kRate };

struct MetricMapping {
  std::string from;
  std::string to;
  const MetricDef* def = nullptr;  // resolved against the catalog
  double scale = 1.0;
  std::string method;
  Labels labels;
  Derive derive = Derive::kNone;
  std::vector<double> sentinels;
};

class MappingTable {
 public:
  // Validates every `to` against `catalog`; errors name origin and the
  // offending entry.
  static StatusOr<MappingTable> Parse(std::string_view toml, std::string_view origin,
                                      const MetricCatalog& catalog);
  // data/mappings/<source>.toml compiled into the binary, against the default
  // catalog. NotFound for an unknown source.
  static StatusOr<MappingTable> ForSource(std::string_view source);

  const std::string& source() const { return source_; }
  Vendor vendor() const { return vendor_; }
  // nullptr when `from` is not mapped.
  const MetricMapping* Find(std::string_view from) const;
  const std::vector<MetricMapping>& mappings() const { return mappings_; }

  // True when `value` means "no value" for `m` (table or metric sentinel, or
  // NaN from a source that never reports NaN legitimately).
  bool IsSentinel(const MetricMapping& m, double value) const;

  // Label rules for exporter input. Returns the canonical name for an input
  // label, or nullopt when it is dropped.
  std::optional<std::string_view> MapLabelName(std::string_view input_label) const;
  // Constant labels implied by the presence of an input label.
  const Labels* LabelsWhenPresent(std::string_view input_label) const;

 private:
  std::string source_;
  Vendor vendor_ = Vendor::kUnknown;
  std::vector<double> sentinels_;
  std::optional<double> sentinel_at_least_;
  std::vector<MetricMapping> mappings_;
  std::unordered_map<std::string, size_t> by_from_;
  std::unordered_map<std::string, std::string> label_rename_;
  std::unordered_map<std::string, Labels> when_present_;
};

}  // namespace gpufleet
