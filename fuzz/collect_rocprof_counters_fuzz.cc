// Fuzzes the rocprofv3 counter-collection reader (capture L2 / stall counters).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/rocprof_counters.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = gpufleet::collect::ParseRocprofCounters(text, "fuzz_counter_collection.csv");
  if (s.ok()) {
    (void)s->L2MissRatio();
    (void)s->MemoryStallRatio();
  }
  return 0;
}
