#include "server/ingest.h"

#include <algorithm>
#include <limits>

#include "cost/cost_metrics.h"

namespace gpufleet {
namespace {

// gpu_info rarely changes; rewriting it at every sample would make SQLite
// the bottleneck of ingest.
constexpr int64_t kInventoryRefreshNs = 60 * kNsPerSecond;
constexpr size_t kMaxInventoryKeys = 100'000;
// Decoded series a thread keeps for its next write (about 1 KB each).
constexpr size_t kKeepDecodedSeries = 8192;

// The newest sample time of `series`, or `newest_ms` when that is newer.
int64_t NewestMs(const std::vector<RemoteWriteSeries>& series, int64_t newest_ms) {
  for (const RemoteWriteSeries& s : series) {
    for (const RemoteWriteSample& p : s.samples) newest_ms = std::max(newest_ms, p.timestamp_ms);
  }
  return newest_ms;
}

}  // namespace

Ingester::Ingester(WindowStore& window, InventoryStore* inventory, RemoteWriteForwarder* forwarder,
                   const Clock& clock, RemoteWriteLimits limits, cost::Meter* meter,
                   const cost::PriceBook* prices, cost::WorkMeter* work_meter)
    : window_(window),
      inventory_(inventory),
      forwarder_(forwarder),
      meter_(meter),
      work_meter_(work_meter),
      prices_(prices),
      clock_(clock),
      limits_(limits) {}

IngestResult Ingester::IngestRemoteWrite(std::string_view body) {
  requests_++;
  IngestResult result;
  RemoteWriteDecodeStats stats;
  // One request per thread, refilled by every write: an agent's batches
  // repeat the same label sets, so decoding reuses the strings of the last
  // one instead of allocating and freeing them (in a profile, building and
  // freeing the decoded label sets took ~40% of the server's ingest CPU).
  thread_local RemoteWriteRequest reused;
  struct Release {  // a batch far larger than usual is not kept
    ~Release() {
      if (r.series.size() > kKeepDecodedSeries) RemoteWriteRequest().series.swap(r.series);
    }
    RemoteWriteRequest& r;
  } release{reused};
  // Series the window store already holds go straight to it: their labels
  // were checked when the series came first, and are compared, not copied
  // (checking and copying them was a third of ingest's CPU). A metered one
  // goes to the cost meter as its key and samples when the meter's cursor
  // for it already names its device; the inventory's and the work meter's
  // series, and metered ones the meter does not know yet, take the full
  // path (their labels are read there).
  WindowStore::AppendCounts held_counts;
  int64_t held_newest_ms = std::numeric_limits<int64_t>::min();
  thread_local std::vector<WindowPoint> points;
  thread_local std::vector<cost::KeyedSamples> keyed;  // [0, keyed_n) of this write
  size_t keyed_n = 0;
  const HeldSeries held = [&](std::span<const LabelView> labels,
                              std::span<const RemoteWriteSample> samples) {
    std::string_view metric;
    for (const auto& [name, value] : labels) {
      if (name == "__name__") metric = value;
    }
    if (metric == "gpu_info") return false;
    cost::MeterKey key;
    if (meter_ != nullptr) {
      key = cost::MeterKeyOf(labels);
      if (key.work || (key.kind != 0 && !meter_->Knows(key.series))) return false;
    }
    points.clear();
    for (const RemoteWriteSample& s : samples) {
      points.push_back({s.timestamp_ms * kNsPerMs, s.value});
      held_newest_ms = std::max(held_newest_ms, s.timestamp_ms);
    }
    if (!window_.AppendToHeld(labels, WindowStore::LabelHash(labels), points, &held_counts)) {
      return false;
    }
    if (key.kind != 0) {
      if (keyed_n == keyed.size()) keyed.emplace_back();
      keyed[keyed_n].key = key;
      keyed[keyed_n++].samples.assign(samples.begin(), samples.end());
    }
    return true;
  };
  if (Status st = DecodeRemoteWriteInto(body, limits_, &stats, &reused, &held); !st.ok()) {
    requests_rejected_++;
    result.status = st.WithContext("remote write body");
    return result;
  }
  RemoteWriteRequest* const request = &reused;
  uint64_t out_of_order = held_counts.rejected;
  std::vector<cost::MeterKey> keys;
  result.samples_accepted = Store(*request, &out_of_order, &keys) + held_counts.accepted;
  if (Status st = MeterWrite(request->series, keys, std::span(keyed.data(), keyed_n)); !st.ok()) {
    result.status = st;
    return result;
  }
  result.samples_rejected = stats.samples_rejected + out_of_order;
  samples_accepted_ += result.samples_accepted;
  samples_rejected_ += result.samples_rejected;
  if (forwarder_ != nullptr && stats.series_accepted > 0) {
    // Forward what was valid: the original bytes when nothing was dropped.
    Status st = stats.series_rejected == 0 ? forwarder_->Enqueue(body, stats.samples_accepted)
                                           : forwarder_->Enqueue(EncodeValid(body, *request, stats),
                                                                 stats.samples_accepted);
    if (!st.ok()) forward_errors_++;
    MaybeForwardPrices(NewestMs(request->series, held_newest_ms));
  }
  if (stats.series_rejected > 0) {
    std::string msg = std::to_string(stats.series_rejected) + " series rejected";
    for (const std::string& e : stats.errors) msg += "; " + e;
    result.status = InvalidArgumentError(msg + " (" + std::to_string(stats.series_accepted) +
                                         " valid series stored)");
  }
  return result;
}

std::string Ingester::EncodeValid(std::string_view body, const RemoteWriteRequest& request,
                                  const RemoteWriteDecodeStats& stats) const {
  if (stats.series_held == 0) return EncodeRemoteWrite(request);
  // The held series are not in `request`: decode the body again, whole
  // (a batch with invalid series is rare).
  RemoteWriteRequest all;
  if (!DecodeRemoteWriteInto(body, limits_, nullptr, &all).ok()) return EncodeRemoteWrite(request);
  return EncodeRemoteWrite(all);
}

IngestResult Ingester::IngestSamples(const std::vector<Sample>& samples) {
  int64_t now_ms = clock_.NowNs() / kNsPerMs;
  RemoteWriteRequest request = ToRemoteWrite(samples, now_ms);
  IngestResult result;
  uint64_t rejected = 0;
  std::vector<cost::MeterKey> keys;
  result.samples_accepted = Store(request, &rejected, &keys);
  result.samples_rejected = rejected;
  result.status = MeterWrite(request.series, keys);
  samples_accepted_ += result.samples_accepted;
  samples_rejected_ += rejected;
  if (forwarder_ != nullptr && !request.series.empty()) {
    if (!forwarder_->Enqueue(EncodeRemoteWrite(request), result.samples_accepted).ok()) {
      forward_errors_++;
    }
    MaybeForwardPrices(NewestMs(request.series, std::numeric_limits<int64_t>::min()));
  }
  return result;
}

Status Ingester::MeterWrite(const std::vector<RemoteWriteSeries>& series,
                            const std::vector<cost::MeterKey>& keys,
                            std::span<const cost::KeyedSamples> keyed) {
  if (meter_ == nullptr) return OkStatus();
  Status st = meter_->Record(series, keys, keyed);
  if (st.ok() && work_meter_ != nullptr) st = work_meter_->Record(series, keys);
  if (st.ok()) return st;
  meter_errors_++;
  return UnavailableError("cost meter: " + st.message() + " (send the write again)");
}

void Ingester::MaybeForwardPrices(int64_t newest_ms) {
  if (meter_ == nullptr || prices_ == nullptr || forwarder_ == nullptr) return;
  if (newest_ms < 0) return;
  const int64_t minute = newest_ms / 60000;
  {
    std::lock_guard<std::mutex> lock(price_mu_);
    if (minute <= price_minute_) return;
    price_minute_ = minute;
  }
  StatusOr<std::vector<cost::MeteredDevice>> devices = meter_->Devices();
  if (!devices.ok()) {
    forward_errors_++;
    return;
  }
  RemoteWriteRequest prices{cost::DevicePriceSeries(*devices, *prices_, minute * 60000)};
  if (prices.series.empty()) return;
  if (!forwarder_->Enqueue(EncodeRemoteWrite(prices), prices.series.size()).ok()) {
    forward_errors_++;
  }
}

uint64_t Ingester::Store(const RemoteWriteRequest& request, uint64_t* rejected,
                         std::vector<cost::MeterKey>* meter_keys) {
  uint64_t accepted = 0;
  if (meter_ != nullptr) meter_keys->reserve(request.series.size());
  for (const RemoteWriteSeries& s : request.series) {
    bool is_info = s.labels.Get("__name__") == "gpu_info";
    for (const RemoteWriteSample& p : s.samples) {
      int64_t ts_ns = p.timestamp_ms * kNsPerMs;
      if (window_.Append(s.labels, ts_ns, p.value)) {
        accepted++;
      } else {
        (*rejected)++;
      }
    }
    if (is_info && inventory_ != nullptr && !s.samples.empty()) {
      MaybeRecordInventory(s.labels, s.samples.back().timestamp_ms * kNsPerMs);
    }
    // After the window store has read the labels: they are in the cache.
    if (meter_ != nullptr) meter_keys->push_back(cost::MeterKeyOf(s.labels));
  }
  return accepted;
}

void Ingester::MaybeRecordInventory(const Labels& labels, int64_t ts_ns) {
  std::string key = labels.ToString();
  int64_t now = clock_.MonotonicNs();
  {
    std::lock_guard<std::mutex> lock(inventory_mu_);
    auto it = inventory_written_.find(key);
    if (it != inventory_written_.end() && now - it->second < kInventoryRefreshNs) return;
    if (inventory_written_.size() >= kMaxInventoryKeys) inventory_written_.clear();
    inventory_written_[key] = now;
  }
  Labels device = labels;
  device.Remove("__name__");
  if (!inventory_->ObserveInfo(device, ts_ns).ok()) inventory_errors_++;
}

IngestCounters Ingester::counters() const {
  return {requests_.load(),         requests_rejected_.load(), samples_accepted_.load(),
          samples_rejected_.load(), inventory_errors_.load(),  forward_errors_.load(),
          meter_errors_.load()};
}

}  // namespace gpufleet
