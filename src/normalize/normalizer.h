// Normalizer: turns one source's raw readings into canonical samples using
// that source's MappingTable: unit and scale conversion, sentinel filtering,
// absurd-value rejection, counter -> rate derivation, label policy.
//
// Thread safety: not thread-safe (keeps per-series counter state for rate
// derivation); the agent owns one Normalizer per collector and calls it from
// one thread at a time.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "core/labels.h"
#include "core/sample.h"
#include "normalize/mapping_table.h"
#include "schema/device.h"

namespace gpufleet {

// Where the agent runs; becomes the node / cloud / region labels.
struct NodeIdentity {
  std::string node;
  std::string cloud;
  std::string region;
};

// The device label set every canonical series carries: vendor, model,
// gpu_uuid, pci_bus_id, node, cloud, region, partition_kind, partition_id,
// partition_profile (empty values are omitted). DeviceInfo's node/cloud/region
// win over `node` when set (the simulator models many nodes).
Labels DeviceLabels(const DeviceInfo& device, const NodeIdentity& node);
// The names DeviceLabels() sets for a device with every field filled, sorted.
inline constexpr std::string_view kDeviceLabelNames[] = {
    "cloud",          "gpu_uuid",          "model",      "node",   "partition_id",
    "partition_kind", "partition_profile", "pci_bus_id", "region", "vendor"};
// True for a label that identifies a device: kDeviceLabelNames, and the
// gpu_index an exporter's series falls back to without UUID or bus id.
inline bool IsDeviceLabel(std::string_view name) {
  if (name == "gpu_index") return true;
  return std::ranges::find(kDeviceLabelNames, name) != std::end(kDeviceLabelNames);
}

// Why readings were dropped, for gpufleet_agent_collector_errors_total.
struct NormalizeStats {
  uint64_t unmapped = 0;       // no mapping for the reading name
  uint64_t sentinel = 0;       // vendor "no value" marker
  uint64_t absurd = 0;         // outside the physically possible range for its unit
  uint64_t counter_reset = 0;  // counter went backwards; rate skipped for this interval
};

class Normalizer {
 public:
  explicit Normalizer(MappingTable table);

  // Appends the canonical samples for one device's readings to `out`.
  // `timestamp_ns` is the collection time (wall clock), used for samples and
  // for rate derivation (rates need two collections; the first yields none).
  void Normalize(const DeviceInfo& device, const Labels& device_labels, const DeviceReadings& in,
                 int64_t timestamp_ns, std::vector<Sample>& out, NormalizeStats& stats);

  // Forgets rate state for a device (e.g. after it was lost and returned).
  void ResetDevice(const std::string& uuid);

  const MappingTable& table() const { return table_; }

 private:
  struct CounterState {
    double value = 0;
    int64_t timestamp_ns = 0;
  };
  MappingTable table_;
  std::unordered_map<std::string, CounterState> counters_;  // key: series identity
};

// The physically possible values of a canonical metric, by unit (e.g. a
// ratio in [0, 1.05], a temperature in [-60, 250] Celsius); finite values
// in [lo, hi] are plausible.
struct PlausibleRange {
  double lo;
  double hi;
  bool Contains(double value) const {
    return std::isfinite(value) && value >= lo && value <= hi;
  }
};
PlausibleRange PlausibleRangeOf(const MetricDef& def);
// PlausibleRangeOf(def).Contains(value).
bool IsPlausible(const MetricDef& def, double value);

}  // namespace gpufleet
