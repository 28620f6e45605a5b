// WindowStore: recent samples per series, in memory, for the detectors.
//
// Each series is identified by its full label set (including __name__) and
// keeps its points in a compact, time-ordered buffer. Points older than the
// newest point of their series are dropped and counted, which keeps every
// buffer sorted without sorting. Memory is bounded by `retention_ns` (Prune)
// and `max_series` (Append refuses new series beyond it).
//
// Thread safety: all methods are thread-safe. Series are spread over shards,
// each with its own reader/writer lock, so many ingest threads can Append
// while one detector thread runs ForEach. ForEach holds a shard's read lock
// while calling `fn`; `fn` must not call back into the store for writing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/labels.h"

namespace gpufleet {

struct WindowStoreOptions {
  int64_t retention_ns = 30LL * 60 * 1'000'000'000;
  size_t max_series = 2'000'000;
};

// A stored series' labels, sorted by name. The store holds each distinct name
// and value once and every series that carries it points at that copy, so a
// series costs two pointers per label instead of two strings: on a fleet the
// forty series of one GPU share its uuid, node and model, and every series
// shares the label names. A StoredLabels is valid while the callback that
// receives it runs; the string_views it hands out stay valid while the
// series is held (until a Prune drops it).
class StoredLabels {
 public:
  struct Ref {
    const std::string* name;
    const std::string* value;
  };
  using Pair = std::pair<std::string_view, std::string_view>;
  class Iterator {
   public:
    using value_type = Pair;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    explicit Iterator(const Ref* r) : r_(r) {}
    Pair operator*() const { return {*r_->name, *r_->value}; }
    Iterator& operator++() {
      ++r_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++r_;
      return old;
    }
    friend bool operator==(Iterator a, Iterator b) { return a.r_ == b.r_; }

   private:
    const Ref* r_ = nullptr;
  };

  StoredLabels(const Ref* refs, size_t n) : refs_(refs), n_(n) {}

  // Returns "" when absent.
  std::string_view Get(std::string_view name) const;
  bool Has(std::string_view name) const { return !Get(name).empty(); }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Iterator begin() const { return Iterator(refs_); }
  Iterator end() const { return Iterator(refs_ + n_); }
  // The (name, value) pairs, as Labels::pairs() gives them.
  const StoredLabels& pairs() const { return *this; }

  // Whether the labels equal `pairs` (any range of (name, value) pairs
  // sorted by name, e.g. Labels::pairs()).
  template <typename Range>
  bool Equals(const Range& pairs) const {
    size_t i = 0;
    for (const auto& [name, value] : pairs) {
      if (i == n_ || *refs_[i].name != name || *refs_[i].value != value) return false;
      ++i;
    }
    return i == n_;
  }

  Labels ToLabels() const;
  // `{a="1",b="x"}` as Labels::ToString writes it.
  std::string ToString() const;
  bool operator==(const Labels& other) const;

 private:
  const Ref* refs_;
  size_t n_;
};

struct WindowPoint {
  int64_t timestamp_ns;
  double value;
};

class WindowStore {
 public:
  explicit WindowStore(const WindowStoreOptions& options);
  ~WindowStore();
  WindowStore(const WindowStore&) = delete;
  WindowStore& operator=(const WindowStore&) = delete;

  // `labels` include __name__. Returns false (and counts it) when the series
  // is new and the series limit is reached, or when the sample is older than
  // the newest point of its series (out of order). A sample with the same
  // timestamp as the newest point replaces its value (a re-sent sample).
  bool Append(const Labels& labels, int64_t timestamp_ns, double value);
  // The same with the labels' LabelHash computed by the caller, who appends
  // to one series many times (a replay hashes each series once). With
  // `series_id`, the caller keeps the series' id between calls (0 at first):
  // while the series is held it is found by that id, without comparing
  // labels, and the id is written back (a new one once the series was
  // pruned and is created again).
  bool Append(const Labels& labels, uint64_t label_hash, int64_t timestamp_ns, double value,
              uint64_t* series_id = nullptr);
  static uint64_t LabelHash(const Labels& labels);
  // The same hash for labels as views, sorted by name.
  static uint64_t LabelHash(std::span<const LabelView> labels);

  // A receiver's shortcut for series the store already holds: when a
  // series with exactly `labels` (views sorted by name, hashed with
  // LabelHash) is held, appends `points` (oldest first) to it as Append
  // would, adds each to `counts` and returns true; otherwise changes
  // nothing and returns false (the caller validates the labels and calls
  // Append, which creates the series). Labels equal to a held series' were
  // valid when that series was created, so the caller need not check them
  // again.
  struct AppendCounts {
    uint64_t accepted = 0;
    uint64_t rejected = 0;  // out of order
  };
  bool AppendToHeld(std::span<const LabelView> labels, uint64_t hash,
                    std::span<const WindowPoint> points, AppendCounts* counts);

  // Calls `fn` for every series of `metric` with its labels (with __name__)
  // and its points in [from_ns, to_ns], oldest first. Series with no point in
  // the range are skipped. Order across series is unspecified.
  void ForEach(
      std::string_view metric, int64_t from_ns, int64_t to_ns,
      const std::function<void(const StoredLabels&, std::span<const WindowPoint>)>& fn) const;

  // ForEach with each series' id (see ForEachLatest), for callers that keep
  // what they derive from a series between calls.
  void ForEachSeries(std::string_view metric, int64_t from_ns, int64_t to_ns,
                     const std::function<void(uint64_t series_id, const StoredLabels&,
                                              std::span<const WindowPoint>)>& fn) const;

  // Calls `fn` for every series of `metric` whose newest point at or before
  // to_ns is at or after from_ns, with that point and the series' id: a
  // number unique for the store's lifetime (never reused after a series is
  // pruned), so callers may cache what they derive from a series' labels.
  // Cheaper than ForEach when only the latest value matters.
  void ForEachLatest(std::string_view metric, int64_t from_ns, int64_t to_ns,
                     const std::function<void(uint64_t series_id, const StoredLabels&,
                                              const WindowPoint&)>& fn) const;

  // Drops points older than now_ns - retention_ns and series left empty.
  void Prune(int64_t now_ns);

  struct Stats {
    size_t series = 0;
    uint64_t points = 0;  // points held now
    uint64_t dropped_out_of_order = 0;
    uint64_t dropped_series_limit = 0;
    size_t memory_bytes = 0;   // estimate of heap held by series, points and label strings
    size_t label_strings = 0;  // distinct label names and values held
  };
  Stats stats() const;

  const WindowStoreOptions& options() const { return options_; }

 private:
  struct Shard;
  class Strings;
  class MetricShards;
  static constexpr size_t kShards = 64;  // one bit each in MetricShards

  const WindowStoreOptions options_;
  // Declared before the shards, so it outlives the series that point into it.
  std::unique_ptr<Strings> strings_;
  std::unique_ptr<MetricShards> metric_shards_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<size_t> series_count_{0};
  std::atomic<uint64_t> next_series_id_{1};
  std::atomic<uint64_t> dropped_out_of_order_{0};
  std::atomic<uint64_t> dropped_series_limit_{0};
};

}  // namespace gpufleet
