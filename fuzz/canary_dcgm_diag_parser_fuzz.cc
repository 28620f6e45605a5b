// Fuzzes the DCGM diag JSON parser and the format sniffer that routes
// `canary check` inputs: no crash, no exception escaping, pass/fail values
// only 0 or 1.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canary/dcgm_diag_parser.h"
#include "canary/result_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::canary;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseReport report;
  auto out = ParseDcgmDiag(text, "fuzz", &report);
  if (out.ok()) {
    for (const BenchmarkResult& r : DcgmDiagResults(*out, "fuzz")) {
      for (double v : r.values) {
        if (v != 0 && v != 1) std::abort();
      }
    }
  }
  ParseReport any;
  auto all = ParseResults(text, "fuzz", ResultFormat::kAuto, &any);
  if (all.ok() && all->empty() && SniffResultFormat(text) != ResultFormat::kDcgmDiag) std::abort();
  return 0;
}
