// SelfMetrics: the agent's own gpufleet_agent_* metrics -- one table of
// counters and gauges (name, help, labels), exported next to the GPU series.
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/sample.h"
#include "expo/exposition_writer.h"

namespace gpufleet {

struct SelfMetricDef {
  std::string_view name;
  std::string_view type;  // "counter" or "gauge"
  std::string_view unit;
  std::string_view help;
};

// Every self-metric the agent exports. Adding one means adding a row here.
inline constexpr SelfMetricDef kSelfMetrics[] = {
    {"gpufleet_agent_collection_duration_seconds", "gauge", "seconds",
     "Wall time of the last collection cycle of one collector."},
    {"gpufleet_agent_collector_errors_total", "counter", "",
     "Collection problems by collector and reason (lost, timeout, library, permission, "
     "driver_mismatch, error, not_supported, symbol_missing, sentinel, absurd, unmapped, "
     "counter_reset, discover_failed, scrape_failed, parse_error)."},
    {"gpufleet_agent_devices_up", "gauge", "", "Devices of one collector that answered the last collection."},
    {"gpufleet_agent_devices_discovered", "gauge", "", "Devices one collector discovered."},
    {"gpufleet_agent_collections_total", "counter", "", "Collection cycles run."},
    {"gpufleet_agent_last_collection_timestamp_seconds", "gauge", "seconds",
     "Unix time at which the served snapshot was collected."},
    {"gpufleet_agent_build_info", "gauge", "", "Agent version; value is always 1."},
};

const SelfMetricDef* FindSelfMetric(std::string_view name);

class SelfMetrics {
 public:
  void Add(std::string_view name, const Labels& labels, double delta);
  void Set(std::string_view name, const Labels& labels, double value);
  double Get(std::string_view name, const Labels& labels);
  // Appends every self-metric series to `out`, sorted.
  void AppendSamples(std::vector<Sample>& out);

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, Labels>, double> values_;  // guarded by mu_
};

// Exposition metadata for any series the agent serves: canonical gpu_*
// metrics from the catalog, gpufleet_* from kSelfMetrics, else untyped.
FamilyMeta AgentFamilyMeta(std::string_view name);

}  // namespace gpufleet
