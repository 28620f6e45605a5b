#include "trace/distribution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gpufleet::trace {
namespace {

TEST(DistributionTest, PercentilesInterpolateLikeNumpy) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(PercentileSorted(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(PercentileSorted(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(PercentileSorted(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(PercentileSorted(v, 1.0), 5);
}

TEST(DistributionTest, SummarizeMomentsAndCv) {
  Distribution d = Summarize({9, 2, 4, 4, 4, 5, 5, 7});
  EXPECT_EQ(d.count, 8u);
  EXPECT_DOUBLE_EQ(d.mean, 5);
  EXPECT_NEAR(d.stddev, 2.13809, 1e-5);  // sqrt(32/7)
  EXPECT_NEAR(d.cv, 2.13809 / 5, 1e-5);
  EXPECT_DOUBLE_EQ(d.min, 2);
  EXPECT_DOUBLE_EQ(d.max, 9);
  EXPECT_DOUBLE_EQ(d.p50, 4.5);
  EXPECT_FALSE(d.bimodal);  // too few samples to judge shape
}

TEST(DistributionTest, EmptyAndConstantInputs) {
  Distribution empty = Summarize({});
  EXPECT_EQ(empty.count, 0u);
  Distribution c = Summarize(std::vector<double>(50, 100.0));
  EXPECT_DOUBLE_EQ(c.stddev, 0);
  EXPECT_DOUBLE_EQ(c.cv, 0);
  EXPECT_DOUBLE_EQ(c.bimodality_coefficient, 0);
  EXPECT_FALSE(c.bimodal);
  EXPECT_FALSE(c.heavy_tail);
}

TEST(DistributionTest, DetectsTwoModes) {
  std::vector<double> v(15, 100.0);
  v.insert(v.end(), 15, 1000.0);
  Distribution d = Summarize(v);
  // Two equal spikes: skew 0, bias-corrected excess kurtosis -2.148 -> BC 0.841.
  EXPECT_NEAR(d.bimodality_coefficient, 0.841, 0.002);
  EXPECT_TRUE(std::isinf(d.ashman_d));
  EXPECT_DOUBLE_EQ(d.minor_fraction, 0.5);
  EXPECT_TRUE(d.bimodal);
  EXPECT_FALSE(d.heavy_tail);
}

TEST(DistributionTest, SkewedButUnimodalIsNotBimodal) {
  // Exponential-like: BC exceeds 5/9 from skew alone, but no clean split.
  std::vector<double> v;
  for (int i = 0; i < 200; ++i) v.push_back(-100.0 * std::log(1.0 - (i + 0.5) / 200.0));
  Distribution d = Summarize(v);
  EXPECT_GT(d.bimodality_coefficient, kBimodalThreshold);
  EXPECT_LT(d.ashman_d, kAshmanThreshold);
  EXPECT_FALSE(d.bimodal);
}

TEST(DistributionTest, NoisyTwoModesAreBimodal) {
  std::vector<double> v;
  for (int i = 0; i < 60; ++i) v.push_back(100 + (i % 7) * 3);  // 100..118
  for (int i = 0; i < 40; ++i) v.push_back(400 + (i % 5) * 4);  // 400..416
  Distribution d = Summarize(v);
  EXPECT_GT(d.ashman_d, 10);
  EXPECT_DOUBLE_EQ(d.minor_fraction, 0.4);
  EXPECT_TRUE(d.bimodal);
}

TEST(DistributionTest, UnimodalSpreadIsNotBimodal) {
  std::vector<double> v;
  // Triangular-ish: many around 100, fewer towards the edges.
  for (int i = 0; i < 40; ++i) v.push_back(100 + (i % 5) - 2 + (i % 2 ? 0.5 : 0));
  for (int i = 0; i < 60; ++i) v.push_back(100);
  Distribution d = Summarize(v);
  EXPECT_LT(d.bimodality_coefficient, kBimodalThreshold);
  EXPECT_FALSE(d.bimodal);
}

TEST(DistributionTest, DetectsHeavyTail) {
  std::vector<double> v(98, 100.0);
  v.push_back(10000);
  v.push_back(10000);
  Distribution d = Summarize(v);
  EXPECT_DOUBLE_EQ(d.p50, 100);
  EXPECT_DOUBLE_EQ(d.p99, 10000);
  EXPECT_TRUE(d.heavy_tail);
}

TEST(DistributionTest, LogHistogramCountsEverything) {
  std::vector<double> v = {0, 1, 10, 100, 1000, 1000, 5};
  auto bins = LogHistogram(v, 3);
  uint64_t total = 0;
  for (const auto& b : bins) total += b.count;
  EXPECT_EQ(total, v.size());
  ASSERT_EQ(bins.size(), 4u);  // one bin for the zero, three log bins
  EXPECT_EQ(bins[0].count, 1u);
  EXPECT_DOUBLE_EQ(bins.back().hi, 1000);
  EXPECT_EQ(bins.back().count, 3u);  // [100, 1000]: 100, 1000, 1000
}

}  // namespace
}  // namespace gpufleet::trace
