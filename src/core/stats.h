// Small statistics over plain series, shared by the detectors and the trace
// analyses.
#pragma once

#include <span>

namespace gpufleet {

// Pearson correlation of two series, over the first min(x.size(), y.size())
// points; 0 when fewer than two points or either series is constant.
double PearsonCorrelation(std::span<const double> x, std::span<const double> y);

}  // namespace gpufleet
