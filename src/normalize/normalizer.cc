#include "normalize/normalizer.h"

#include <cmath>
#include <limits>

namespace gpufleet {

namespace {

constexpr char kKeySep = '\x1f';

// Applies the per-metric renames and the table's value map to a reading's own
// labels (sensor="edge", link="3") and merges them into `labels`.
void MergeReadingLabels(const MappingTable& table, const MetricMapping& m, const Labels& in,
                        Labels& labels) {
  for (const auto& [name, value] : in.pairs()) {
    const std::string* renamed = m.RenamedLabel(name);
    std::string_view out_name = renamed != nullptr ? std::string_view(*renamed)
                                                   : std::string_view(name);
    labels.Set(out_name, table.MapLabelValue(out_name, value));
  }
}

}  // namespace

Labels DeviceLabels(const DeviceInfo& device, const NodeIdentity& node) {
  Labels l;
  if (device.vendor != Vendor::kUnknown) l.Set("vendor", VendorName(device.vendor));
  l.Set("model", device.model);
  l.Set("gpu_uuid", device.uuid);
  if (!device.pci_bus_id.empty()) l.Set("pci_bus_id", CanonicalPciBusId(device.pci_bus_id));
  l.Set("node", device.node.empty() ? node.node : device.node);
  l.Set("cloud", device.cloud.empty() ? node.cloud : device.cloud);
  l.Set("region", device.region.empty() ? node.region : device.region);
  if (!device.partition.kind.empty()) {
    l.Set("partition_kind", device.partition.kind);
    l.Set("partition_id", device.partition.id);
    l.Set("partition_profile", device.partition.profile);
  }
  return l;
}

Normalizer::Normalizer(MappingTable table) : table_(std::move(table)) {}

void Normalizer::Normalize(const DeviceInfo& device, const Labels& device_labels,
                           const DeviceReadings& in, int64_t timestamp_ns,
                           std::vector<Sample>& out, NormalizeStats& stats) {
  for (const RawReading& r : in.readings) {
    const MetricMapping* m = table_.FindMatching(r.name, r.labels);
    if (m == nullptr) {
      if (table_.IgnoreReason(r.name) == nullptr) ++stats.unmapped;
      continue;
    }
    if (table_.IsSentinel(*m, r.value)) {
      ++stats.sentinel;
      continue;
    }
    double value = m->def->type == MetricType::kInfo ? 1.0 : r.value * m->scale;

    Labels labels = device_labels;
    MergeReadingLabels(table_, *m, r.labels, labels);
    labels.Merge(m->labels);
    if (!m->method.empty()) labels.Set("method", m->method);

    if (m->derive == Derive::kRate) {
      // Series identity: device (uuid + partition) + reading name + reading labels.
      std::string key = device.uuid;
      key += kKeySep;
      key += device.partition.id;
      key += kKeySep;
      key += m->from;
      key += kKeySep;
      key += r.labels.ToString();
      auto [it, inserted] = counters_.try_emplace(std::move(key));
      CounterState& st = it->second;
      if (inserted) {
        st = CounterState{value, timestamp_ns};
        continue;  // a rate needs two collections
      }
      if (value < st.value) {
        ++stats.counter_reset;
        st = CounterState{value, timestamp_ns};
        continue;
      }
      if (timestamp_ns <= st.timestamp_ns) continue;  // clock did not advance: no rate yet
      double seconds = static_cast<double>(timestamp_ns - st.timestamp_ns) / 1e9;
      double rate = (value - st.value) / seconds;
      st = CounterState{value, timestamp_ns};
      value = rate;
    }
    if (!IsPlausible(*m->def, value)) {
      ++stats.absurd;
      continue;
    }
    out.push_back(Sample{m->to, std::move(labels), value, timestamp_ns});
  }
}

void Normalizer::ResetDevice(const std::string& uuid) {
  std::string prefix = uuid + kKeySep;
  for (auto it = counters_.begin(); it != counters_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0) {
      it = counters_.erase(it);
    } else {
      ++it;
    }
  }
}

PlausibleRange PlausibleRangeOf(const MetricDef& def) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (def.type == MetricType::kInfo) return {-kInf, kInf};
  const std::string& u = def.unit;
  const bool counter = def.type == MetricType::kCounter;
  if (u == "celsius") return {-60, 250};
  // Nothing else gpufleet serves can be negative.
  if (u == "ratio") return {0, 1.05};
  if (u == "watts") return {0, 20000};  // a whole multi-die board, with margin
  if (u == "joules") return {0, 1e13};  // ~300 years at 1 kW
  if (u == "hertz") return {0, 1e11};
  if (u == "bytes") return {0, counter ? 1e20 : 1e15};
  if (u == "bytes_per_second") return {0, 1e14};
  if (u == "seconds") return {0, 1e11};
  return {0, 1e18};  // plain counts and codes
}

bool IsPlausible(const MetricDef& def, double value) {
  return PlausibleRangeOf(def).Contains(value);
}

}  // namespace gpufleet
