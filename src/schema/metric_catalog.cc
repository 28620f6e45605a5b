#include "schema/metric_catalog.h"

#include <cstdio>
#include <map>

#include "core/embedded.h"
#include "core/labels.h"
#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet {

std::string_view MetricTypeName(MetricType t) {
  switch (t) {
    case MetricType::kGauge: return "gauge";
    case MetricType::kCounter: return "counter";
    case MetricType::kInfo: return "info";
  }
  return "gauge";
}

namespace {

StatusOr<MetricType> ParseType(std::string_view s, const std::string& where) {
  if (s == "gauge") return MetricType::kGauge;
  if (s == "counter") return MetricType::kCounter;
  if (s == "info") return MetricType::kInfo;
  return InvalidArgumentError(where + "type must be gauge, counter or info, not '" +
                              std::string(s) + "'");
}

// Checks the naming rules the catalog promises (Prometheus conventions).
Status ValidateDef(const MetricDef& d, const std::string& where) {
  if (!IsValidMetricName(d.name)) return InvalidArgumentError(where + "invalid metric name");
  if (!StartsWith(d.name, "gpu_")) {
    return InvalidArgumentError(where + "canonical metric '" + d.name + "' must start with gpu_");
  }
  bool total = EndsWith(d.name, "_total");
  if (total != (d.type == MetricType::kCounter)) {
    return InvalidArgumentError(where + "'" + d.name + "': counters and only counters end in _total");
  }
  if (EndsWith(d.name, "_info") != (d.type == MetricType::kInfo)) {
    return InvalidArgumentError(where + "'" + d.name + "': info metrics and only they end in _info");
  }
  if (!d.unit.empty()) {
    std::string base = total ? d.name.substr(0, d.name.size() - 6) : d.name;
    if (!EndsWith(base, "_" + d.unit)) {
      return InvalidArgumentError(where + "'" + d.name + "': name must end in its unit '" + d.unit +
                                  "' (before _total)");
    }
  }
  if (d.help.empty()) return InvalidArgumentError(where + "'" + d.name + "': help is empty");
  for (const std::string& l : d.labels) {
    if (!IsValidLabelName(l)) return InvalidArgumentError(where + "invalid label name '" + l + "'");
  }
  return OkStatus();
}

}  // namespace

StatusOr<MetricCatalog> MetricCatalog::Parse(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  const toml::array* arr = root["metric"].as_array();
  if (arr == nullptr) return InvalidArgumentError(std::string(origin) + ": no [[metric]] entries");
  MetricCatalog cat;
  for (const toml::node& node : *arr) {
    const toml::table* t = node.as_table();
    std::string where = TomlWhere(origin, node);
    if (t == nullptr) return InvalidArgumentError(where + "[[metric]] must be a table");
    MetricDef d;
    ASSIGN_OR_RETURN(d.name, RequiredString(*t, "name", origin));
    ASSIGN_OR_RETURN(d.unit, OptionalString(*t, "unit", origin));
    ASSIGN_OR_RETURN(std::string type, RequiredString(*t, "type", origin));
    ASSIGN_OR_RETURN(d.type, ParseType(type, where));
    ASSIGN_OR_RETURN(d.family, RequiredString(*t, "family", origin));
    ASSIGN_OR_RETURN(d.help, RequiredString(*t, "help", origin));
    ASSIGN_OR_RETURN(d.comparability, OptionalString(*t, "comparability", origin));
    if (const toml::array* labels = t->get_as<toml::array>("labels")) {
      for (const toml::node& l : *labels) {
        auto v = l.value<std::string>();
        if (!v) return InvalidArgumentError(TomlWhere(origin, l) + "labels must be strings");
        d.labels.push_back(*v);
      }
    }
    RETURN_IF_ERROR(ValidateDef(d, where));
    for (const MetricDef& prev : cat.metrics_) {
      if (prev.name == d.name) return InvalidArgumentError(where + "duplicate metric '" + d.name + "'");
    }
    cat.metrics_.push_back(std::move(d));
  }
  for (size_t i = 0; i < cat.metrics_.size(); ++i) cat.index_[cat.metrics_[i].name] = i;
  return cat;
}

const MetricCatalog& MetricCatalog::Default() {
  static const MetricCatalog* catalog = [] {
    auto text = FindEmbeddedFile("metrics.toml");
    GPUFLEET_CHECK(text.has_value());
    StatusOr<MetricCatalog> c = Parse(*text, "data/metrics.toml");
    if (!c.ok()) CheckFailed(__FILE__, __LINE__, "default catalog", c.status().ToString());
    return new MetricCatalog(std::move(c).value());
  }();
  return *catalog;
}

const MetricDef* MetricCatalog::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &metrics_[it->second];
}

namespace {

// How exporter and library readings become these series where the input is
// ambiguous: rules the translation applies whatever the source.
constexpr char kTranslationRules[] =
    "\n## Translation rules\n\n"
    "**No sentinels.** Vendor markers for \"no value\" (DCGM blank values, amdsmi "
    "UINT32_MAX / 0xFFFF, `N/A`) are dropped and counted, never published. A temperature of "
    "exactly 0 C is one of them: exporters and libraries report 0 for a sensor the GPU does "
    "not have (`DCGM_FI_DEV_MEMORY_TEMP` on a GDDR board, AMD memory temperature in an "
    "SR-IOV guest), and a powered GPU never reads 0 C, so `gpu_temperature_celsius` with "
    "value 0 is absent, counted as a sentinel.\n\n"
    "**Workload labels and target labels.** An exporter's own /metrics names the device's "
    "workload in `pod`, `namespace`, `container` (dcgm-exporter only with its Kubernetes "
    "mapping on; AMD DME always, empty when none); they become `gpu_workload_info` with "
    "`workload_*` labels. A dump that went through a Prometheus scrape (a federation, "
    "remote-storage export or `/api/v1/export` file) also carries the scrape target's labels "
    "from service discovery: `job`, `instance` and, on Kubernetes, `pod`, `namespace`, "
    "`container`, `service`, `endpoint`, `node` of the exporter's own pod. The rule: when a "
    "series has `job`, `instance` or any `exported_*` label, its plain `pod`, `namespace` and "
    "`container` are the target's and are dropped (counted as `pod (scrape target)` etc.), "
    "and the workload is read from `exported_pod`, `exported_namespace`, "
    "`exported_container`, where Prometheus puts the exporter's labels when they collide "
    "(`honor_labels: false`, the ServiceMonitor default). With `honor_labels: true` a "
    "scraped dump cannot tell the exporter's pod from the workload's, so gpufleet takes "
    "none: attribution is lost rather than wrong.\n\n"
    "**One device, one identity.** The AMD device-metrics-exporter can list a GPU twice: "
    "under an all-zero UUID (with `amd_`-prefixed names) and under its real UUID. A row "
    "with an all-zero UUID takes the real UUID of the row with the same host and `gpu_id` "
    "in the same input; duplicated samples then merge and are counted as duplicates. An "
    "all-zero UUID with no such partner identifies the device by `gpu_index`.\n\n"
    "**Mixed dumps.** A file that mixes exporters (a federated dump with dcgm-exporter "
    "and AMD exporter families) is translated per family: `DCGM_*` names with the "
    "dcgm-exporter table, `xpum_*` with XPU Manager's, `hw_*` (OpenTelemetry hardware "
    "conventions) with xpumd's when the input has `hw_gpu_*` families (alone, `hw_power` or "
    "`hw_temperature` may be any component's), the rest with the table its labels and names sniff "
    "as; the "
    "report names every source (`dcgm_exporter+amd_dme`).\n\n"
    "**xpumd.** XPU Manager's OpenTelemetry daemon reports per engine group "
    "(`hw_gpu_task`): `all` is `gpu_utilization_ratio`, `compute-all` "
    "`gpu_graphics_engine_active_ratio`, single engines stay unmapped; temperatures come "
    "as the interval's `min` and `max`, and the max is taken; `com_intel_subdevice_id` "
    "(a tile) becomes the partition. Its device model is on `hw_gpu_info` only and moves "
    "to `gpu_info`.\n";

}  // namespace

std::string MetricCatalog::RenderMarkdown() const {
  std::string out =
      "# Canonical metrics\n\n"
      "Generated from `data/metrics.toml` by `gpufleet docs metrics`; do not edit by hand.\n\n"
      "Every series carries the device labels `vendor`, `model`, `gpu_uuid`, `pci_bus_id`, "
      "`node` and, where known, `cloud`, `region`, `partition_kind` (mig, amd_xcp, intel_tile), "
      "`partition_id`, `partition_profile`. Where vendors measure a family differently, the "
      "`method` label says how the value was obtained (nvml, gpm, dcgm_prof, amdsmi, rocm_smi, "
      "sysfs, levelzero, sim, or the exporter it was translated from). A quantity that adds up "
      "and belongs to the whole GPU (power, energy, error and throttle-time counters, link "
      "traffic) is published once per GPU, not on each of its partitions, where a sum over "
      "a node would count it once per partition: on an NVIDIA GPU without partition labels "
      "(also where dcgm-exporter repeats it on every MIG instance), on an AMD GPU read "
      "through amdsmi on its partition 0.\n\n"
      "Units are base units: ratios are 0-1, memory is bytes, power watts, energy joules, "
      "temperature degrees Celsius, clocks hertz, time seconds. A value the device does not "
      "report is absent; `gpu_up` and `gpufleet_agent_collector_errors_total` say why.\n";
  std::map<std::string, std::vector<const MetricDef*>> by_family;
  std::vector<std::string> order;
  for (const MetricDef& d : metrics_) {
    if (by_family.find(d.family) == by_family.end()) order.push_back(d.family);
    by_family[d.family].push_back(&d);
  }
  for (const std::string& fam : order) {
    out += "\n## " + fam + "\n\n";
    out += "| metric | type | unit | labels | meaning |\n|---|---|---|---|---|\n";
    for (const MetricDef* d : by_family[fam]) {
      std::string labels;
      for (const std::string& l : d->labels) labels += (labels.empty() ? "`" : ", `") + l + "`";
      out += "| `" + d->name + "` | " + std::string(MetricTypeName(d->type)) + " | " +
             (d->unit.empty() ? "-" : d->unit) + " | " + (labels.empty() ? "-" : labels) + " | " +
             d->help + " |\n";
    }
    bool any_notes = false;
    for (const MetricDef* d : by_family[fam]) {
      if (d->comparability.empty()) continue;
      if (!any_notes) out += "\nComparability:\n\n";
      any_notes = true;
      out += "- `" + d->name + "`: " + d->comparability + "\n";
    }
  }
  out += kTranslationRules;
  return out;
}

}  // namespace gpufleet
