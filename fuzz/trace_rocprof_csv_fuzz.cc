// Fuzzes the rocprof csv trace importer.
#include <cstddef>
#include <cstdint>

#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto importer = gpufleet::trace::NewRocprofCsvImporter();
  gpufleet::trace::FuzzImport(*importer, data, size, "1_kernel_trace.csv", false);
  return 0;
}
