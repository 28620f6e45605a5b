// Fuzzes the reader of the long-term store's query_range answers (bodies
// from another server): no crash, and every series parsed has exactly one
// value slot per grid point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/clock.h"
#include "server/longterm_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  SeriesQuery q;
  q.metric = "gpu_power_watts";
  q.from_ns = 1'733'340'000LL * kNsPerSecond;
  q.to_ns = 1'733'350'000LL * kNsPerSecond;
  q.step_ns = 60 * kNsPerSecond;
  auto r = ParseQueryRangeAnswer(body, q);
  if (!r.ok()) {
    if (r.status().message().empty()) std::abort();
    return 0;
  }
  for (const SeriesData& s : *r) {
    if (static_cast<int64_t>(s.v.size()) != q.points()) std::abort();
  }
  return 0;
}
