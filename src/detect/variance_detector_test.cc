#include "detect/variance_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "detect/detect_config.h"
#include "detect/detect_test_util.h"

namespace gpufleet::detect {
namespace {

using testing::kS;
using testing::kT0;

std::vector<Finding> Detect(const std::function<double(int, std::mt19937_64&)>& step) {
  WindowStore store(WindowStoreOptions{});
  Labels l = testing::DeviceLabels("gpu_workload_step_duration_seconds", "0");
  l.Set("workload_name", "llm");
  l.Set("workload_team", "research");
  std::mt19937_64 rng(11);
  for (int i = 0; i < 400; ++i) store.Append(l, kT0 + i * kS, step(i, rng));
  VarianceDetector d(DefaultDetectConfig().variance);
  EvalContext ctx{store, kT0 + 400 * kS, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

TEST(VarianceDetectorTest, CleanStepsGiveNoFinding) {
  EXPECT_TRUE(Detect([](int, std::mt19937_64& r) {
                return 1.0 + std::normal_distribution<double>(0, 0.02)(r);
              }).empty());
}

TEST(VarianceDetectorTest, FlagsBimodalSteps) {
  auto found = Detect([](int i, std::mt19937_64& r) {
    return (i % 2 ? 1.0 : 1.6) + std::normal_distribution<double>(0, 0.02)(r);
  });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "variance");
  EXPECT_EQ(found[0].team, "research");
  EXPECT_NE(found[0].summary.find("bimodal"), std::string::npos) << found[0].summary;
}

TEST(VarianceDetectorTest, FlagsHeavyTail) {
  auto found = Detect([](int i, std::mt19937_64& r) {
    return (i % 25 == 0 ? 4.0 : 1.0) + std::normal_distribution<double>(0, 0.02)(r);
  });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("heavy_tailed"), std::string::npos) << found[0].summary;
}

TEST(VarianceDetectorTest, StatisticsOfKnownSamples) {
  std::vector<double> xs;
  for (int i = 0; i < 400; ++i) xs.push_back(i % 2 ? 2 : 1);
  RepetitionStats s = ComputeRepetitionStats(xs);
  EXPECT_DOUBLE_EQ(s.mean, 1.5);
  EXPECT_NEAR(s.cv, 0.5006 / 1.5, 1e-3);  // sample sd of 200 ones and 200 twos
  EXPECT_GT(s.bimodality, 0.555);         // two equal modes
  EXPECT_EQ(ClassifyRepetition(VarianceConfig{}, s), "bimodal");
  // The same values as one level shift: the step-to-step deviation is small.
  std::sort(xs.begin(), xs.end());
  RepetitionStats shift = ComputeRepetitionStats(xs);
  EXPECT_NEAR(shift.cv, s.cv, 1e-12);
  EXPECT_LT(shift.cv_mssd, 0.05);
  EXPECT_EQ(ClassifyRepetition(VarianceConfig{}, shift), "clean");
}

// The step-to-step deviation written plainly: every squared difference,
// sorted, the largest 2% (at least two) left out.
double PlainMssdCv(const std::vector<double>& xs) {
  std::vector<double> d2;
  for (size_t i = 1; i < xs.size(); ++i) d2.push_back((xs[i] - xs[i - 1]) * (xs[i] - xs[i - 1]));
  std::sort(d2.begin(), d2.end());
  size_t keep = d2.size();
  if (keep > 10) keep -= std::max<size_t>(2, keep / 50);
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) sum += d2[i];
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  return std::sqrt(sum / (2 * static_cast<double>(keep))) / mean;
}

TEST(VarianceDetectorTest, StepToStepDeviationLeavesOutTheLargestDifferences) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 4 + rng() % 900;
    std::vector<double> xs(n);
    // Coarse values (many equal differences, ties at the cut) with
    // occasional level shifts and spikes.
    double level = 1;
    for (double& x : xs) {
      if (rng() % 50 == 0) level = 0.5 + static_cast<double>(rng() % 4);
      x = level + 0.01 * static_cast<double>(rng() % 5) + (rng() % 97 == 0 ? 3.0 : 0.0);
    }
    const double want = PlainMssdCv(xs);
    EXPECT_NEAR(ComputeRepetitionStats(xs).cv_mssd, want, 1e-12 * std::max(1.0, want))
        << "trial " << trial << ", " << n << " steps";
  }
}

// A step loop on a timeline: each step waits `wait(rng)` seconds (GPU idle),
// then computes 0.8 s (GPU busy at 0.95, or at 0.95 for `extra(rng)` more
// seconds when the GPU itself is slow). Utilization is reported every 15 s
// as the busy share of the interval, like every vendor's counter.
std::vector<Finding> DetectTimeline(const std::function<double(std::mt19937_64&)>& wait,
                                    const std::function<double(std::mt19937_64&)>& extra,
                                    bool with_util = true) {
  WindowStore store(WindowStoreOptions{});
  Labels step = testing::DeviceLabels("gpu_workload_step_duration_seconds", "0");
  step.Set("workload_name", "trainer");
  Labels util = testing::DeviceLabels("gpu_utilization_ratio", "0");
  std::mt19937_64 rng(5);
  std::normal_distribution<double> jitter(0, 0.01);
  const int64_t end = kT0 + 600 * kS;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [from, to)
  for (int64_t t = kT0; t < end;) {
    const double w = wait(rng), c = 0.8 * (1 + jitter(rng)) + extra(rng);
    const int64_t s = t + static_cast<int64_t>(w * 1e9), e = s + static_cast<int64_t>(c * 1e9);
    busy.emplace_back(s, e);
    store.Append(step, e, w + c);  // reported when the step ends
    t = e;
  }
  if (with_util) {
    for (int64_t at = kT0 + 15 * kS; at <= end; at += 15 * kS) {
      int64_t on = 0;
      for (auto [s, e] : busy)
        on += std::max<int64_t>(0, std::min(e, at) - std::max(s, at - 15 * kS));
      store.Append(util, at, 0.95 * static_cast<double>(on) / (15.0 * kS) + jitter(rng));
    }
  }
  VarianceDetector d(DefaultDetectConfig().variance);
  EvalContext ctx{store, end, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

double Zero(std::mt19937_64&) { return 0; }

TEST(VarianceDetectorTest, StepsWaitingOnInputAreHostBound) {
  // A data loader that keeps the step waiting 0.1 s on average, irregularly.
  auto found = DetectTimeline(
      [](std::mt19937_64& r) { return std::exponential_distribution<double>(10)(r); }, Zero);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "host_bound") << found[0].summary;
  EXPECT_EQ(found[0].severity, "info");
  ASSERT_EQ(found[0].evidence.size(), 2u);
  EXPECT_GE(found[0].evidence[1].observed, 0.6);
}

TEST(VarianceDetectorTest, UnevenStepsOnABusyGpuStayVariance) {
  // The same spread of extra time, spent busy on the GPU (a slow kernel, a
  // neighbour's burst): utilization does not follow it.
  auto found = DetectTimeline(
      Zero, [](std::mt19937_64& r) { return std::exponential_distribution<double>(10)(r); });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "variance") << found[0].summary;
  EXPECT_EQ(found[0].severity, "warning");
}

TEST(VarianceDetectorTest, WithoutUtilizationUnevenStepsStayVariance) {
  auto found = DetectTimeline(
      [](std::mt19937_64& r) { return std::exponential_distribution<double>(10)(r); }, Zero,
      /*with_util=*/false);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "variance");
}

TEST(VarianceDetectorTest, HostWaitOfKnownIntervals) {
  // Two intervals of two 1 s steps, then two of one 1 s and one 3 s step:
  // compute share 1 then 0.5; busy 0.9 then 0.45: r = 1.
  std::vector<WindowPoint> steps, busy;
  int64_t t = kT0;
  busy.push_back({t, 0.9});
  for (int j = 0; j < 4; ++j) {
    const bool slow = j >= 2;
    steps.push_back({t + kS, 1});
    steps.push_back({t + 2 * kS, slow ? 3.0 : 1.0});
    t += 10 * kS;
    busy.push_back({t, slow ? 0.45 : 0.9});
  }
  HostWait w = MeasureHostWait(steps, busy);
  EXPECT_EQ(w.intervals, 4u);
  EXPECT_NEAR(w.r, 1.0, 1e-9);
  // Busy share that does not move with the compute share.
  for (size_t j = 1; j < busy.size(); ++j) busy[j].value = j % 2 ? 0.9 : 0.8;
  EXPECT_LT(MeasureHostWait(steps, busy).r, 0.6);
}

}  // namespace
}  // namespace gpufleet::detect
