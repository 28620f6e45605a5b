// Fuzzes the unitrace metric report reader (capture L2 / stall metrics on Intel).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/unitrace_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = gpufleet::collect::ParseUnitraceMetrics(text, "fuzz_unitrace.log");
  if (s.ok()) {
    for (auto v : {s->L2MissRatio(), s->MemoryStallRatio()}) {
      if (v && !(*v >= 0 && *v <= 1)) __builtin_trap();
    }
  }
  return 0;
}
