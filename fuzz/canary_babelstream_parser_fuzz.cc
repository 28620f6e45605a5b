// Fuzzes the BabelStream parser (text and CSV): no crash, counters
// consistent, finite non-negative bandwidths.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canary/babelstream_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::canary;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseReport report;
  auto out = ParseBabelStream(text, "fuzz", &report);
  if (report.data_lines + report.skipped_lines > report.lines) std::abort();
  if (!out.ok()) return 0;
  if (out->rows.empty()) std::abort();
  for (const BenchmarkResult& r : BabelStreamResults(*out, "fuzz")) {
    for (double v : r.values) {
      if (!std::isfinite(v) || v < 0) std::abort();
    }
  }
  return 0;
}
