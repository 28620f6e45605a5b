// Joins series of different canonical metrics per device, and small window
// statistics the detectors share. Private to detect/.
//
// A device is identified by node + (gpu_uuid | gpu | pci_bus_id) +
// partition_id, whichever are present; metric-specific labels (method,
// reason, ...) do not split a device.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/labels.h"
#include "store/window_store.h"

namespace gpufleet::detect {

// "n1/3" or "n1/GPU-abc" (+ "/p1" for a partition). `L` is Labels or
// StoredLabels.
template <typename L>
std::string DeviceKey(const L& labels) {
  std::string key(labels.Get("node"));
  std::string_view id = labels.Get("gpu");
  if (id.empty()) id = labels.Get("gpu_uuid");
  if (id.empty()) id = labels.Get("pci_bus_id");
  key += '/';
  key += id;
  std::string_view part = labels.Get("partition_id");
  if (!part.empty()) {
    key += "/p";
    key += part;
  }
  return key;
}
// The identity and placement labels of a series: node, gpu, gpu_uuid,
// partition_id, model, vendor, cloud, region.
template <typename L>
Labels DeviceSubject(const L& labels) {
  Labels out;
  for (std::string_view name :
       {"node", "gpu", "gpu_uuid", "partition_id", "model", "vendor", "cloud", "region"}) {
    std::string_view v = labels.Get(name);
    if (!v.empty()) out.Set(name, v);
  }
  return out;
}
// `metric{a="1",...}` with the subject labels (for evidence).
std::string SeriesName(std::string_view metric, const Labels& subject);

// What the detectors derive from a series' labels, kept by WindowStore
// series id (never reused) between evaluations, so a series' device key and
// subject are built once, not at every evaluation by every detector. The
// series of one device share one Facts (kept once per distinct device key
// and subject): a series costs an index entry, not its own strings. A Facts
// stays valid for the SeriesFacts' lifetime.
class SeriesFacts {
 public:
  struct Facts {
    std::string device;         // DeviceKey
    Labels subject;             // DeviceSubject
    uint32_t device_index = 0;  // dense, one per distinct DeviceKey
  };
  const Facts& Of(uint64_t series_id, const StoredLabels& labels);

  // Per-device scratch of one ReadDeviceSeries: the most points seen so far
  // and whether that series was kept. Valid for the read BeginRead returned.
  struct ReadSlot {
    uint64_t read = 0;
    size_t seen = 0;
    bool kept = false;
  };
  uint64_t BeginRead() { return ++reads_; }
  ReadSlot& Slot(const Facts& f, uint64_t read) {
    ReadSlot& s = slots_[f.device_index];
    if (s.read != read) s = ReadSlot{.read = read};
    return s;
  }
  // Forgets the series not asked about since the last Sweep (pruned ones).
  // The Facts of devices stay: there are as many as distinct devices seen.
  void Sweep();
  // The dense index of a device seen so far (by DeviceKey); nullopt if none.
  std::optional<uint32_t> DeviceIndex(std::string_view device) const {
    auto it = device_index_.find(device);
    return it == device_index_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  }
  size_t size() const { return series_.size(); }
  size_t devices() const { return facts_.size(); }

 private:
  struct Entry {
    uint32_t facts = 0;  // into facts_
    bool used = true;
  };
  std::unordered_map<uint64_t, Entry> series_;
  std::map<std::pair<std::string, std::string>, uint32_t> index_;  // (device, subject text)
  std::map<std::string, uint32_t, std::less<>> device_index_;      // DeviceKey -> index
  std::deque<Facts> facts_;  // a deque: a Facts stays put as others are added
  std::vector<ReadSlot> slots_;  // by device index
  uint64_t reads_ = 0;
};

struct DeviceSeries {
  const Labels* subject = nullptr;  // of the winning series (its SeriesFacts)
  std::vector<WindowPoint> points;
  size_t seen = 0;  // points of the winning series in the window (see ReadDeviceSeries)
};
// By DeviceKey, each a view of the SeriesFacts' own copy (valid as long as
// the SeriesFacts the map was read with): a read allocates no key.
using DeviceSeriesMap = std::map<std::string_view, DeviceSeries>;

// Reads `metric` over [from_ns, to_ns], with device keys from `facts`; when
// a device has several series of the metric (e.g. two methods) the one with
// the most points wins. With `among`, only devices that are its keys are
// read. With `keep`, a device whose winning series `keep` rejects is left
// out, and only kept series are copied: a detector that needs a condition
// to hold now tests it on the store's own points, and copies the few
// devices where it does.
DeviceSeriesMap ReadDeviceSeries(
    const WindowStore& store, SeriesFacts& facts, std::string_view metric, int64_t from_ns,
    int64_t to_ns, const std::function<bool(std::span<const WindowPoint>)>& keep = nullptr,
    const DeviceSeriesMap* among = nullptr);

// The latest value at or before t_ns and not older than lookback_ns.
std::optional<double> ValueAt(std::span<const WindowPoint> points, int64_t t_ns,
                              int64_t lookback_ns);
// Mean of the points in [from_ns, to_ns] (closed, like a Prometheus 2.x range
// selector, so exported rules compute the same mean); nullopt when none.
std::optional<double> MeanIn(std::span<const WindowPoint> points, int64_t from_ns, int64_t to_ns);

// Means over windows that slide forward between evaluations (a reference
// that ends where the current window begins), kept as running sums per
// series (WindowStore series id): each call adds the points that entered and
// subtracts those that left instead of summing the window again (either end
// may move either way, as long as the windows overlap). A sum is
// reused only when the points it covered are still there (same count, same
// first and last timestamps: a pruned series is summed afresh) and it never
// covers a series' newest point, the one a re-sent sample may change.
// Sums are rebuilt every kRebuildAfter updates so rounding cannot drift.
class SlidingMeans {
 public:
  static constexpr int kRebuildAfter = 256;
  // The mean of `points` (sorted) in [from_ns, to_ns], like MeanIn.
  std::optional<double> Mean(uint64_t series_id, std::span<const WindowPoint> points,
                             int64_t from_ns, int64_t to_ns);
  // Forgets keys not used since the last Sweep (bounded memory).
  void Sweep();
  size_t size() const { return entries_.size(); }
  // Calls answered by updating a kept sum rather than summing afresh.
  uint64_t reused() const { return reused_; }

 private:
  struct Entry {
    int64_t from = 0, to = 0;
    double sum = 0;
    size_t n = 0;
    int64_t first_ts = 0, last_ts = 0;
    int updates = 0;
    bool used = false;
  };
  std::unordered_map<uint64_t, Entry> entries_;
  uint64_t reused_ = 0;
};

// Sample statistics.
double Mean(std::span<const double> xs);
double StdDev(std::span<const double> xs);  // sample (n - 1)
// Quantile q in [0, 1] with linear interpolation; REQUIRES: sorted, non-empty.
double SortedQuantile(std::span<const double> sorted, double q);

}  // namespace gpufleet::detect
