// Fuzzes the reader of Unified Memory page faults in nsys SQLite exports.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "trace/nsys_page_faults.h"
#include "trace_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = gpufleet::trace::FuzzWriteTemp(data, size, "faults.sqlite");
  if (path.empty()) return 0;
  auto got = gpufleet::trace::ReadNsysPageFaults(path);
  if (got.ok()) {
    if (!(got->duration_s > 0) || got->rows < 0 || got->bad_rows < 0) __builtin_trap();
    for (const auto& d : got->devices) {
      if (d.faults < 0) __builtin_trap();
      auto rate = got->FaultsPerSecond(d.uuid);
      if (rate && !(std::isfinite(*rate) && *rate >= 0)) __builtin_trap();
    }
    (void)got->FaultsPerSecond("");
  }
  std::remove(path.c_str());
  return 0;
}
