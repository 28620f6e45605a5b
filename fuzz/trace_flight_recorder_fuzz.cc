// Fuzzes the flight recorder trace importer and hang analysis on the same file.
#include <cstddef>
#include <cstdint>

#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto importer = gpufleet::trace::NewFlightRecorderImporter();
  gpufleet::trace::FuzzImport(*importer, data, size, "nccl_trace_rank_0", true);
  return 0;
}
