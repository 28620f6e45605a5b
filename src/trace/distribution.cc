#include "trace/distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpufleet::trace {

double PercentileSorted(std::span<const double> sorted, double q) {
  if (sorted.size() == 1) return sorted[0];
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

namespace {

// Otsu split on sorted values with prefix sums: O(n). Sets d.ashman_d and
// d.minor_fraction.
void TwoClusterSplit(const std::vector<double>& v, Distribution& d) {
  size_t n = v.size();
  std::vector<double> sum(n + 1, 0), sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    double x = v[i] - v[0];  // shifted for precision
    sum[i + 1] = sum[i] + x;
    sq[i + 1] = sq[i] + x * x;
  }
  auto sse = [&](size_t lo, size_t hi) {  // within-cluster sum of squares of [lo, hi)
    double k = static_cast<double>(hi - lo);
    double s = sum[hi] - sum[lo];
    return std::max(0.0, sq[hi] - sq[lo] - s * s / k);
  };
  double best = -1;
  size_t split = 0;
  for (size_t i = 1; i < n; ++i) {
    if (v[i] == v[i - 1]) continue;  // never split equal values
    double cost = sse(0, i) + sse(i, n);
    if (best < 0 || cost < best) {
      best = cost;
      split = i;
    }
  }
  if (split == 0) return;
  double n1 = static_cast<double>(split), n2 = static_cast<double>(n - split);
  double m1 = (sum[split]) / n1, m2 = (sum[n] - sum[split]) / n2;
  double v1 = sse(0, split) / n1, v2 = sse(split, n) / n2;
  d.minor_fraction = std::min(n1, n2) / static_cast<double>(n);
  d.ashman_d = v1 + v2 > 0 ? std::sqrt(2.0) * std::fabs(m2 - m1) / std::sqrt(v1 + v2)
                           : std::numeric_limits<double>::infinity();
}

}  // namespace

Distribution Summarize(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = values.size();
  double n = static_cast<double>(values.size());
  for (double v : values) d.sum += v;
  d.mean = d.sum / n;
  d.min = values.front();
  d.max = values.back();
  d.p50 = PercentileSorted(values, 0.50);
  d.p90 = PercentileSorted(values, 0.90);
  d.p99 = PercentileSorted(values, 0.99);
  // Central moments around the mean (two-pass keeps precision for ns sums).
  double m2 = 0, m3 = 0, m4 = 0;
  for (double v : values) {
    double dv = v - d.mean;
    double dv2 = dv * dv;
    m2 += dv2;
    m3 += dv2 * dv;
    m4 += dv2 * dv2;
  }
  if (d.count >= 2) d.stddev = std::sqrt(m2 / (n - 1));
  if (d.mean != 0) d.cv = d.stddev / d.mean;
  if (d.count >= 4 && m2 > 0) {
    m2 /= n;
    m3 /= n;
    m4 /= n;
    double g1 = m3 / std::pow(m2, 1.5);
    double g2 = m4 / (m2 * m2) - 3.0;
    // Bias-corrected sample skewness and excess kurtosis (as pandas skew/kurt).
    double skew = g1 * std::sqrt(n * (n - 1)) / (n - 2);
    double kurt = ((n + 1) * g2 + 6) * (n - 1) / ((n - 2) * (n - 3));
    double denom = kurt + 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3));
    if (denom > 0) d.bimodality_coefficient = (skew * skew + 1) / denom;
  }
  if (d.count >= 4) TwoClusterSplit(values, d);
  bool enough = d.count >= kMinShapeSamples;
  d.bimodal = enough && d.bimodality_coefficient > kBimodalThreshold &&
              d.ashman_d > kAshmanThreshold && d.minor_fraction >= kMinModeFraction;
  d.heavy_tail = enough && d.p50 > 0 && d.p99 / d.p50 >= kHeavyTailRatio;
  return d;
}

std::vector<HistogramBin> LogHistogram(std::span<const double> values, int bins) {
  std::vector<HistogramBin> out;
  if (values.empty() || bins <= 0) return out;
  double lo = 0, hi = 0;
  uint64_t non_positive = 0;
  bool any_positive = false;
  for (double v : values) {
    if (!(v > 0)) {
      ++non_positive;
      continue;
    }
    if (!any_positive) {
      lo = hi = v;
      any_positive = true;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (non_positive > 0) out.push_back({0, any_positive ? lo : 1, non_positive});
  if (!any_positive) return out;
  double llo = std::log10(lo);
  double lhi = std::log10(hi);
  if (lhi - llo < 1e-9) {
    out.push_back({lo, hi, values.size() - non_positive});
    return out;
  }
  double step = (lhi - llo) / bins;
  size_t first = out.size();
  for (int i = 0; i < bins; ++i) {
    out.push_back({std::pow(10.0, llo + step * i), std::pow(10.0, llo + step * (i + 1)), 0});
  }
  out.back().hi = hi;
  for (double v : values) {
    if (!(v > 0)) continue;
    auto b = static_cast<int>((std::log10(v) - llo) / step);
    b = std::clamp(b, 0, bins - 1);
    ++out[first + static_cast<size_t>(b)].count;
  }
  return out;
}

}  // namespace gpufleet::trace
