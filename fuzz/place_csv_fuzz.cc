// Fuzzes the Alibaba trace CSV loaders (node and pod lists).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "place/alibaba_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto pods = gpufleet::place::ParseAlibabaPods(in, "fuzz");
  if (pods.ok()) {
    for (const auto& p : pods->rows) {
      if (p.gpu_milli > 1000 || p.gpu_count < 0) __builtin_trap();
    }
  }
  auto nodes = gpufleet::place::ParseAlibabaNodes(in, "fuzz");
  (void)nodes;
  return 0;
}
