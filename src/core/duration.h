// Prometheus-style durations: "90s", "2m", "1h30m", "250ms", "7d".
//
// Errors: InvalidArgument naming the text. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpufleet {

// "90s", "2m", "1h30m" -> ns. InvalidArgument on anything else, and on
// durations beyond ~100 years (typos, and they would overflow int64 ns).
StatusOr<int64_t> ParseDurationNs(std::string_view text);
// ns -> the shortest of "2m", "90s", "1h" (Prometheus duration syntax).
std::string FormatDuration(int64_t ns);
// ns -> how a person reads an elapsed time, to the second: "4m22s",
// "1h3m", "2d4h" (seconds only under an hour, minutes under a day); "850ms" under one second.
std::string FormatDurationHuman(int64_t ns);

// Unix seconds -> RFC 3339 UTC to the second: "2026-12-05T04:57:16Z".
std::string IsoTime(int64_t unix_s);

// Days since 1970-01-01 of a proleptic Gregorian date (y, month 1-12, day
// 1-31), for parsers of calendar timestamps: 2026-12-04 -> 20791.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d);

}  // namespace gpufleet
