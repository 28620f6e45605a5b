// Small statistics helpers for trace analyses: percentiles, dispersion,
// shape tests (bimodality, heavy tail), correlation and log-scale histograms.
//
// All functions are pure and thread-compatible. Inputs are plain value
// vectors (durations in ns, usually); none of them mutates its argument
// except where the name says so (`Summarize` sorts a copy).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpufleet::trace {

// Percentile with linear interpolation between closest ranks (numpy's
// default "linear" method), so numbers can be checked with numpy/pandas.
// REQUIRES: `sorted` ascending and non-empty; 0 <= q <= 1.
double PercentileSorted(std::span<const double> sorted, double q);

struct Distribution {
  uint64_t count = 0;
  double sum = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n-1), 0 when count < 2 (pandas std)
  double min = 0;
  double max = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double cv = 0;  // stddev / mean, 0 when mean == 0
  // Sarle's bimodality coefficient (skew^2 + 1) / (excess kurtosis + 3(n-1)^2/((n-2)(n-3))),
  // with bias-corrected skew and kurtosis; 0 when count < 4 or stddev == 0.
  double bimodality_coefficient = 0;
  // Best two-cluster split of the sorted values (minimum within-cluster
  // variance, as Otsu's method) and its Ashman's D = sqrt(2)|m1 - m2| /
  // sqrt(s1^2 + s2^2); infinite for two separated constant clusters, 0 when
  // count < 4. `minor_fraction` is the share of the smaller cluster.
  double ashman_d = 0;
  double minor_fraction = 0;
  // Two modes: BC above 5/9 (the value of a uniform distribution) AND a
  // clean split (D > kAshmanThreshold, smaller cluster >= kMinModeFraction),
  // with at least kMinShapeSamples samples. BC alone also fires on merely
  // skewed data.
  bool bimodal = false;
  // p99 / p50 at least kHeavyTailRatio with at least kMinShapeSamples samples.
  bool heavy_tail = false;
};

inline constexpr uint64_t kMinShapeSamples = 20;
inline constexpr double kBimodalThreshold = 5.0 / 9.0;
// Ashman's usual D > 2 assumes the clusters are given; on the best split of
// unimodal data D is already 2.65 (normal), 2.67 (exponential) or 3.46
// (uniform), so we ask for 4 (two normals about 4 sigma apart).
inline constexpr double kAshmanThreshold = 4.0;
inline constexpr double kMinModeFraction = 0.05;
inline constexpr double kHeavyTailRatio = 4.0;

// O(n log n). An empty input gives a zero Distribution.
Distribution Summarize(std::vector<double> values);

// Histogram on log10-spaced bins between the positive min and max; values
// <= 0 go to a leading bin [0, lo). Used by the HTML report.
struct HistogramBin {
  double lo = 0;
  double hi = 0;
  uint64_t count = 0;
};
std::vector<HistogramBin> LogHistogram(std::span<const double> values, int bins);

}  // namespace gpufleet::trace
