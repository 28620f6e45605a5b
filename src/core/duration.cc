#include "core/duration.h"

#include <ctime>

#include "core/strings.h"

namespace gpufleet {

StatusOr<int64_t> ParseDurationNs(std::string_view text) {
  if (text.empty()) return InvalidArgumentError("empty duration");
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i || j == text.size() || j - i > 18) {
      return InvalidArgumentError("bad duration '" + std::string(text) +
                                  "' (expected e.g. 30s, 2m, 1h30m)");
    }
    // At most 18 digits: always an int64. FormatDuration writes up to 13
    // (100 years in milliseconds); the bound below stops the overflow.
    const int64_t n = *ParseInt64(text.substr(i, j - i));
    int64_t unit = 0;
    size_t k = j + 1;
    if (text.substr(j, 2) == "ms") {
      unit = 1'000'000;
      k = j + 2;
    } else if (text[j] == 's') {
      unit = 1'000'000'000;
    } else if (text[j] == 'm') {
      unit = 60'000'000'000;
    } else if (text[j] == 'h') {
      unit = 3'600'000'000'000;
    } else if (text[j] == 'd') {
      unit = 86'400'000'000'000;
    } else {
      return InvalidArgumentError("bad duration unit in '" + std::string(text) + "'");
    }
    // Durations beyond ~100 years are typos, and would overflow int64 ns.
    constexpr int64_t kMaxNs = 100LL * 365 * 86'400'000'000'000;
    if (n > kMaxNs / unit || total > kMaxNs - n * unit) {
      return InvalidArgumentError("duration '" + std::string(text) + "' is too long");
    }
    total += n * unit;
    i = k;
  }
  return total;
}

std::string FormatDuration(int64_t ns) {
  if (ns <= 0) return "0s";
  constexpr int64_t kS = 1'000'000'000;
  if (ns % (3600 * kS) == 0) return std::to_string(ns / (3600 * kS)) + "h";
  if (ns % (60 * kS) == 0) return std::to_string(ns / (60 * kS)) + "m";
  if (ns % kS == 0) return std::to_string(ns / kS) + "s";
  return std::to_string(ns / 1'000'000) + "ms";
}

std::string FormatDurationHuman(int64_t ns) {
  if (ns <= 0) return "0s";
  constexpr int64_t kMs = 1'000'000;
  constexpr int64_t kS = 1000 * kMs;
  if (ns < kS) return std::to_string((ns + kMs / 2) / kMs) + "ms";
  int64_t s = (ns + kS / 2) / kS;
  const int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;
  s %= 60;
  std::string out;
  if (d > 0) out += std::to_string(d) + "d";
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0 && d == 0) out += std::to_string(m) + "m";
  if (s > 0 && d == 0 && h == 0) out += std::to_string(s) + "s";
  return out;
}

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::string IsoTime(int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpufleet
