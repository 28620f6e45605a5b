// Fuzzes the nccl json trace importer and hang analysis on the same file.
#include <cstddef>
#include <cstdint>

#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto importer = gpufleet::trace::NewNcclJsonImporter();
  gpufleet::trace::FuzzImport(*importer, data, size, "ras.json", true);
  return 0;
}
