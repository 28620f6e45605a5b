// Fuzzes the nccl-tests / rccl-tests parser: no crash, counters consistent,
// and whatever parses yields finite, non-negative figures.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canary/nccl_tests_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::canary;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseReport report;
  auto out = ParseNcclTests(text, "fuzz", &report);
  if (report.data_lines + report.skipped_lines > report.lines) std::abort();
  if (!out.ok()) return 0;
  if (out->rows.size() != report.data_lines) std::abort();
  for (const BenchmarkResult& r : NcclTestsResults(*out, "fuzz")) {
    if (r.values.empty()) std::abort();
    for (double v : r.values) {
      if (!std::isfinite(v) || v < 0) std::abort();
    }
  }
  return 0;
}
