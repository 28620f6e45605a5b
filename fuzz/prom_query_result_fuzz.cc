// Fuzzes ParsePromQueryResult (the query API answers `cost report
// --from-store` reads): no crash, and what parses has strictly increasing
// sample times within every series.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "expo/prom_query_result.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = gpufleet::ParsePromQueryResult(in);
  if (!r.ok()) return 0;
  for (const gpufleet::RemoteWriteSeries& s : *r) {
    for (size_t i = 1; i < s.samples.size(); ++i) {
      if (s.samples[i].timestamp_ms <= s.samples[i - 1].timestamp_ms) std::abort();
    }
  }
  return 0;
}
