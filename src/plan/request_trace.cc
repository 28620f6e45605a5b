#include "plan/request_trace.h"

#include <random>

#include "core/duration.h"
#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::plan {
namespace {

Status RowError(std::string_view origin, size_t line, std::string_view field,
                std::string_view msg) {
  return InvalidArgumentError(std::string(origin) + ":" + std::to_string(line) + ": field '" +
                              std::string(field) + "': " + std::string(msg));
}

// "2023-11-16 18:17:03.9799600" -> seconds since the epoch (no time zone).
bool ParseTimestamp(std::string_view s, double* out) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':') {
    return false;
  }
  auto num = [&](size_t pos, size_t len) -> int64_t {
    auto v = ParseInt64(s.substr(pos, len));
    return v && *v >= 0 ? *v : -1;
  };
  int64_t y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59) {
    return false;
  }
  auto sec = ParseDouble(s.substr(17));
  if (!sec || !(*sec >= 0) || *sec >= 61) return false;
  *out = static_cast<double>(DaysFromCivil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + *sec;
  return true;
}

}  // namespace

StatusOr<RequestTrace> ParseAzureTrace(std::string_view csv, std::string_view origin) {
  if (StartsWith(csv, "\xEF\xBB\xBF")) csv.remove_prefix(3);
  RequestTrace t;
  t.origin = std::string(origin);
  std::vector<std::string_view> lines = SplitString(csv, '\n');
  double first = 0, last = 0;
  bool header = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (TrimWhitespace(l).empty()) continue;
    if (!header) {
      if (!StartsWith(l, "TIMESTAMP,ContextTokens,GeneratedTokens")) {
        return InvalidArgumentError(std::string(origin) + ":" + std::to_string(i + 1) +
                                    ": expected the header 'TIMESTAMP,ContextTokens,"
                                    "GeneratedTokens'");
      }
      header = true;
      continue;
    }
    std::vector<std::string_view> f = SplitString(l, ',');
    if (f.size() != 3) return RowError(origin, i + 1, "row", "expected 3 columns");
    double ts = 0;
    if (!ParseTimestamp(TrimWhitespace(f[0]), &ts)) {
      return RowError(origin, i + 1, "TIMESTAMP", "expected 'YYYY-MM-DD HH:MM:SS.fffffff'");
    }
    auto in = ParseInt64(TrimWhitespace(f[1]));
    auto out = ParseInt64(TrimWhitespace(f[2]));
    if (!in || *in < 0 || *in > 10'000'000)
      return RowError(origin, i + 1, "ContextTokens", "not a token count");
    if (!out || *out < 0 || *out > 10'000'000)
      return RowError(origin, i + 1, "GeneratedTokens", "not a token count");
    if (t.requests.empty() && t.skipped == 0) first = ts;
    if (ts < last && !(t.requests.empty() && t.skipped == 0)) {
      return RowError(origin, i + 1, "TIMESTAMP", "goes back in time (rows must be in time order)");
    }
    last = ts;
    if (*in == 0 || *out == 0) {
      ++t.skipped;
      continue;
    }
    t.requests.push_back(Request{ts - first, static_cast<int>(*in), static_cast<int>(*out)});
  }
  if (!header) return InvalidArgumentError(std::string(origin) + ": empty trace");
  return t;
}

StatusOr<RequestTrace> LoadAzureTrace(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseAzureTrace(text, path);
}

RequestTrace SyntheticTrace(double rate_per_s, double duration_s, int prompt_tokens,
                            int output_tokens, uint64_t seed) {
  RequestTrace t;
  t.origin = "synthetic Poisson";
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate_per_s > 0 ? rate_per_s : 1);
  for (double at = 0; at < duration_s; at += gap(rng)) {
    t.requests.push_back(Request{at, prompt_tokens, output_tokens});
  }
  return t;
}

RequestTrace ScaleRate(const RequestTrace& t, double factor) {
  RequestTrace out = t;
  for (Request& r : out.requests) r.arrival_s /= factor;
  return out;
}

}  // namespace gpufleet::plan
