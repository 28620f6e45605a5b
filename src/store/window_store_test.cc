#include "store/window_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

namespace gpufleet {
namespace {

Labels Series(std::string_view name, std::string_view gpu) {
  Labels l{{"__name__", std::string(name)}, {"node", "n1"}};
  l.Set("gpu", gpu);
  return l;
}

std::vector<WindowPoint> Collect(const WindowStore& store, std::string_view metric, int64_t from,
                                 int64_t to, size_t* series = nullptr) {
  std::vector<WindowPoint> out;
  size_t n = 0;
  store.ForEach(metric, from, to, [&](const StoredLabels&, std::span<const WindowPoint> pts) {
    ++n;
    out.insert(out.end(), pts.begin(), pts.end());
  });
  if (series != nullptr) *series = n;
  return out;
}

TEST(WindowStoreTest, ReturnsPointsInRangeOldestFirst) {
  WindowStore store(WindowStoreOptions{});
  for (int t = 1; t <= 10; ++t) ASSERT_TRUE(store.Append(Series("m", "0"), t * 10, t));
  ASSERT_TRUE(store.Append(Series("other", "0"), 50, 99));
  auto pts = Collect(store, "m", 30, 60);
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts.front().timestamp_ns, 30);
  EXPECT_EQ(pts.back().timestamp_ns, 60);
  EXPECT_DOUBLE_EQ(pts[1].value, 4);
  EXPECT_TRUE(Collect(store, "missing", 0, 1000).empty());
  // The widest range (to = INT64_MAX must not overflow).
  EXPECT_EQ(Collect(store, "m", INT64_MIN, INT64_MAX).size(), 10u);
}

TEST(WindowStoreTest, KeepsSeriesApartAndPassesLabels) {
  WindowStore store(WindowStoreOptions{});
  store.Append(Series("m", "0"), 10, 1);
  store.Append(Series("m", "1"), 10, 2);
  std::vector<std::string> gpus;
  store.ForEach("m", 0, 100, [&](const StoredLabels& l, std::span<const WindowPoint> pts) {
    EXPECT_EQ(l.Get("__name__"), "m");
    EXPECT_EQ(pts.size(), 1u);
    gpus.emplace_back(l.Get("gpu"));
  });
  std::sort(gpus.begin(), gpus.end());
  EXPECT_EQ(gpus, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(store.stats().series, 2u);
}

// Stored labels read back as they were appended (names, values, order,
// escaping) and each distinct string is held once: the series of one GPU
// share its node and uuid, and a string goes once no series points at it.
TEST(WindowStoreTest, StoredLabelsShareStringsAndReadBackExactly) {
  WindowStore store(WindowStoreOptions{});
  auto gpu_series = [](std::string_view metric, std::string_view uuid) {
    return Labels{{"__name__", std::string(metric)},
                  {"gpu_uuid", std::string(uuid)},
                  {"node", "node-with-a-long-name-17"},
                  {"reason", "a \"quoted\"\nvalue"}};
  };
  const Labels a = gpu_series("gpu_memory_bandwidth_utilization_ratio", "GPU-1");
  const Labels b = gpu_series("gpu_sm_active_ratio", "GPU-1");
  const Labels c = gpu_series("gpu_sm_active_ratio", "GPU-2");
  ASSERT_TRUE(store.Append(a, 10, 1));
  ASSERT_TRUE(store.Append(b, 10, 2));
  ASSERT_TRUE(store.Append(c, 20, 3));
  // Names __name__, gpu_uuid, node, reason; values: two metrics, two uuids,
  // one node, one reason.
  EXPECT_EQ(store.stats().label_strings, 4u + 6u);

  std::map<std::string, Labels> seen;
  for (std::string_view m : {"gpu_memory_bandwidth_utilization_ratio", "gpu_sm_active_ratio"}) {
    store.ForEach(m, 0, 100, [&](const StoredLabels& l, std::span<const WindowPoint>) {
      EXPECT_EQ(l.size(), 4u);
      EXPECT_EQ(l.Get("node"), "node-with-a-long-name-17");
      EXPECT_EQ(l.Get("missing"), "");
      EXPECT_FALSE(l.Has("missing"));
      EXPECT_EQ(l.ToString(), l.ToLabels().ToString());
      EXPECT_TRUE(l == l.ToLabels());
      seen[l.ToString()] = l.ToLabels();
    });
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[a.ToString()], a);
  EXPECT_EQ(seen[b.ToString()], b);
  EXPECT_EQ(seen[c.ToString()], c);

  // GPU-1's series leave at the prune; GPU-2's stays and keeps what it uses.
  store.Prune(15 + store.options().retention_ns);
  EXPECT_EQ(store.stats().series, 1u);
  EXPECT_EQ(store.stats().label_strings, 4u + 4u);
  store.ForEach("gpu_sm_active_ratio", 0, 100,
                [&](const StoredLabels& l, std::span<const WindowPoint>) { EXPECT_TRUE(l == c); });
  // A series that comes back after its strings were dropped reads correctly.
  ASSERT_TRUE(store.Append(a, 30, 4));
  EXPECT_EQ(store.stats().label_strings, 4u + 6u);  // the other metric is GPU-2's
  store.Prune(100 + store.options().retention_ns);
  EXPECT_EQ(store.stats().series, 0u);
  EXPECT_EQ(store.stats().label_strings, 0u);
}

// ForEachLatest gives each series' newest point at or before `to` if it is
// at or after `from`, and ids that are never reused after a series is pruned.
TEST(WindowStoreTest, ForEachLatestGivesNewestPointInRangeAndStableIds) {
  WindowStore store(WindowStoreOptions{.retention_ns = 100});
  for (int t = 1; t <= 5; ++t) store.Append(Series("m", "0"), t * 10, t);
  store.Append(Series("m", "1"), 20, 7);
  std::map<std::string, std::pair<uint64_t, WindowPoint>> seen;
  auto latest = [&](int64_t from, int64_t to) {
    seen.clear();
    store.ForEachLatest("m", from, to,
                        [&](uint64_t id, const StoredLabels& l, const WindowPoint& p) {
                          seen[std::string(l.Get("gpu"))] = {id, p};
                        });
  };
  latest(0, 1000);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen["0"].second.timestamp_ns, 50);
  EXPECT_EQ(seen["1"].second.timestamp_ns, 20);
  EXPECT_NE(seen["0"].first, seen["1"].first);
  const uint64_t id0 = seen["0"].first, id1 = seen["1"].first;
  latest(0, 35);  // newest at or before 35 is 30
  EXPECT_EQ(seen["0"].second.timestamp_ns, 30);
  EXPECT_DOUBLE_EQ(seen["0"].second.value, 3);
  EXPECT_EQ(seen["0"].first, id0);
  latest(25, 1000);  // gpu 1's newest (20) is before `from`
  EXPECT_EQ(seen.count("1"), 0u);
  latest(0, 5);  // before every point
  EXPECT_TRUE(seen.empty());
  // Pruned away and appended again: a new series, so a new id.
  store.Prune(200);
  store.Append(Series("m", "1"), 210, 1);
  latest(0, 1000);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen["1"].first, id1);
  EXPECT_NE(seen["1"].first, id0);
}

// A caller that keeps a series' id appends by it; once the series is
// pruned the id no longer finds it, and the labels make a new series with
// a new id. A metric's series are found again after a prune emptied the
// shards that held them.
TEST(WindowStoreTest, AppendsByKeptSeriesIdUntilThePruneDropsIt) {
  WindowStoreOptions opts;
  opts.retention_ns = 100;
  WindowStore store(opts);
  const Labels a = Series("m", "0"), b = Series("m", "1");
  const uint64_t ha = WindowStore::LabelHash(a), hb = WindowStore::LabelHash(b);
  uint64_t id_a = 0, id_b = 0;
  ASSERT_TRUE(store.Append(a, ha, 10, 1.0, &id_a));
  ASSERT_TRUE(store.Append(b, hb, 10, 2.0, &id_b));
  EXPECT_NE(id_a, 0u);
  EXPECT_NE(id_a, id_b);
  const uint64_t first_a = id_a;
  ASSERT_TRUE(store.Append(a, ha, 20, 3.0, &id_a));
  EXPECT_EQ(id_a, first_a);
  // Another series' id with these labels: found by the labels, not the id.
  uint64_t wrong = id_b;
  ASSERT_TRUE(store.Append(a, ha, 30, 4.0, &wrong));
  EXPECT_EQ(wrong, first_a);
  EXPECT_EQ(store.stats().series, 2u);
  EXPECT_EQ(Collect(store, "m", 0, 100).size(), 4u);  // a: 10, 20, 30; b: 10

  store.Prune(500);  // drops both series
  EXPECT_EQ(store.stats().series, 0u);
  EXPECT_TRUE(Collect(store, "m", 0, 1000).empty());
  ASSERT_TRUE(store.Append(a, ha, 510, 5.0, &id_a));
  EXPECT_NE(id_a, first_a);
  size_t n = 0;
  std::vector<WindowPoint> pts = Collect(store, "m", 0, 1000, &n);
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].value, 5.0);
}

TEST(WindowStoreTest, DropsOutOfOrderAndReplacesSameTimestamp) {
  WindowStore store(WindowStoreOptions{});
  EXPECT_TRUE(store.Append(Series("m", "0"), 100, 1));
  EXPECT_FALSE(store.Append(Series("m", "0"), 90, 2));
  EXPECT_TRUE(store.Append(Series("m", "0"), 100, 3));
  auto pts = Collect(store, "m", 0, 1000);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_DOUBLE_EQ(pts[0].value, 3);
  EXPECT_EQ(store.stats().dropped_out_of_order, 1u);
  EXPECT_EQ(store.stats().points, 1u);
}

// The receiver's shortcut: label views find a held series (same hash as
// its Labels) and append to it; anything else is left to Append.
TEST(WindowStoreTest, AppendToHeldTakesOnlyTheSeriesItHolds) {
  WindowStore store(WindowStoreOptions{});
  const Labels held = Series("m", "0");
  std::vector<LabelView> views;
  for (const auto& [n, v] : held.pairs()) views.emplace_back(n, v);
  EXPECT_EQ(WindowStore::LabelHash(views), WindowStore::LabelHash(held));
  const std::vector<WindowPoint> points = {{100, 1}, {90, 2}, {200, 3}};
  WindowStore::AppendCounts counts;
  EXPECT_FALSE(store.AppendToHeld(views, WindowStore::LabelHash(views), points, &counts));
  EXPECT_EQ(store.stats().series, 0u);

  ASSERT_TRUE(store.Append(held, 50, 0));
  EXPECT_TRUE(store.AppendToHeld(views, WindowStore::LabelHash(views), points, &counts));
  EXPECT_EQ(counts.accepted, 2u);
  EXPECT_EQ(counts.rejected, 1u);
  auto pts = Collect(store, "m", 0, 1000);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[2].timestamp_ns, 200);
  EXPECT_EQ(store.stats().dropped_out_of_order, 1u);

  // One value differs, or a label is missing: not held, even with the
  // held series' hash.
  std::vector<LabelView> other = views;
  other.back().second = "9";
  EXPECT_FALSE(store.AppendToHeld(other, WindowStore::LabelHash(views), points, &counts));
  std::vector<LabelView> fewer(views.begin(), views.end() - 1);
  EXPECT_FALSE(store.AppendToHeld(fewer, WindowStore::LabelHash(views), points, &counts));
  EXPECT_EQ(counts.accepted, 2u);
  EXPECT_EQ(store.stats().points, 3u);
}

TEST(WindowStoreTest, RefusesNewSeriesBeyondLimit) {
  WindowStoreOptions options;
  options.max_series = 2;
  WindowStore store(options);
  EXPECT_TRUE(store.Append(Series("m", "0"), 1, 1));
  EXPECT_TRUE(store.Append(Series("m", "1"), 1, 1));
  EXPECT_FALSE(store.Append(Series("m", "2"), 1, 1));
  EXPECT_TRUE(store.Append(Series("m", "1"), 2, 1));  // existing series still accepted
  EXPECT_EQ(store.stats().dropped_series_limit, 1u);
  EXPECT_EQ(store.stats().series, 2u);
}

TEST(WindowStoreTest, PruneDropsOldPointsAndEmptySeries) {
  WindowStoreOptions options;
  options.retention_ns = 100;
  options.max_series = 2;
  WindowStore store(options);
  for (int t = 0; t < 50; ++t) store.Append(Series("m", "0"), t * 10, t);
  store.Append(Series("m", "1"), 5, 1);
  store.Prune(490);  // cutoff 390
  auto pts = Collect(store, "m", 0, 1000);
  ASSERT_EQ(pts.size(), 11u);
  EXPECT_EQ(pts.front().timestamp_ns, 390);
  EXPECT_EQ(store.stats().series, 1u);
  EXPECT_EQ(store.stats().points, 11u);
  // The pruned series freed its slot under the series limit.
  EXPECT_TRUE(store.Append(Series("m", "2"), 500, 1));
  // Appending after a prune keeps order.
  EXPECT_TRUE(store.Append(Series("m", "0"), 500, 7));
  EXPECT_EQ(Collect(store, "m", 495, 505).size(), 2u);
  EXPECT_GT(store.stats().memory_bytes, 0u);
}

// At a steady window (a point in, a point pruned, as a server sees it) the
// buffer stays near the window's length: an append that finds the buffer
// full erases the pruned points instead of growing it (they used to wait
// until they were half the buffer). The points read back are exactly the
// window's.
TEST(WindowStoreTest, SteadyWindowKeepsItsBufferNearTheWindow) {
  WindowStoreOptions options;
  options.retention_ns = 1200;  // 120 points at 10 apart
  WindowStore store(options);
  const Labels l = Series("m", "0");
  store.Append(l, 0, 0);
  const size_t fixed = store.stats().memory_bytes - sizeof(WindowPoint);
  size_t peak = 0;
  for (int t = 1; t < 5000; ++t) {
    store.Append(l, t * 10, t);
    store.Prune(t * 10);
    if (t > 200) peak = std::max(peak, store.stats().memory_bytes - fixed);
  }
  auto pts = Collect(store, "m", 0, 1'000'000);
  ASSERT_EQ(pts.size(), 121u);
  EXPECT_EQ(pts.front().timestamp_ns, 49990 - 1200);
  EXPECT_EQ(pts.back().value, 4999);
  // 121 live points keep the 128 slots doubling grew to; erasing at half
  // the buffer needed 256.
  EXPECT_LE(peak, 128 * sizeof(WindowPoint));
  EXPECT_GE(peak, 121 * sizeof(WindowPoint));
}

// Series come and go in waves (jobs end, new ones start): every wave's
// series are found again while they live, each keeps its own points, and
// the ones pruned away are not found (their index slots are reused).
TEST(WindowStoreTest, SeriesComeAndGoInWaves) {
  WindowStoreOptions options;
  options.retention_ns = 50;
  WindowStore store(options);
  constexpr int kPerWave = 3000;
  for (int wave = 0; wave < 12; ++wave) {
    const int64_t t0 = wave * 100;
    // Half of each wave are the previous wave's series, half are new.
    const int first = wave * kPerWave / 2;
    for (int k = 0; k < 3; ++k) {
      for (int i = first; i < first + kPerWave; ++i) {
        ASSERT_TRUE(store.Append(Series("m", std::to_string(i)), t0 + k, i + k));
      }
    }
    store.Prune(t0 + 40);  // the waves before this one are older than 50
    EXPECT_EQ(store.stats().series, static_cast<size_t>(kPerWave)) << wave;
    std::map<std::string, std::vector<WindowPoint>> seen;
    store.ForEach("m", t0, t0 + 10, [&](const StoredLabels& l, std::span<const WindowPoint> pts) {
      seen[std::string(l.Get("gpu"))].assign(pts.begin(), pts.end());
    });
    ASSERT_EQ(seen.size(), static_cast<size_t>(kPerWave)) << wave;
    for (int i = first; i < first + kPerWave; i += 97) {
      const auto& pts = seen.at(std::to_string(i));
      ASSERT_EQ(pts.size(), 3u) << i;
      EXPECT_EQ(pts[2].value, i + 2);
    }
  }
}

TEST(WindowStoreTest, ConcurrentAppendersAndReader) {
  WindowStore store(WindowStoreOptions{});
  constexpr int kThreads = 4, kSeries = 50, kPoints = 200;
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&store, th] {
      for (int p = 0; p < kPoints; ++p) {
        for (int s = 0; s < kSeries; ++s) {
          store.Append(Series("m", std::to_string(th * kSeries + s)), p, p);
        }
      }
    });
  }
  std::thread reader([&store] {
    for (int i = 0; i < 50; ++i) {
      store.ForEach("m", 0, kPoints, [](const StoredLabels&, std::span<const WindowPoint> pts) {
        for (size_t k = 1; k < pts.size(); ++k) {
          ASSERT_LT(pts[k - 1].timestamp_ns, pts[k].timestamp_ns);
        }
      });
    }
  });
  for (auto& t : threads) t.join();
  reader.join();
  auto stats = store.stats();
  EXPECT_EQ(stats.series, static_cast<size_t>(kThreads * kSeries));
  EXPECT_EQ(stats.points, static_cast<uint64_t>(kThreads * kSeries * kPoints));
}

}  // namespace
}  // namespace gpufleet
