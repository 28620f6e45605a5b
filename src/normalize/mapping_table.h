// MappingTable: how one source's readings (library fields or exporter
// metrics) become canonical metrics. Loaded from data/mappings/<source>.toml.
//
// File format (TOML):
//
//   source = "dcgm_exporter"
//   vendor = "nvidia"                 # vendor label when the input has none
//   sentinels = [4294967295.0]        # values meaning "no value" for every metric
//   sentinel_at_least = 9.2e18        # optional: any value >= this is a sentinel
//   name_prefixes = ["amd_"]          # optional: prefixes an exporter may be configured to
//                                     # add; stripped before lookup when the full name misses
//
//   [labels]                          # exporter label -> canonical label
//   rename = { UUID = "gpu_uuid", modelName = "model", Hostname = "node" }
//   keep = ["sensor"]                 # passed through unchanged
//   # every other input label is dropped (and counted)
//   identity_fallback = { gpu = "gpu_index" }  # renamed only when the series has no gpu_uuid
//                                     # (keeps devices apart when the exporter omits UUIDs)
//   [labels.when_present]             # constant labels added when a label is present
//   GPU_I_ID = { partition_kind = "mig" }       # (non-empty after value_map)
//   [labels.value_map]                # per *canonical* label: input value -> canonical value;
//   domain = { system = "sm" }        # "" removes the label
//   [labels.info.gpu_info]            # input labels that describe the device, moved off every
//   DCGM_FI_DRIVER_VERSION = "driver_version"  # series onto one info series per device
//
//   [ignore]                          # known names deliberately not mapped, with the reason;
//   DCGM_FI_DEV_FB_FREE = "no canonical metric (total - used)"  # not counted as unmapped
//
//   [[metric]]
//   from = "DCGM_FI_DEV_POWER_USAGE"  # reading or exposition metric name
//   to = "gpu_power_watts"            # canonical name; must exist in the catalog
//   scale = 1.0                       # canonical = input * scale
//   method = "nvml"                   # optional `method` label
//   labels = { sensor = "gpu" }       # optional constant labels
//   derive = "rate"                   # optional: per-second rate of a counter input
//   sentinels = [65535.0]             # optional, per metric
//   match = { type = "actual" }       # optional: applies only to input series whose labels
//                                     # have these values (several [[metric]] may then share
//                                     # one `from`; the first that matches wins)
//   rename_labels = { location = "sensor" }  # optional: per-metric label renames, checked
//                                     # before [labels]
//
// Thread safety: immutable after Parse().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/labels.h"
#include "core/status.h"
#include "core/string_map.h"
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
  // Input label name -> required value (empty = applies to every series).
  std::vector<std::pair<std::string, std::string>> match;
  // Input label name -> canonical label name, for this metric only.
  std::vector<std::pair<std::string, std::string>> rename_labels;
  // The GPU's own reading (power, temperature, clocks, energy), which an
  // exporter repeats on each of the GPU's partitions (dcgm-exporter on every
  // MIG instance): published once per GPU, without partition labels.
  bool whole_device = false;

  // True when `get(name)` returns the required value for every `match` entry.
  // `get` returns "" for an absent label.
  template <typename Getter>
  bool Matches(const Getter& get) const {
    for (const auto& [name, value] : match) {
      if (get(std::string_view(name)) != std::string_view(value)) return false;
    }
    return true;
  }
  // The per-metric rename for an input label, or nullptr.
  const std::string* RenamedLabel(std::string_view input_label) const;
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
  // nullptr when `from` is not mapped. With several entries for `from` (see
  // `match`), the first one in file order.
  const MetricMapping* Find(std::string_view from) const;
  // Indices into mappings() of every entry for `from`, in file order; nullptr
  // when not mapped. Also tries `from` without each of name_prefixes.
  const std::vector<uint32_t>* FindAll(std::string_view from) const;
  // The first entry for `from` whose `match` accepts `labels`; nullptr when none.
  const MetricMapping* FindMatching(std::string_view from, const Labels& labels) const;
  const std::vector<MetricMapping>& mappings() const { return mappings_; }

  // True when `value` means "no value" for `m` (table or metric sentinel,
  // NaN from a source that never reports NaN legitimately, or a temperature
  // of exactly 0 C: the reading of a sensor the GPU does not have).
  bool IsSentinel(const MetricMapping& m, double value) const;

  // Label rules for exporter input. Returns the canonical name for an input
  // label, or nullopt when it is dropped.
  std::optional<std::string_view> MapLabelName(std::string_view input_label) const;
  // Constant labels implied by the presence of an input label.
  const Labels* LabelsWhenPresent(std::string_view input_label) const;
  // Canonical label name for `input_label` when the series has no gpu_uuid.
  std::optional<std::string_view> IdentityFallback(std::string_view input_label) const;
  // The canonical value for `value` of canonical label `label` (value_map);
  // `value` itself when not mapped.
  std::string_view MapLabelValue(std::string_view label, std::string_view value) const;
  // Info metric name + info label name for an input label, or nullptr.
  const std::pair<std::string, std::string>* InfoLabel(std::string_view input_label) const;
  // Every info metric named in [labels.info.*] (sorted).
  const std::vector<std::string>& info_metrics() const { return info_metrics_; }
  // Reason a name is deliberately unmapped, or nullptr.
  const std::string* IgnoreReason(std::string_view from) const;
  const std::map<std::string, std::string, std::less<>>& ignored() const { return ignore_; }

 private:
  std::string source_;
  Vendor vendor_ = Vendor::kUnknown;
  std::vector<double> sentinels_;
  std::optional<double> sentinel_at_least_;
  std::vector<std::string> name_prefixes_;
  std::vector<MetricMapping> mappings_;
  StringMap<std::vector<uint32_t>> by_from_;  // indices into mappings_
  StringMap<std::string> label_rename_;
  StringMap<Labels> when_present_;
  StringMap<std::string> identity_fallback_;
  StringMap<StringMap<std::string>> value_map_;
  StringMap<std::pair<std::string, std::string>> info_labels_;
  std::vector<std::string> info_metrics_;
  std::map<std::string, std::string, std::less<>> ignore_;
};

}  // namespace gpufleet
