// The request and result types of GET /api/v1/series, and their parsing.
//
//   ?metric=NAME (a canonical metric of data/metrics.toml)
//   [&gpu_uuid=U][&vendor=..&model=..&cloud=..&node=..]   exact label matches
//   [&aggregate=vendor|model|cloud|node]                  one mean series per group
//   [&from=-15m&to=now][&step=15s][&limit=200]
//
// Every series answers on one grid: from, from + step, ... <= to. The value at
// t is the latest sample in (t - step, t] (PromQL last_over_time(x[step]) at
// t), null when there is none; with aggregate, the mean over the group's
// devices that have a value at t. At most kMaxPointsPerSeries grid points.
//
// Also here: ParseSeriesSelector for `metric{a="1",b="x"}` as incident
// evidence names its series (Prometheus label-value escaping).
//
// Errors: InvalidArgument naming the parameter. Thread safety: pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/labels.h"
#include "core/status.h"
#include "schema/metric_catalog.h"
#include "server/query_params.h"

namespace gpufleet {

inline constexpr int64_t kSeriesDefaultLimit = 200;
inline constexpr int64_t kSeriesMaxLimit = 10000;
inline constexpr int64_t kMaxPointsPerSeries = 11000;      // as Prometheus' query_range
inline constexpr int64_t kMaxPointsPerAnswer = 4'000'000;  // limit x grid points

struct SeriesQuery {
  std::string metric;
  std::string unit;
  Labels match;           // exact matches (gpu_uuid, vendor, model, cloud, node, ...)
  std::string aggregate;  // "" or the label to group by
  int64_t from_ns = 0, to_ns = 0, step_ns = 0;
  int64_t limit = kSeriesDefaultLimit;

  int64_t points() const { return (to_ns - from_ns) / step_ns + 1; }
  int64_t TimeAt(int64_t i) const { return from_ns + i * step_ns; }
};

struct SeriesData {
  Labels labels;                         // without __name__
  std::vector<std::optional<double>> v;  // one per grid point
};

StatusOr<SeriesQuery> ParseSeriesQuery(const QueryParams& params, int64_t now_ns,
                                       const MetricCatalog& catalog);

// `gpu_up{node="n1",gpu_uuid="GPU-1"}` -> ("gpu_up", {node=n1, gpu_uuid=GPU-1}).
// InvalidArgument naming the offset of what does not parse.
StatusOr<std::pair<std::string, Labels>> ParseSeriesSelector(std::string_view text);

}  // namespace gpufleet
