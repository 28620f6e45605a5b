#include "canary/stats.h"

#include <algorithm>
#include <cmath>

#include "core/status.h"

namespace gpufleet::canary {

double Median(std::vector<double> values) {
  GPUFLEET_CHECK(!values.empty());
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double ScaledMad(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double m = Median(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - m));
  return 1.4826 * Median(std::move(dev));
}

}  // namespace gpufleet::canary
