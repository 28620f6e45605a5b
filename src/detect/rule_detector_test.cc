#include "detect/rule_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "detect/detect_test_util.h"
#include "detect/detection_engine.h"

namespace gpufleet::detect {
namespace {

using testing::Fill;
using testing::kS;
using testing::kT0;

const RuleConfig& Rule(std::string_view name) {
  for (const RuleConfig& r : DefaultDetectConfig().rules) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no rule " << name;
  return DefaultDetectConfig().rules[0];
}

std::vector<Finding> RunRule(const RuleConfig& rule, const WindowStore& store, int now_s) {
  RuleDetector d(rule, 10 * kS, 300 * kS);
  EvalContext ctx{store, kT0 + now_s * kS, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

// The whole engine (every default detector) at now_s.
std::vector<Finding> RunEngine(const WindowStore& store, int now_s) {
  auto engine = DetectionEngine::Create(DefaultDetectConfig(), nullptr);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return {};
  return (*engine)->Evaluate(store, kT0 + now_s * kS);
}

// Bandwidth 0.9 and occupancy 0.4 from t = 600 s on GPU 0; GPU 1 clean.
void ContendedFleet(WindowStore& store, int to_s) {
  Fill(store, "gpu_memory_bandwidth_utilization_ratio", "0", 0, to_s,
       [](int t) { return t >= 600 ? 0.9 : 0.5; });
  Fill(store, "gpu_sm_occupancy_ratio", "0", 0, to_s, [](int t) { return t >= 600 ? 0.4 : 0.7; });
  Fill(store, "gpu_memory_bandwidth_utilization_ratio", "1", 0, to_s, [](int) { return 0.88; });
  Fill(store, "gpu_sm_occupancy_ratio", "1", 0, to_s, [](int) { return 0.6; });
}

TEST(RuleDetectorTest, MemoryContentionFiresAfterItsWindow) {
  WindowStore store(WindowStoreOptions{});
  ContendedFleet(store, 1000);
  // Conditions hold from 600 s: not yet at 710 s (1m50s), firing at 720 s.
  EXPECT_TRUE(RunRule(Rule("memory_contention"), store, 710).empty());
  auto found = RunRule(Rule("memory_contention"), store, 720);
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.kind, "memory_contention");
  EXPECT_EQ(f.key, "memory_contention/n1/0");
  EXPECT_EQ(f.devices, std::vector<std::string>{"n1/0"});
  EXPECT_EQ(f.window_start_ns, kT0 + 600 * kS);
  EXPECT_EQ(f.subject.Get("model"), "h100-sxm");
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].series, "gpu_memory_bandwidth_utilization_ratio{gpu=\"0\",node=\"n1\"}");
  EXPECT_EQ(f.evidence[0].condition, "> 0.85 for 2m");
  EXPECT_DOUBLE_EQ(f.evidence[0].observed, 0.9);
  EXPECT_DOUBLE_EQ(f.evidence[1].observed, 0.4);
  EXPECT_EQ(f.team, "platform");
}

TEST(RuleDetectorTest, CleanInputGivesNoFinding) {
  WindowStore store(WindowStoreOptions{});
  ContendedFleet(store, 590);
  for (int now : {100, 300, 580})
    EXPECT_TRUE(RunRule(Rule("memory_contention"), store, now).empty());
  EXPECT_TRUE(RunRule(Rule("sustained_contention"), store, 580).empty());  // no stall series at all
}

TEST(RuleDetectorTest, ABriefBurstDoesNotFire) {
  WindowStore store(WindowStoreOptions{});
  Fill(store, "gpu_memory_bandwidth_utilization_ratio", "0", 0, 1200,
       [](int t) { return t >= 600 && t < 690 ? 0.95 : 0.5; });
  Fill(store, "gpu_sm_occupancy_ratio", "0", 0, 1200, [](int t) { return t >= 600 ? 0.4 : 0.7; });
  for (int now = 600; now < 1200; now += 10) {
    EXPECT_TRUE(RunRule(Rule("memory_contention"), store, now).empty()) << now;
  }
}

TEST(RuleDetectorTest, StaleSeriesDoesNotHold) {
  WindowStore store(WindowStoreOptions{});
  Fill(store, "gpu_memory_stall_ratio", "0", 0, 600, [](int) { return 0.5; });
  EXPECT_EQ(RunRule(Rule("sustained_contention"), store, 590).size(), 1u);
  // The device stopped reporting at 590 s; past the 5m lookback the rule ends.
  EXPECT_TRUE(RunRule(Rule("sustained_contention"), store, 900).empty());
}

TEST(RuleDetectorTest, LatencyBoundComparesWithTheEarlierMean) {
  WindowStore store(WindowStoreOptions{});
  Fill(store, "gpu_memory_bandwidth_utilization_ratio", "0", 0, 3000,
       [](int t) { return t >= 2400 ? 0.3 : 0.5; });
  Fill(store, "gpu_utilization_ratio", "0", 0, 3000, [](int) { return 0.95; });
  Fill(store, "gpu_memory_stall_ratio", "0", 0, 3000, [](int t) { return t >= 2400 ? 0.3 : 0.1; });
  // 0.3 < 0.7 x 0.5 from 2400 s: fires once it held for 2 minutes.
  EXPECT_TRUE(RunRule(Rule("latency_bound_contention"), store, 2510).empty());
  auto found = RunRule(Rule("latency_bound_contention"), store, 2520);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence[0].condition, "down 30% vs its 30m mean for 2m");
  // A 20% drop is not enough.
  WindowStore mild(WindowStoreOptions{});
  Fill(mild, "gpu_memory_bandwidth_utilization_ratio", "0", 0, 3000,
       [](int t) { return t >= 2400 ? 0.4 : 0.5; });
  Fill(mild, "gpu_utilization_ratio", "0", 0, 3000, [](int) { return 0.95; });
  Fill(mild, "gpu_memory_stall_ratio", "0", 0, 3000, [](int t) { return t >= 2400 ? 0.3 : 0.1; });
  EXPECT_TRUE(RunRule(Rule("latency_bound_contention"), mild, 2600).empty());
  // Bandwidth falling back after a heavy phase, with stalls normal, is not
  // latency-bound contention.
  WindowStore recovery(WindowStoreOptions{});
  Fill(recovery, "gpu_memory_bandwidth_utilization_ratio", "0", 0, 3000,
       [](int t) { return t >= 2400 ? 0.45 : (t >= 1200 ? 0.95 : 0.45); });
  Fill(recovery, "gpu_utilization_ratio", "0", 0, 3000, [](int) { return 0.95; });
  Fill(recovery, "gpu_memory_stall_ratio", "0", 0, 3000, [](int) { return 0.08; });
  EXPECT_TRUE(RunRule(Rule("latency_bound_contention"), recovery, 2600).empty());
}

TEST(RuleDetectorTest, EngineRunsRulesAndAttachesWorkloads) {
  WindowStore store(WindowStoreOptions{});
  ContendedFleet(store, 800);
  Labels info = testing::DeviceLabels("gpu_workload_info", "0");
  info.Set("workload_pod", "trainer-0");
  store.Append(info, kT0 + 790 * kS, 1);
  auto found = RunEngine(store, 790);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].workloads, std::vector<std::string>{"trainer-0"});
}

// A source that names the model only in gpu_info (xpumd): the finding's
// subject takes it from there.
TEST(RuleDetectorTest, ModelNamedOnlyInGpuInfoReachesTheFinding) {
  WindowStore store(WindowStoreOptions{});
  for (int t = 0; t < 800; t += 10) {
    for (auto [metric, value] :
         {std::pair<const char*, double>{"gpu_memory_bandwidth_utilization_ratio",
                                         t >= 600 ? 0.9 : 0.5},
          {"gpu_sm_occupancy_ratio", t >= 600 ? 0.4 : 0.7}}) {
      Labels l = testing::DeviceLabels(metric, "0");
      l.Remove("model");
      store.Append(l, kT0 + t * kS, value);
    }
  }
  Labels info = testing::DeviceLabels("gpu_info", "0");
  info.Set("model", "Intel(R) Data Center GPU Max 1550");
  store.Append(info, kT0 + 780 * kS, 1);
  auto found = RunEngine(store, 790);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].subject.Get("model"), "Intel(R) Data Center GPU Max 1550");
}

// A workload is on the device while the device's attribution reports it: one
// that stopped being reported left, though its last sample is within the
// 5-minute lookback (a recording carries no staleness markers), and is no
// neighbour any more.
TEST(RuleDetectorTest, WorkloadNoLongerReportedHasLeft) {
  auto workloads_at = [](int neighbour_until_s) {
    WindowStore store(WindowStoreOptions{});
    ContendedFleet(store, 800);
    Labels trainer = testing::DeviceLabels("gpu_workload_info", "0");
    trainer.Set("workload_pod", "trainer-0");
    Labels neighbour = testing::DeviceLabels("gpu_workload_info", "0");
    neighbour.Set("workload_pod", "batch-7");
    for (int t = 500; t <= 790; t += 10) {
      store.Append(trainer, kT0 + t * kS, 1);
      if (t <= neighbour_until_s) store.Append(neighbour, kT0 + t * kS, 1);
    }
    auto found = RunEngine(store, 790);
    return found.empty() ? std::vector<std::string>{} : found[0].workloads;
  };
  EXPECT_EQ(workloads_at(790), (std::vector<std::string>{"batch-7", "trainer-0"}));
  EXPECT_EQ(workloads_at(780), std::vector<std::string>{"trainer-0"});
  EXPECT_EQ(workloads_at(600), std::vector<std::string>{"trainer-0"});
}

// HoldingSince walks back with moving cursors and a running reference sum;
// on random series with gaps, irregular spacing and values around the
// thresholds it must give what testing every time with ConditionHolds
// gives.
TEST(HoldingSinceTest, EqualsTestingEveryTime) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  const Condition conds[] = {
      {"a", Condition::Op::kGreater, 0.3, 0},
      {"b", Condition::Op::kDrop, 0.2, 300 * kS},
      {"c", Condition::Op::kLess, 0.9, 0},
  };
  const int64_t for_ns = 60 * kS, lookback = 45 * kS;
  int runs = 0, held = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::vector<WindowPoint>> pts(3);
    for (auto& s : pts) {
      int64_t t = 0;
      const double level = 0.5 + 0.5 * u(rng);
      while (t < 900 * kS) {
        t += static_cast<int64_t>((1 + 20 * u(rng) * u(rng) * u(rng) * 4) * kS);
        // Mostly high, with a late fall that a drop can see.
        const double v = (t > 700 * kS ? 0.55 : 1.0) * level + 0.15 * (u(rng) - 0.5);
        s.push_back({t, v});
      }
    }
    ConditionSeries data;
    for (const auto& s : pts) data.series.emplace_back(s);
    const int64_t now = (700 + static_cast<int64_t>(200 * u(rng))) * kS;
    const int64_t horizon = now - 2 * for_ns - 30 * kS;
    // The reference: every time tested with ConditionHolds.
    std::vector<int64_t> times{now};
    for (const auto& s : pts) {
      for (const WindowPoint& p : s) {
        if (p.timestamp_ns >= horizon && p.timestamp_ns <= now) times.push_back(p.timestamp_ns);
      }
    }
    std::sort(times.begin(), times.end(), std::greater<>());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    std::optional<int64_t> want;
    for (int64_t t : times) {
      bool all = true;
      for (size_t i = 0; i < 3 && all; ++i) {
        all = ConditionHolds(conds[i], for_ns, pts[i], t, lookback, nullptr);
      }
      if (!all) break;
      want = t;
    }
    EXPECT_EQ(HoldingSince(conds, for_ns, data, now, horizon, lookback), want) << trial;
    ++runs;
    if (want && *want < now) ++held;
  }
  // The trials must exercise runs that hold over several times.
  EXPECT_GT(held, 20) << runs;
}

}  // namespace
}  // namespace gpufleet::detect
