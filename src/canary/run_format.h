// The terminal form of a `gpufleet canary run`: one row per figure (median,
// min, max of the repetitions, in human units) and one per skipped benchmark
// with its reason.
#pragma once

#include <string>
#include <string_view>

#include "canary/runner.h"

namespace gpufleet::canary {

// "712 TFLOP/s", "4.02 TB/s", "12.3 us" (SI prefixes, 3 significant digits).
std::string HumanFigure(double value, std::string_view unit);

std::string FormatRunTable(const RunReport& report);

}  // namespace gpufleet::canary
