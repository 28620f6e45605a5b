// LongtermReader: reads series older than the server's window from the
// configured long-term store (VictoriaMetrics, Prometheus, Mimir: anything
// with Prometheus' HTTP query API) through GET <query_url>/api/v1/query_range.
//
// The query asks the store for what the window evaluation computes (see
// server/series_query.h): last_over_time(metric{matches}[step]) on the same
// grid, wrapped in avg by (label) (...) when aggregating, so both sources
// answer the same question. The answer's points are placed on the grid; a
// point off the grid (a store that shifts steps) goes to the grid point at
// or before it.
//
// Errors: Unavailable naming the URL when the store does not answer or
// answers non-2xx (with the start of its error body); InvalidArgument
// naming the field when the answer does not decode.
//
// Thread safety: Query is thread-safe (one request at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "net/http_client.h"
#include "server/series_query.h"

namespace gpufleet {

struct LongtermOptions {
  std::string query_url;  // e.g. http://127.0.0.1:8428 (the query API's root)
  std::string token;      // bearer token; "" = none
  int64_t timeout_ns = 10'000'000'000;
};

// The PromQL expression for `q`.
std::string LongtermPromql(const SeriesQuery& q);

// Parses a Prometheus query_range answer (expo/prom_query_result.h) onto q's grid.
StatusOr<std::vector<SeriesData>> ParseQueryRangeAnswer(std::string_view body,
                                                        const SeriesQuery& q);

class LongtermReader {
 public:
  LongtermReader(LongtermOptions options, std::unique_ptr<HttpClient> client)
      : options_(std::move(options)), client_(std::move(client)) {}

  StatusOr<std::vector<SeriesData>> Query(const SeriesQuery& q);
  const std::string& url() const { return options_.query_url; }

 private:
  const LongtermOptions options_;
  std::mutex mu_;
  std::unique_ptr<HttpClient> client_;  // guarded by mu_
};

}  // namespace gpufleet
