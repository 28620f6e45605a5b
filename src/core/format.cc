#include "core/format.h"

#include <cstdio>

namespace gpufleet {

std::string FormatFixed(double v, int digits) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof(buf)) return std::string(buf, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), "%.*f", digits, v);
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace gpufleet
