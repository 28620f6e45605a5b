#include "server/query_params.h"

#include <cmath>
#include <ctime>

#include "core/clock.h"
#include "core/duration.h"
#include "core/strings.h"

namespace gpufleet {
namespace {

Status Bad(std::string_view param, std::string_view text, std::string_view expected) {
  return InvalidArgumentError(std::string(param) + ": '" + std::string(text.substr(0, 64)) +
                              (text.size() > 64 ? "...'" : "'") + ": expected " +
                              std::string(expected));
}

constexpr char kTimeForms[] =
    "now, -15m (a duration before now), unix seconds or 2026-12-04T08:00:00Z";

// "2026-12-04T08:00:00Z" (optionally with fractional seconds) -> ns.
std::optional<int64_t> ParseRfc3339Utc(std::string_view t) {
  if (t.size() < 20 || t.back() != 'Z' || t[4] != '-' || t[7] != '-' || t[10] != 'T' ||
      t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  auto num = [&](size_t pos, size_t len) -> std::optional<int64_t> {
    int64_t v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (t[i] < '0' || t[i] > '9') return std::nullopt;
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
       s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  if (*y < 1970 || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *s > 60) {
    return std::nullopt;
  }
  int64_t frac_ns = 0;
  std::string_view rest = t.substr(19, t.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return std::nullopt;
    int64_t scale = kNsPerSecond;
    for (char c : rest.substr(1)) {
      if (c < '0' || c > '9') return std::nullopt;
      scale /= 10;
      frac_ns += (c - '0') * scale;
    }
  }
  int64_t days = DaysFromCivil(*y, *mo, *d);
  int64_t seconds = ((days * 24 + *h) * 60 + *mi) * 60 + *s;
  if (seconds > kMaxQueryTimeS) return std::nullopt;  // beyond int64 nanoseconds
  return seconds * kNsPerSecond + frac_ns;
}

}  // namespace

StatusOr<int64_t> ParseQueryTimeNs(std::string_view param, std::string_view text, int64_t now_ns) {
  std::string_view t = TrimWhitespace(text);
  if (t == "now") return now_ns;
  if (!t.empty() && t[0] == '-') {
    StatusOr<int64_t> ago = ParseDurationNs(t.substr(1));
    if (!ago.ok()) return Bad(param, text, kTimeForms);
    if (*ago > now_ns) return Bad(param, text, "a time after 1970");
    return now_ns - *ago;
  }
  if (!t.empty() && (t[0] >= '0' && t[0] <= '9')) {
    if (t.find('T') != std::string_view::npos) {
      std::optional<int64_t> ns = ParseRfc3339Utc(t);
      if (!ns.has_value()) {
        return Bad(param, text, kTimeForms);
      }
      return *ns;
    }
    // Whole seconds and up to nine fraction digits, exactly (no double rounding).
    size_t dot = t.find('.');
    std::string_view whole = t.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? "" : t.substr(dot + 1);
    std::optional<uint64_t> s = ParseUint64(whole);
    bool frac_ok = (dot == std::string_view::npos || !frac.empty()) && frac.size() <= 9 &&
                   frac.find_first_not_of("0123456789") == std::string_view::npos;
    if (!s.has_value() || !frac_ok || *s > static_cast<uint64_t>(kMaxQueryTimeS)) {
      return Bad(param, text, kTimeForms);
    }
    int64_t frac_ns = 0, scale = kNsPerSecond;
    for (char c : frac) {
      scale /= 10;
      frac_ns += (c - '0') * scale;
    }
    return static_cast<int64_t>(*s) * kNsPerSecond + frac_ns;
  }
  return Bad(param, text, kTimeForms);
}

StatusOr<int64_t> ParseQueryStepNs(std::string_view param, std::string_view text) {
  std::string_view t = TrimWhitespace(text);
  int64_t ns = 0;
  if (!t.empty() && t.find_first_not_of("0123456789.") == std::string_view::npos) {
    std::optional<double> s = ParseDouble(t);
    if (!s.has_value() || !std::isfinite(*s) || *s > 100.0 * 365 * 86400) {
      return Bad(param, text, "a positive duration such as 15s, 1m or 30");
    }
    ns = static_cast<int64_t>(std::llround(*s * 1e9));
  } else {
    StatusOr<int64_t> d = ParseDurationNs(t);
    if (!d.ok()) return Bad(param, text, "a positive duration such as 15s, 1m or 30");
    ns = *d;
  }
  if (ns < kNsPerMs) return Bad(param, text, "a step of at least 1ms");
  return ns;
}

StatusOr<int64_t> ParseQueryLimit(std::string_view param, std::string_view text, int64_t max) {
  std::optional<uint64_t> n = ParseUint64(TrimWhitespace(text));
  if (!n.has_value()) return Bad(param, text, "a non-negative integer");
  if (*n > static_cast<uint64_t>(max)) {
    return InvalidArgumentError(std::string(param) + ": " + std::string(text.substr(0, 32)) +
                                " is over the maximum of " + std::to_string(max));
  }
  return static_cast<int64_t>(*n);
}

StatusOr<QueryRange> ParseQueryRange(const std::optional<std::string>& from,
                                     const std::optional<std::string>& to,
                                     std::string_view default_from, int64_t now_ns) {
  QueryRange r;
  ASSIGN_OR_RETURN(r.from_ns,
                   ParseQueryTimeNs("from", from.value_or(std::string(default_from)), now_ns));
  ASSIGN_OR_RETURN(r.to_ns, ParseQueryTimeNs("to", to.value_or("now"), now_ns));
  if (r.from_ns > r.to_ns) {
    return InvalidArgumentError("from: " + FormatDouble(static_cast<double>(r.from_ns) / 1e9) +
                                " is after to (" +
                                FormatDouble(static_cast<double>(r.to_ns) / 1e9) + ")");
  }
  return r;
}

std::optional<std::string> Param(const QueryParams& params, const std::string& name) {
  auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

}  // namespace gpufleet
