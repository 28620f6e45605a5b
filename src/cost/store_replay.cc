#include "cost/store_replay.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "expo/prom_query_result.h"
#include "net/url.h"

namespace gpufleet::cost {
namespace {

// "1733350000.999": the chunk's end less a millisecond, so the range
// selector's (end - range, end] covers [start, end) of whole milliseconds.
std::string QueryTime(int64_t end_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.999", static_cast<long long>(end_s - 1));
  return buf;
}

}  // namespace

StatusOr<StoreReplayStats> ReplayFromStore(HttpClient& client, const std::string& base_url,
                                           int64_t from_s, int64_t to_s, Meter& meter,
                                           int64_t chunk_s) {
  if (to_s <= from_s) return InvalidArgumentError("store replay: the period is empty");
  if (chunk_s < 60) return InvalidArgumentError("store replay: chunks under a minute");
  ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(base_url, ""));
  std::string prefix = url.Full();
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  StoreReplayStats stats;
  for (int64_t start = from_s; start < to_s; start += chunk_s) {
    int64_t end = std::min(to_s, start + chunk_s);
    std::vector<RemoteWriteSeries> chunk;
    for (std::string_view name : MeteredMetricNames()) {
      std::string selector = "{__name__=\"" + std::string(name) + "\"}[" +
                             std::to_string(end - start) + "s]";
      HttpRequest request;
      request.url = prefix + "/api/v1/query?query=" + PercentEncode(selector) +
                    "&time=" + QueryTime(end);
      request.timeout_ns = 60 * kNsPerSecond;
      stats.queries++;
      ASSIGN_OR_RETURN(HttpResponse response, client.Send(request));
      // Engines answer a refused query with 4xx and an error document.
      StatusOr<std::vector<RemoteWriteSeries>> series = ParsePromQueryResult(response.body);
      if (!series.ok() || response.status != 200) {
        std::string why = series.ok() ? "HTTP " + std::to_string(response.status)
                                      : series.status().message();
        return UnavailableError("store replay: " + request.url + ": " + why);
      }
      for (RemoteWriteSeries& s : *series) {
        if (s.labels.Get("__name__").empty()) s.labels.Set("__name__", name);
        stats.series++;
        stats.samples += static_cast<int64_t>(s.samples.size());
        chunk.push_back(std::move(s));
      }
    }
    RETURN_IF_ERROR(meter.Record(chunk));
  }
  return stats;
}

}  // namespace gpufleet::cost
