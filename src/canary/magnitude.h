// Magnitude sanity checks against the hardware catalog's published peaks. A
// figure above the peak, or three orders of magnitude below it, is an error
// in the input (a unit slip, a wrong column), never a pass or a regression.
// Real case: DCGM's diag-skus.yaml lists the H200 memory_bandwidth minimum as
// 2333 MB/s where 3110000 x 0.75 was meant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {

struct PeakBound {
  double peak = 0;        // in the result's unit
  std::string what;       // "memory bandwidth 4.8e+12 bytes_per_second (h200-sxm)"
  bool check_low = true;  // false where a far lower figure can be legitimate
};

// The published ceiling that bounds `benchmark_id` on `model`, or nullopt
// when the model is not in the catalog or nothing bounds the benchmark.
// stream.* and copy.* -> memory / PCIe bandwidth; gemm.<precision> -> peak
// FLOP/s; nccl.*.busbw@* -> twice the per-direction link bandwidth (upper
// bound only: in-network reduction lifts busbw past the link rate, and a slow
// inter-node fabric may sit far below it).
std::optional<PeakBound> PeakFor(const HardwareCatalog& catalog, std::string_view model,
                                 std::string_view benchmark_id, std::string_view unit);

// How far above the peak a figure may be before it is an error (rounding,
// boost clocks).
inline constexpr double kPeakMargin = 1.10;
// A figure this many times below the peak is taken as a unit error.
inline constexpr double kImplausiblyLowFactor = 1000.0;

// OK, or InvalidArgument naming the value, the bound and the likely cause.
Status CheckMagnitude(const PeakBound& bound, double value);

}  // namespace gpufleet::canary
