// Fixed-point text for reports, CSV and messages.
// Thread safety: pure function.
#pragma once

#include <string>

namespace gpufleet {

// `v` with `digits` digits after the point, as printf's "%.*f" writes it
// (whatever its length).
std::string FormatFixed(double v, int digits);

}  // namespace gpufleet
