// Fuzzes the Nsight Compute CSV reader (capture L2 / stall metrics on NVIDIA).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/ncu_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = gpufleet::collect::ParseNcuCsv(text, "fuzz_ncu.csv");
  if (s.ok()) {
    (void)s->L2MissRatio();
    (void)s->MemoryStallRatio();
  }
  return 0;
}
