#include "store/window_store.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/string_map.h"
#include "core/text_hash.h"

namespace gpufleet {
namespace {

// Names and values hashed each as its own string (TextHash) and mixed in
// order, so {a="bc"} != {ab="c"}. Runs for every sample appended; equal
// hashes are still compared label by label. `labels` is any range of
// (name, value) pairs: a Labels' pairs, a StoredLabels or decoded views
// all hash alike.
template <typename Range>
uint64_t HashPairs(const Range& labels) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  auto mix = [&h](std::string_view s) {
    h = (h ^ TextHash(s)) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  };
  for (const auto& [name, value] : labels) {
    mix(name);
    mix(value);
  }
  return h;
}

struct Series {
  // Into the store's Strings, sorted by name.
  std::unique_ptr<StoredLabels::Ref[]> label_refs;
  size_t label_count = 0;
  // Points [begin_, points.size()) are live. Pruned points are erased when
  // an append finds the buffer full (instead of growing it: a steady
  // window keeps the buffer it has) or once they are half the buffer.
  std::vector<WindowPoint> points;
  size_t begin = 0;
  uint64_t id = 0;  // unique for the store's lifetime

  size_t live() const { return points.size() - begin; }
  StoredLabels labels() const { return StoredLabels(label_refs.get(), label_count); }
};

// Appends one point to `series` (see Append); `shard_points` counts the
// shard's points, `dropped` the samples older than the series' newest.
bool AddPoint(Series& series, uint64_t& shard_points, std::atomic<uint64_t>& dropped,
              int64_t timestamp_ns, double value) {
  if (series.live() > 0) {
    WindowPoint& last = series.points.back();
    if (timestamp_ns < last.timestamp_ns) {
      dropped.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    if (timestamp_ns == last.timestamp_ns) {
      last.value = value;
      return true;
    }
  }
  if (series.begin > 0 && series.points.size() == series.points.capacity()) {
    series.points.erase(series.points.begin(),
                        series.points.begin() + static_cast<ptrdiff_t>(series.begin));
    series.begin = 0;
  }
  series.points.push_back({timestamp_ns, value});
  ++shard_points;
  return true;
}

// The shard's series by label hash: open addressing with linear probing,
// one 16-byte slot per series at a load of at most a half. A lookup reads
// one slot (and the series' labels to confirm), where a node-based map
// chased a bucket, a node and a vector: three dependent cache misses per
// sample at fleet scale. Erased slots stay marked so later probes go past
// them; a rebuild drops them.
class SeriesIndex {
 public:
  template <typename Range>
  Series* Find(uint64_t hash, const Range& labels) const {
    return FindIf(hash, [&](const Series& s) { return s.labels().Equals(labels); });
  }
  // The series with this id (ids are unique: no labels to compare).
  Series* FindId(uint64_t hash, uint64_t id) const {
    return FindIf(hash, [&](const Series& s) { return s.id == id; });
  }
  template <typename Match>
  Series* FindIf(uint64_t hash, const Match& match) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Home(hash);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.series == nullptr) return nullptr;
      if (s.series != Erased() && s.hash == hash && match(*s.series)) return s.series;
    }
  }
  void Insert(uint64_t hash, Series* series) {
    if ((used_ + erased_ + 1) * 2 > slots_.size()) Rebuild(used_ + 1);
    size_t i = Home(hash);
    while (slots_[i].series != nullptr && slots_[i].series != Erased()) i = (i + 1) & mask_;
    if (slots_[i].series == Erased()) erased_--;
    slots_[i] = {hash, series};
    used_++;
  }
  void Erase(uint64_t hash, const Series* series) {
    if (slots_.empty()) return;
    for (size_t i = Home(hash);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.series == nullptr) return;
      if (s.series == series) {
        s.series = Erased();
        used_--;
        erased_++;
        return;
      }
    }
  }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    uint64_t hash = 0;
    Series* series = nullptr;  // null: empty; Erased(): erased
  };
  static Series* Erased() { return &erased_marker_; }
  static inline Series erased_marker_{};  // never read: its address marks erased slots
  // The hash's high bits: a shard holds hashes with equal low bits.
  size_t Home(uint64_t hash) const {
    return static_cast<size_t>((hash * 0x9e3779b97f4a7c15ULL) >> shift_) & mask_;
  }
  void Rebuild(size_t live) {
    size_t cap = 16;
    while (cap < live * 4) cap *= 2;  // load ~1/4 after a rebuild
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
    used_ = erased_ = 0;
    for (const Slot& s : old) {
      if (s.series != nullptr && s.series != Erased()) Insert(s.hash, s.series);
    }
  }

  std::vector<Slot> slots_;  // size a power of two
  size_t mask_ = 0;
  int shift_ = 64;
  size_t used_ = 0, erased_ = 0;
};

}  // namespace

std::string_view StoredLabels::Get(std::string_view name) const {
  // As Labels::Get: __name__ sorts first and is asked for most.
  if (n_ > 0 && *refs_[0].name == name) return *refs_[0].value;
  const Ref* end = refs_ + n_;
  const Ref* it = std::lower_bound(refs_, end, name,
                                   [](const Ref& r, std::string_view n) { return *r.name < n; });
  if (it != end && *it->name == name) return *it->value;
  return {};
}

Labels StoredLabels::ToLabels() const {
  Labels out;
  for (const auto& [name, value] : pairs()) out.Set(name, value);
  return out;
}

std::string StoredLabels::ToString() const {
  std::string out;
  AppendLabelList(pairs(), out);
  return out;
}

bool StoredLabels::operator==(const Labels& other) const { return Equals(other.pairs()); }

// Every distinct label name and value held by the store's series, counted by
// the series that point at it: a series' labels cost it two pointers each.
// Guarded by mu, taken after a shard's lock (never before), only when a
// series is created or dropped.
class WindowStore::Strings {
 public:
  std::mutex mu;

  const std::string* Acquire(std::string_view s) {
    auto it = counts_.find(s);
    if (it == counts_.end()) it = counts_.emplace(std::string(s), 0).first;
    ++it->second;
    return &it->first;
  }
  void Release(const std::string* s) {
    auto it = counts_.find(std::string_view(*s));
    if (--it->second == 0) counts_.erase(it);
  }
  size_t size() const { return counts_.size(); }
  size_t memory_bytes() const {
    // A node holds the string, its count, the next pointer and the cached
    // hash; long strings add their own block.
    size_t n = counts_.bucket_count() * sizeof(void*);
    for (const auto& [text, count] : counts_) {
      n += sizeof(std::string) + 3 * sizeof(void*);
      if (text.size() > 15) n += text.capacity() + 1;
    }
    return n;
  }

 private:
  StringMap<uint32_t> counts_;
};

struct WindowStore::Shard {
  mutable std::shared_mutex mu;
  // Guarded by mu. Hash (and labels) -> series.
  SeriesIndex by_hash;
  // Guarded by mu. Metric name -> its series, for ForEach.
  StringMap<std::vector<std::unique_ptr<Series>>> by_metric;
  uint64_t points = 0;  // guarded by mu
};

// Metric name -> one bit per shard that holds series of it, so a ForEach
// visits those shards only (on a small fleet a metric's series sit in a few
// of the 64). Shard i's bit changes only under shard i's lock: set when the
// shard gains the metric's first series, cleared when Prune drops its last.
// mu guards the map itself and is taken after a shard's lock or alone.
class WindowStore::MetricShards {
 public:
  // The metric's shard bits; 0 when no shard has held it.
  uint64_t Mask(std::string_view metric) const {
    std::shared_lock lock(mu_);
    auto it = masks_.find(metric);
    return it == masks_.end() ? 0 : it->second.load(std::memory_order_acquire);
  }
  void Set(std::string_view metric, size_t shard, bool on) {
    std::atomic<uint64_t>* mask = nullptr;
    {
      std::shared_lock lock(mu_);
      if (auto it = masks_.find(metric); it != masks_.end()) mask = &it->second;
    }
    if (mask == nullptr) {
      std::unique_lock lock(mu_);
      mask = &masks_.try_emplace(std::string(metric), 0).first->second;
    }
    const uint64_t bit = uint64_t{1} << shard;
    if (on) {
      mask->fetch_or(bit, std::memory_order_release);
    } else {
      mask->fetch_and(~bit, std::memory_order_release);
    }
  }

 private:
  mutable std::shared_mutex mu_;
  // Node-based: a mask stays where it is while others are added.
  StringMap<std::atomic<uint64_t>> masks_;
};

WindowStore::WindowStore(const WindowStoreOptions& options)
    : options_(options),
      strings_(std::make_unique<Strings>()),
      metric_shards_(std::make_unique<MetricShards>()),
      shards_(new Shard[kShards]) {}

WindowStore::~WindowStore() = default;

uint64_t WindowStore::LabelHash(const Labels& labels) { return HashPairs(labels.pairs()); }

uint64_t WindowStore::LabelHash(std::span<const LabelView> labels) { return HashPairs(labels); }

bool WindowStore::Append(const Labels& labels, int64_t timestamp_ns, double value) {
  return Append(labels, HashPairs(labels.pairs()), timestamp_ns, value);
}

bool WindowStore::Append(const Labels& labels, uint64_t hash, int64_t timestamp_ns, double value,
                         uint64_t* series_id) {
  const size_t shard_index = hash % kShards;
  Shard& shard = shards_[shard_index];
  std::unique_lock lock(shard.mu);
  Series* series =
      series_id != nullptr && *series_id != 0 ? shard.by_hash.FindId(hash, *series_id) : nullptr;
  if (series == nullptr) series = shard.by_hash.Find(hash, labels.pairs());
  if (series == nullptr) {
    // Reserve the slot before creating so concurrent shards cannot overshoot.
    if (series_count_.fetch_add(1, std::memory_order_relaxed) >= options_.max_series) {
      series_count_.fetch_sub(1, std::memory_order_relaxed);
      dropped_series_limit_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    auto owned = std::make_unique<Series>();
    const auto& pairs = labels.pairs();
    owned->label_refs = std::make_unique<StoredLabels::Ref[]>(pairs.size());
    owned->label_count = pairs.size();
    {
      std::lock_guard strings_lock(strings_->mu);
      for (size_t i = 0; i < pairs.size(); ++i) {
        owned->label_refs[i] = {strings_->Acquire(pairs[i].first),
                                strings_->Acquire(pairs[i].second)};
      }
    }
    owned->id = next_series_id_.fetch_add(1, std::memory_order_relaxed);
    series = owned.get();
    shard.by_hash.Insert(hash, series);
    const std::string_view metric = labels.Get("__name__");
    auto list = shard.by_metric.find(metric);
    if (list == shard.by_metric.end()) {
      list = shard.by_metric.try_emplace(std::string(metric)).first;
      metric_shards_->Set(metric, shard_index, true);
    }
    list->second.push_back(std::move(owned));
  }
  if (series_id != nullptr) *series_id = series->id;
  return AddPoint(*series, shard.points, dropped_out_of_order_, timestamp_ns, value);
}

bool WindowStore::AppendToHeld(std::span<const LabelView> labels, uint64_t hash,
                               std::span<const WindowPoint> points, AppendCounts* counts) {
  Shard& shard = shards_[hash % kShards];
  std::unique_lock lock(shard.mu);
  Series* series = shard.by_hash.Find(hash, labels);
  if (series == nullptr) return false;
  for (const WindowPoint& p : points) {
    const bool added =
        AddPoint(*series, shard.points, dropped_out_of_order_, p.timestamp_ns, p.value);
    (added ? counts->accepted : counts->rejected)++;
  }
  return true;
}

void WindowStore::ForEach(
    std::string_view metric, int64_t from_ns, int64_t to_ns,
    const std::function<void(const StoredLabels&, std::span<const WindowPoint>)>& fn) const {
  ForEachSeries(metric, from_ns, to_ns,
                [&](uint64_t, const StoredLabels& labels, std::span<const WindowPoint> pts) {
                  fn(labels, pts);
                });
}

void WindowStore::ForEachSeries(std::string_view metric, int64_t from_ns, int64_t to_ns,
                                const std::function<void(uint64_t, const StoredLabels&,
                                                         std::span<const WindowPoint>)>& fn) const {
  auto by_ts = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns < t; };
  for (uint64_t mask = metric_shards_->Mask(metric); mask != 0; mask &= mask - 1) {
    const Shard& shard = shards_[std::countr_zero(mask)];
    std::shared_lock lock(shard.mu);
    auto it = shard.by_metric.find(metric);
    if (it == shard.by_metric.end()) continue;
    for (const auto& series : it->second) {
      auto begin = series->points.begin() + static_cast<ptrdiff_t>(series->begin);
      auto first = std::lower_bound(begin, series->points.end(), from_ns, by_ts);
      // upper_bound, not lower_bound(to_ns + 1): to_ns may be INT64_MAX.
      auto last = std::upper_bound(first, series->points.end(), to_ns,
                                   [](int64_t t, const WindowPoint& p) { return t < p.timestamp_ns; });
      if (first == last) continue;
      fn(series->id, series->labels(),
         std::span<const WindowPoint>(&*first, static_cast<size_t>(last - first)));
    }
  }
}

void WindowStore::ForEachLatest(
    std::string_view metric, int64_t from_ns, int64_t to_ns,
    const std::function<void(uint64_t, const StoredLabels&, const WindowPoint&)>& fn) const {
  for (uint64_t mask = metric_shards_->Mask(metric); mask != 0; mask &= mask - 1) {
    const Shard& shard = shards_[std::countr_zero(mask)];
    std::shared_lock lock(shard.mu);
    auto it = shard.by_metric.find(metric);
    if (it == shard.by_metric.end()) continue;
    for (const auto& series : it->second) {
      if (series->live() == 0) continue;
      auto begin = series->points.begin() + static_cast<ptrdiff_t>(series->begin);
      auto last = series->points.end();
      if (last[-1].timestamp_ns > to_ns) {
        last = std::upper_bound(begin, last, to_ns, [](int64_t t, const WindowPoint& p) {
          return t < p.timestamp_ns;
        });
        if (last == begin) continue;
      }
      if (last[-1].timestamp_ns < from_ns) continue;
      fn(series->id, series->labels(), last[-1]);
    }
  }
}

void WindowStore::Prune(int64_t now_ns) {
  const int64_t cutoff = now_ns - options_.retention_ns;
  auto by_ts = [](const WindowPoint& p, int64_t t) { return p.timestamp_ns < t; };
  for (size_t i = 0; i < kShards; ++i) {
    Shard& shard = shards_[i];
    std::unique_lock lock(shard.mu);
    for (auto mit = shard.by_metric.begin(); mit != shard.by_metric.end();) {
      auto& list = mit->second;
      for (auto& series : list) {
        auto begin = series->points.begin() + static_cast<ptrdiff_t>(series->begin);
        auto keep = std::lower_bound(begin, series->points.end(), cutoff, by_ts);
        const size_t dropped = static_cast<size_t>(keep - begin);
        series->begin += dropped;
        shard.points -= dropped;
        if (series->begin * 2 > series->points.size() || series->live() == 0) {
          series->points.erase(series->points.begin(),
                               series->points.begin() + static_cast<ptrdiff_t>(series->begin));
          series->begin = 0;
          if (series->points.capacity() > 2 * series->points.size() + 16) {
            series->points.shrink_to_fit();
          }
        }
      }
      // Drop empty series from both indexes, and their hold on their labels.
      auto empty = [](const std::unique_ptr<Series>& s) { return s->live() == 0; };
      bool any = false;
      for (auto& series : list) {
        if (!empty(series)) continue;
        shard.by_hash.Erase(HashPairs(series->labels()), series.get());
        series_count_.fetch_sub(1, std::memory_order_relaxed);
        any = true;
      }
      if (any) {
        std::lock_guard strings_lock(strings_->mu);
        for (auto& series : list) {
          if (!empty(series)) continue;
          for (size_t j = 0; j < series->label_count; ++j) {
            strings_->Release(series->label_refs[j].name);
            strings_->Release(series->label_refs[j].value);
          }
        }
      }
      std::erase_if(list, empty);
      if (list.empty()) {
        metric_shards_->Set(mit->first, i, false);
        mit = shard.by_metric.erase(mit);
      } else {
        ++mit;
      }
    }
  }
}

WindowStore::Stats WindowStore::stats() const {
  Stats stats;
  for (size_t i = 0; i < kShards; ++i) {
    const Shard& shard = shards_[i];
    std::shared_lock lock(shard.mu);
    stats.points += shard.points;
    stats.memory_bytes += shard.by_hash.memory_bytes();
    for (const auto& [metric, list] : shard.by_metric) {
      stats.memory_bytes += metric.capacity() + list.capacity() * sizeof(void*);
      for (const auto& series : list) {
        stats.memory_bytes += sizeof(Series) + series->label_count * sizeof(StoredLabels::Ref) +
                              series->points.capacity() * sizeof(WindowPoint);
      }
    }
    stats.series += [&] {
      size_t n = 0;
      for (const auto& [metric, list] : shard.by_metric) n += list.size();
      return n;
    }();
  }
  {
    std::lock_guard strings_lock(strings_->mu);
    stats.label_strings = strings_->size();
    stats.memory_bytes += strings_->memory_bytes();
  }
  stats.dropped_out_of_order = dropped_out_of_order_.load(std::memory_order_relaxed);
  stats.dropped_series_limit = dropped_series_limit_.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace gpufleet
