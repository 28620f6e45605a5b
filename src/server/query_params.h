// Query-parameter parsing shared by the console's JSON APIs (fleet, series,
// incidents, canary runs): times, steps and limits, each error naming the
// parameter so the handler can answer a 400 as it is.
//
//   time:  "now", "-15m" / "-1h30m" (before now, Prometheus duration), unix
//          seconds ("1733350000" or "1733350000.25"), or RFC 3339 UTC
//          ("2026-12-04T08:00:00Z"); from 1970 up to kMaxQueryTimeS (2255),
//          so every accepted time fits int64 nanoseconds.
//   step:  a positive Prometheus duration ("15s") or plain seconds ("15").
//   limit: a non-negative integer no larger than the maximum.
//
// Errors: InvalidArgument "<param>: <what is wrong and what is expected>".
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpufleet {

// The latest time any parameter may name (2255-03-14T16:00:00Z): int64
// nanoseconds end in 2262.
inline constexpr int64_t kMaxQueryTimeS = 9'000'000'000;

StatusOr<int64_t> ParseQueryTimeNs(std::string_view param, std::string_view text, int64_t now_ns);
StatusOr<int64_t> ParseQueryStepNs(std::string_view param, std::string_view text);
StatusOr<int64_t> ParseQueryLimit(std::string_view param, std::string_view text, int64_t max);

// A time range [from_ns, to_ns] from `from` / `to` (defaults when absent).
// InvalidArgument when either does not parse or from > to.
struct QueryRange {
  int64_t from_ns = 0;
  int64_t to_ns = 0;
};
StatusOr<QueryRange> ParseQueryRange(const std::optional<std::string>& from,
                                     const std::optional<std::string>& to,
                                     std::string_view default_from, int64_t now_ns);

// Parameters as the handlers see them: name -> value (the first occurrence).
using QueryParams = std::map<std::string, std::string>;
std::optional<std::string> Param(const QueryParams& params, const std::string& name);

}  // namespace gpufleet
