#include "detect/device_series.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;

// `keep` judges each device's winning series (the one with the most
// points): a device whose winner fails is left out even when a shorter
// series of it would pass, and only kept series are copied, with labels.
TEST(ReadDeviceSeriesTest, KeepJudgesTheWinningSeriesOnly) {
  WindowStoreOptions opts;
  WindowStore store(opts);
  auto series = [](std::string_view gpu, std::string_view method) {
    Labels l;
    l.Set("__name__", "m");
    l.Set("node", "n1");
    l.Set("gpu", gpu);
    l.Set("method", method);
    return l;
  };
  for (int i = 0; i < 5; ++i) {
    store.Append(series("0", "a"), i * kS, 1.0);  // winner of GPU 0: low
    if (i < 3) store.Append(series("0", "b"), i * kS, 9.0);
    store.Append(series("1", "a"), i * kS, 9.0);  // GPU 1: high
  }
  auto high_now = [](std::span<const WindowPoint> pts) { return pts.back().value > 5; };
  SeriesFacts facts;
  DeviceSeriesMap all = ReadDeviceSeries(store, facts, "m", 0, 10 * kS);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all.at("n1/0").points.size(), 5u);
  EXPECT_EQ(all.at("n1/0").points.front().value, 1.0);

  DeviceSeriesMap kept = ReadDeviceSeries(store, facts, "m", 0, 10 * kS, high_now);
  ASSERT_EQ(kept.size(), 1u);
  const DeviceSeries& d = kept.at("n1/1");
  EXPECT_EQ(d.points.size(), 5u);
  EXPECT_EQ(d.seen, 5u);
  ASSERT_NE(d.subject, nullptr);
  EXPECT_EQ(d.subject->Get("gpu"), "1");

  // `among` limits the read to its devices.
  DeviceSeriesMap among = ReadDeviceSeries(store, facts, "m", 0, 10 * kS, nullptr, &kept);
  ASSERT_EQ(among.size(), 1u);
  EXPECT_TRUE(among.contains("n1/1"));
}

// Evidence names a series by its metric and identity labels only, written
// as Labels::ToString would (sorted, escaped).
TEST(SeriesNameTest, MetricAndIdentityLabelsOnly) {
  Labels subject{{"node", "n\"1"},     {"gpu", "0"},          {"model", "H100"},
                 {"vendor", "nvidia"}, {"partition_id", "2"}, {"gpu_uuid", "GPU-1"}};
  EXPECT_EQ(SeriesName("m", subject),
            R"(m{gpu="0",gpu_uuid="GPU-1",node="n\"1",partition_id="2"})");
  EXPECT_EQ(SeriesName("m", Labels{{"cloud", "aws"}}), "m");
}

// The series of one device share one Facts; a series whose subject
// differs (no model label) keeps its own; a Sweep forgets the series not
// read since the last one, not the devices' facts.
TEST(SeriesFactsTest, SeriesOfADeviceShareTheirFacts) {
  WindowStoreOptions opts;
  WindowStore store(opts);
  auto series = [](std::string_view metric, std::string_view gpu, bool model) {
    Labels l{{"__name__", std::string(metric)}, {"node", "n1"}, {"gpu", std::string(gpu)}};
    if (model) l.Set("model", "H100");
    return l;
  };
  store.Append(series("a", "0", true), kS, 1);
  store.Append(series("b", "0", true), kS, 1);
  store.Append(series("a", "1", true), kS, 1);
  store.Append(series("c", "0", false), kS, 1);
  SeriesFacts facts;
  std::map<std::string, const SeriesFacts::Facts*> of;
  for (std::string_view m : {"a", "b", "c"}) {
    store.ForEachSeries(m, 0, 10 * kS,
                        [&](uint64_t id, const StoredLabels& l, std::span<const WindowPoint>) {
                          of[std::string(m) + std::string(l.Get("gpu"))] = &facts.Of(id, l);
                        });
  }
  ASSERT_EQ(of.size(), 4u);
  EXPECT_EQ(of["a0"], of["b0"]);
  EXPECT_NE(of["a0"], of["a1"]);
  EXPECT_NE(of["a0"], of["c0"]);
  EXPECT_EQ(of["a0"]->device, "n1/0");
  EXPECT_EQ(of["c0"]->device, "n1/0");
  EXPECT_EQ(of["a0"]->subject.Get("model"), "H100");
  EXPECT_EQ(of["c0"]->subject.Get("model"), "");
  EXPECT_EQ(facts.size(), 4u);
  EXPECT_EQ(facts.devices(), 3u);
  facts.Sweep();  // all four were read since the start
  EXPECT_EQ(facts.size(), 4u);
  facts.Sweep();  // none since the last sweep
  EXPECT_EQ(facts.size(), 0u);
  EXPECT_EQ(facts.devices(), 3u);
  EXPECT_EQ(of["a1"]->device, "n1/1");  // still valid
}

// A reference that slides 10 s per evaluation over a series that grows and
// gets pruned at the front (and a second series read alongside): the
// running mean always equals a fresh MeanIn.
TEST(SlidingMeansTest, RunningSumsEqualAFreshMean) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(0, 1);
  std::vector<WindowPoint> pts;
  int64_t t = 0;
  auto grow = [&](int64_t until) {
    while (t < until) {
      t += static_cast<int64_t>((0.2 + value(rng)) * kS);  // irregular, like steps
      pts.push_back({t, value(rng)});
    }
  };
  SlidingMeans means;
  int checks = 0;
  for (int64_t now = 40 * 60 * kS; now < 200 * 60 * kS; now += 10 * kS) {
    grow(now);
    if (now % (30 * 60 * kS) == 0) {            // pruned at the front
      const int64_t keep = now - 31 * 60 * kS;  // into the reference
      std::erase_if(pts, [&](const WindowPoint& p) { return p.timestamp_ns < keep; });
    }
    const int64_t to = now - 2 * 60 * kS, from = to - 30 * 60 * kS;
    std::optional<double> got = means.Mean(1, pts, from, to);
    std::optional<double> want = MeanIn(pts, from, to);
    ASSERT_EQ(got.has_value(), want.has_value());
    ASSERT_NEAR(*got, *want, 1e-12 * std::max(1.0, std::fabs(*want))) << "at " << now / kS;
    // Another series over a window that jumps: summed afresh, not mixed in.
    const std::vector<WindowPoint> other = {{from, 5}, {to, 7}, {now + kS, 9}};
    ASSERT_EQ(means.Mean(2, other, from, to), 6.0);
    means.Sweep();
    ++checks;
  }
  EXPECT_EQ(means.size(), 2u);
  // Series 1's sums were updated in place except after a prune or a
  // rebuild; series 2's jumping window never is.
  EXPECT_EQ(checks, 960);
  EXPECT_GT(means.reused(), 900u);
  EXPECT_LT(means.reused(), 960u);
}

TEST(SlidingMeansTest, AWindowWithTheNewestPointIsNotKept) {
  std::vector<WindowPoint> pts = {{1 * kS, 1}, {2 * kS, 2}, {3 * kS, 3}};
  SlidingMeans means;
  EXPECT_EQ(means.Mean(1, pts, 0, 3 * kS), 2.0);
  EXPECT_EQ(means.size(), 0u);
  pts.back().value = 6;  // a re-sent sample replaces the newest value
  EXPECT_EQ(means.Mean(1, pts, 0, 3 * kS), 3.0);
  EXPECT_EQ(means.Mean(1, pts, 0, 2 * kS), 1.5);
  EXPECT_EQ(means.size(), 1u);
  EXPECT_EQ(means.Mean(1, pts, 10 * kS, 20 * kS), std::nullopt);
  means.Sweep();
  means.Sweep();  // unused since the last sweep
  EXPECT_EQ(means.size(), 0u);
}

}  // namespace
}  // namespace gpufleet::detect
