// Fuzzes the gpufleet canary JSON result parser (`canary run --json` output
// read back by ingest/check): no crash, no exception escaping, counters
// consistent, every accepted value finite and non-negative with a known unit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canary/result_json.h"
#include "canary/result_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::canary;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseReport report;
  auto out = ParseCanaryJson(text, "fuzz", &report);
  if (report.data_lines + report.skipped_lines > report.lines) std::abort();
  if (out.ok()) {
    if (out->empty()) std::abort();
    for (const BenchmarkResult& r : *out) {
      if (r.benchmark_id.empty() || r.values.empty()) std::abort();
      if (r.unit != kUnitBytesPerSecond && r.unit != kUnitFlopPerSecond && r.unit != kUnitSeconds &&
          r.unit != kUnitPass) {
        std::abort();
      }
      for (double v : r.values) {
        if (!std::isfinite(v) || v < 0) std::abort();
      }
    }
  }
  // The sniffer must route this format to this parser.
  if (LooksLikeCanaryJson(text) && SniffResultFormat(text) != ResultFormat::kCanaryJson) {
    std::abort();
  }
  return 0;
}
