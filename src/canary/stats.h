// Robust summary statistics for repeated benchmark runs.
#pragma once

#include <vector>

namespace gpufleet::canary {

// REQUIRES: !values.empty(). Mean of the two middle values for even sizes.
double Median(std::vector<double> values);

// Median absolute deviation scaled by 1.4826, so it estimates the standard
// deviation of normally distributed values while ignoring a minority of
// outliers (one slow run out of five does not move it much). 0 for < 2 values.
double ScaledMad(const std::vector<double>& values);

}  // namespace gpufleet::canary
