// Kubernetes resource quantities for the placement files (declared in
// place/spec_file.h): "500m", "2", "1.5", "4Gi", "512M", "1e3".
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "core/strings.h"
#include "place/spec_file.h"

namespace gpufleet::place {
namespace {

// Splits "4Gi" into 4 and 2^30; nullopt when malformed, negative or not finite.
std::optional<std::pair<double, double>> SplitQuantity(std::string_view q) {
  struct Suffix {
    std::string_view s;
    double mult;
  };
  static constexpr Suffix kSuffixes[] = {{"Ki", 1024.0},
                                         {"Mi", 1048576.0},
                                         {"Gi", 1073741824.0},
                                         {"Ti", 1099511627776.0},
                                         {"Pi", 1125899906842624.0},
                                         {"Ei", 1152921504606846976.0},
                                         {"m", 1e-3},
                                         {"k", 1e3},
                                         {"M", 1e6},
                                         {"G", 1e9},
                                         {"T", 1e12},
                                         {"P", 1e15},
                                         {"E", 1e18}};
  q = TrimWhitespace(q);
  double mult = 1;
  for (const Suffix& s : kSuffixes) {
    if (q.size() > s.s.size() && EndsWith(q, s.s)) {
      q.remove_suffix(s.s.size());
      mult = s.mult;
      break;
    }
  }
  // ParseDouble accepts "nan"/"inf"; a quantity is a plain decimal number.
  if (q.empty() ||
      !(std::isdigit(static_cast<unsigned char>(q[0])) || q[0] == '.' || q[0] == '+')) {
    return std::nullopt;
  }
  std::optional<double> v = ParseDouble(q);
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return std::make_pair(*v, mult);
}

}  // namespace

StatusOr<int64_t> ParseCpuMilli(std::string_view quantity) {
  std::optional<std::pair<double, double>> q = SplitQuantity(quantity);
  if (!q) {
    return InvalidArgumentError("'" + std::string(quantity) +
                                "' is not a CPU quantity (e.g. \"500m\", \"2\")");
  }
  double milli = std::ceil(q->first * q->second * 1000 - 1e-6);
  if (milli > 1e12) return InvalidArgumentError("'" + std::string(quantity) + "' is too large");
  return static_cast<int64_t>(std::max(0.0, milli));
}

StatusOr<int64_t> ParseMemoryMib(std::string_view quantity, bool bare_is_mib) {
  std::optional<std::pair<double, double>> q = SplitQuantity(quantity);
  if (!q || q->second < 1) {
    return InvalidArgumentError("'" + std::string(quantity) +
                                "' is not a memory quantity (e.g. \"4Gi\", \"512Mi\")");
  }
  double bytes = q->first * q->second;
  if (q->second == 1 && bare_is_mib) bytes *= 1048576.0;
  double mib = std::ceil(bytes / 1048576.0 - 1e-9);
  if (mib > 1e12) return InvalidArgumentError("'" + std::string(quantity) + "' is too large");
  return static_cast<int64_t>(std::max(0.0, mib));
}

}  // namespace gpufleet::place
