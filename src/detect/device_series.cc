#include "detect/device_series.h"

#include <algorithm>
#include <cmath>

namespace gpufleet::detect {

std::string SeriesName(std::string_view metric, const Labels& subject) {
  // In name order, as Labels::ToString writes them.
  std::pair<std::string_view, std::string_view> ids[4];
  size_t n = 0;
  for (std::string_view name : {"gpu", "gpu_uuid", "node", "partition_id"}) {
    std::string_view v = subject.Get(name);
    if (!v.empty()) ids[n++] = {name, v};
  }
  std::string out(metric);
  AppendLabelList(std::span(ids, n), out);
  return out;
}

const SeriesFacts::Facts& SeriesFacts::Of(uint64_t series_id, const StoredLabels& labels) {
  auto [it, added] = series_.try_emplace(series_id);
  Entry& e = it->second;
  if (added) {
    Facts f{DeviceKey(labels), DeviceSubject(labels)};
    auto [slot, fresh] =
        index_.try_emplace({f.device, f.subject.ToString()}, static_cast<uint32_t>(facts_.size()));
    if (fresh) {
      auto [dev, added_device] =
          device_index_.try_emplace(f.device, static_cast<uint32_t>(device_index_.size()));
      if (added_device) slots_.emplace_back();
      f.device_index = dev->second;
      facts_.push_back(std::move(f));
    }
    e.facts = slot->second;
  }
  e.used = true;
  return facts_[e.facts];
}

void SeriesFacts::Sweep() {
  std::erase_if(series_, [](const auto& kv) { return !kv.second.used; });
  for (auto& [id, e] : series_) e.used = false;
}

DeviceSeriesMap ReadDeviceSeries(const WindowStore& store, SeriesFacts& facts,
                                 std::string_view metric, int64_t from_ns, int64_t to_ns,
                                 const std::function<bool(std::span<const WindowPoint>)>& keep,
                                 const DeviceSeriesMap* among) {
  DeviceSeriesMap out;
  // A device enters `out` only once a series of it is kept (most reads keep
  // few devices); the most points seen per device are kept in `facts`.
  const uint64_t read = facts.BeginRead();
  store.ForEachSeries(
      metric, from_ns, to_ns,
      [&](uint64_t id, const StoredLabels& labels, std::span<const WindowPoint> pts) {
        const SeriesFacts::Facts& f = facts.Of(id, labels);
        if (among != nullptr && !among->contains(f.device)) return;
        SeriesFacts::ReadSlot& slot = facts.Slot(f, read);
        if (pts.size() <= slot.seen) return;
        slot.seen = pts.size();
        if (keep && !keep(pts)) {
          if (slot.kept) out.erase(f.device);
          slot.kept = false;
          return;
        }
        slot.kept = true;
        DeviceSeries& d = out[f.device];
        d.seen = pts.size();
        d.subject = &f.subject;
        d.points.assign(pts.begin(), pts.end());
      });
  return out;
}

std::optional<double> ValueAt(std::span<const WindowPoint> points, int64_t t_ns,
                              int64_t lookback_ns) {
  auto it = std::upper_bound(points.begin(), points.end(), t_ns,
                             [](int64_t t, const WindowPoint& p) { return t < p.timestamp_ns; });
  if (it == points.begin()) return std::nullopt;
  --it;
  if (t_ns - it->timestamp_ns > lookback_ns) return std::nullopt;
  return it->value;
}

std::optional<double> MeanIn(std::span<const WindowPoint> points, int64_t from_ns, int64_t to_ns) {
  auto before = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns < t; };
  auto upto = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns <= t; };
  auto first = std::lower_bound(points.begin(), points.end(), from_ns, before);
  auto last = std::lower_bound(first, points.end(), to_ns, upto);
  if (first == last) return std::nullopt;
  double sum = 0;
  for (auto it = first; it != last; ++it) sum += it->value;
  return sum / static_cast<double>(last - first);
}

std::optional<double> SlidingMeans::Mean(uint64_t key, std::span<const WindowPoint> points,
                                         int64_t from_ns, int64_t to_ns) {
  auto before = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns < t; };
  auto upto = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns <= t; };
  const auto lo = std::lower_bound(points.begin(), points.end(), from_ns, before);
  const auto hi = std::lower_bound(lo, points.end(), to_ns, upto);
  if (lo == hi) return std::nullopt;
  auto sum_of = [](auto a, auto b) {
    double s = 0;
    for (auto it = a; it < b; ++it) s += it->value;
    return s;
  };
  if (hi == points.end()) {  // covers the newest point: not kept
    entries_.erase(key);
    return sum_of(lo, hi) / static_cast<double>(hi - lo);
  }
  Entry& e = entries_[key];
  e.used = true;
  bool reuse = e.n > 0 && e.updates < kRebuildAfter;
  decltype(points.begin()) olo, ohi;
  if (reuse) {
    olo = std::lower_bound(points.begin(), points.end(), e.from, before);
    ohi = std::lower_bound(olo, points.end(), e.to, upto);
    // The points summed before are all still there, and the windows overlap.
    reuse = static_cast<size_t>(ohi - olo) == e.n && olo->timestamp_ns == e.first_ts &&
            (ohi - 1)->timestamp_ns == e.last_ts && lo < ohi && olo < hi;
  }
  if (reuse) {
    // Either end may have moved either way.
    e.sum += lo < olo ? sum_of(lo, olo) : -sum_of(olo, lo);
    e.sum += hi > ohi ? sum_of(ohi, hi) : -sum_of(hi, ohi);
    ++e.updates;
    ++reused_;
  } else {
    e.sum = sum_of(lo, hi);
    e.updates = 0;
  }
  e.from = from_ns;
  e.to = to_ns;
  e.n = static_cast<size_t>(hi - lo);
  e.first_ts = lo->timestamp_ns;
  e.last_ts = (hi - 1)->timestamp_ns;
  return e.sum / static_cast<double>(e.n);
}

void SlidingMeans::Sweep() {
  std::erase_if(entries_, [](const auto& kv) { return !kv.second.used; });
  for (auto& [key, e] : entries_) e.used = false;
}

double Mean(std::span<const double> xs) {
  if (xs.empty()) return 0;
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

double StdDev(std::span<const double> xs) {
  if (xs.size() < 2) return 0;
  const double m = Mean(xs);
  double s = 0;
  for (double x : xs) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(xs.size() - 1));
}

double SortedQuantile(std::span<const double> sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] * (1 - frac) + sorted[hi] * frac;
}

}  // namespace gpufleet::detect
