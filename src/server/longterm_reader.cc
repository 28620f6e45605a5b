#include "server/longterm_reader.h"

#include <algorithm>
#include <cmath>

#include "core/clock.h"
#include "core/strings.h"
#include "expo/prom_query_result.h"
#include "net/url.h"

namespace gpufleet {
namespace {

std::string Seconds(int64_t ns) { return FormatDouble(static_cast<double>(ns) / 1e9); }

}  // namespace

std::string LongtermPromql(const SeriesQuery& q) {
  std::string sel = q.metric + q.match.ToString();
  // Whole milliseconds: PromQL durations take integers with a unit.
  std::string range = std::to_string(std::max<int64_t>(1, q.step_ns / kNsPerMs)) + "ms";
  std::string expr = "last_over_time(" + sel + "[" + range + "])";
  if (!q.aggregate.empty()) expr = "avg by (" + q.aggregate + ") (" + expr + ")";
  return expr;
}

StatusOr<std::vector<SeriesData>> ParseQueryRangeAnswer(std::string_view body,
                                                        const SeriesQuery& q) {
  ASSIGN_OR_RETURN(std::vector<RemoteWriteSeries> series, ParsePromQueryResult(body, /*matrix_only=*/true));
  const int64_t n = q.points();
  std::vector<SeriesData> out;
  out.reserve(series.size());
  for (const RemoteWriteSeries& s : series) {
    SeriesData d;
    d.v.assign(static_cast<size_t>(n), std::nullopt);
    for (const auto& [k, v] : s.labels.pairs()) {
      if (k != "__name__") d.labels.Set(k, v);
    }
    for (const RemoteWriteSample& p : s.samples) {
      double offset_ns = static_cast<double>(p.timestamp_ms) * 1e6 - static_cast<double>(q.from_ns);
      if (offset_ns < -1e6) continue;  // before the grid (1 ms of rounding allowed)
      // Compared as a double first: a far-off time must not overflow the cast.
      double slot = std::floor(std::max(0.0, offset_ns + 1e6) / static_cast<double>(q.step_ns));
      if (slot >= static_cast<double>(n)) continue;
      if (std::isfinite(p.value)) d.v[static_cast<size_t>(slot)] = p.value;
    }
    out.push_back(std::move(d));
  }
  return out;
}

StatusOr<std::vector<SeriesData>> LongtermReader::Query(const SeriesQuery& q) {
  std::string url = options_.query_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/api/v1/query_range?query=" + PercentEncode(LongtermPromql(q)) +
         "&nocache=1&start=" + Seconds(q.from_ns) + "&end=" + Seconds(q.to_ns) +
         "&step=" + Seconds(q.step_ns);
  HttpRequest req;
  req.url = url;
  req.timeout_ns = options_.timeout_ns;
  if (!options_.token.empty()) req.headers.push_back({"Authorization", "Bearer " + options_.token});
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<HttpResponse> res = client_->Send(req);
  if (!res.ok()) return UnavailableError("long-term store: " + res.status().message());
  if (!res->ok()) {
    return UnavailableError("long-term store " + options_.query_url + ": HTTP " +
                            std::to_string(res->status) + ": " + res->body.substr(0, 200));
  }
  StatusOr<std::vector<SeriesData>> parsed = ParseQueryRangeAnswer(res->body, q);
  if (!parsed.ok()) {
    return UnavailableError("long-term store " + options_.query_url + ": " +
                            parsed.status().message());
  }
  return parsed;
}

}  // namespace gpufleet
