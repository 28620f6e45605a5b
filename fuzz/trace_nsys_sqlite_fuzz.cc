// Fuzzes the nsys sqlite trace importer.
#include <cstddef>
#include <cstdint>

#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto importer = gpufleet::trace::NewNsysSqliteImporter();
  gpufleet::trace::FuzzImport(*importer, data, size, "export.sqlite", false);
  return 0;
}
