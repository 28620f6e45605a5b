// Fuzzes the rocpd trace importer.
#include <cstddef>
#include <cstdint>

#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto importer = gpufleet::trace::NewRocpdImporter();
  gpufleet::trace::FuzzImport(*importer, data, size, "results.db", false);
  return 0;
}
