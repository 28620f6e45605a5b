// Fuzzes the console APIs' query-parameter parsing (untrusted URLs): times,
// steps, limits, series selectors and whole /api/v1/series queries. No
// crash, and every accepted value is in its documented range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "server/query_params.h"
#include "server/series_query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  constexpr int64_t kNow = 1'733'350'000LL * kNsPerSecond;
  if (auto t = ParseQueryTimeNs("from", in, kNow); t.ok()) {
    if (*t < 0 || *t / kNsPerSecond > kMaxQueryTimeS + 1) std::abort();
  } else if (t.status().message().rfind("from: ", 0) != 0) {
    std::abort();
  }
  if (auto s = ParseQueryStepNs("step", in); s.ok() && *s < kNsPerMs) std::abort();
  if (auto l = ParseQueryLimit("limit", in, 10000); l.ok() && (*l < 0 || *l > 10000)) std::abort();
  if (auto sel = ParseSeriesSelector(in); sel.ok() && sel->first.empty()) std::abort();
  // The input split on '&' as one query's parameters.
  QueryParams p;
  size_t pos = 0;
  while (pos <= in.size()) {
    size_t amp = in.find('&', pos);
    std::string_view part = in.substr(pos, amp == std::string_view::npos ? in.npos : amp - pos);
    size_t eq = part.find('=');
    if (eq != std::string_view::npos) p[std::string(part.substr(0, eq))] = part.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    pos = amp + 1;
  }
  if (auto q = ParseSeriesQuery(p, kNow, MetricCatalog::Default()); q.ok()) {
    if (q->from_ns > q->to_ns || q->step_ns <= 0 || q->points() > kMaxPointsPerSeries ||
        q->limit < 1 || q->limit * q->points() > kMaxPointsPerAnswer) {
      std::abort();
    }
  }
  return 0;
}
