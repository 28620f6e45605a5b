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
#include <string_view>

#include "core/labels.h"

namespace gpufleet {

struct WindowStoreOptions {
  int64_t retention_ns = 30LL * 60 * 1'000'000'000;
  size_t max_series = 2'000'000;
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
  // to one series many times (a replay hashes each series once).
  bool Append(const Labels& labels, uint64_t label_hash, int64_t timestamp_ns, double value);
  static uint64_t LabelHash(const Labels& labels);

  // Calls `fn` for every series of `metric` with its labels (with __name__)
  // and its points in [from_ns, to_ns], oldest first. Series with no point in
  // the range are skipped. Order across series is unspecified.
  void ForEach(std::string_view metric, int64_t from_ns, int64_t to_ns,
               const std::function<void(const Labels&, std::span<const WindowPoint>)>& fn) const;

  // ForEach with each series' id (see ForEachLatest), for callers that keep
  // what they derive from a series between calls.
  void ForEachSeries(std::string_view metric, int64_t from_ns, int64_t to_ns,
                     const std::function<void(uint64_t series_id, const Labels&,
                                              std::span<const WindowPoint>)>& fn) const;

  // Calls `fn` for every series of `metric` whose newest point at or before
  // to_ns is at or after from_ns, with that point and the series' id: a
  // number unique for the store's lifetime (never reused after a series is
  // pruned), so callers may cache what they derive from a series' labels.
  // Cheaper than ForEach when only the latest value matters.
  void ForEachLatest(
      std::string_view metric, int64_t from_ns, int64_t to_ns,
      const std::function<void(uint64_t series_id, const Labels&, const WindowPoint&)>& fn) const;

  // Drops points older than now_ns - retention_ns and series left empty.
  void Prune(int64_t now_ns);

  struct Stats {
    size_t series = 0;
    uint64_t points = 0;  // points held now
    uint64_t dropped_out_of_order = 0;
    uint64_t dropped_series_limit = 0;
    size_t memory_bytes = 0;  // estimate of heap held by series and points
  };
  Stats stats() const;

  const WindowStoreOptions& options() const { return options_; }

 private:
  struct Shard;
  static constexpr size_t kShards = 64;

  const WindowStoreOptions options_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<size_t> series_count_{0};
  std::atomic<uint64_t> next_series_id_{1};
  std::atomic<uint64_t> dropped_out_of_order_{0};
  std::atomic<uint64_t> dropped_series_limit_{0};
};

}  // namespace gpufleet
