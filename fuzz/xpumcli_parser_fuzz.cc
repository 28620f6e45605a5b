// libFuzzer target: xpumcli stats table parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "normalize/xpumcli_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = gpufleet::ParseXpumcliStats(text);
  if (r.ok()) {
    for (const auto& d : r->devices) {
      for (const auto& reading : d.readings.readings) (void)reading.labels.ToString();
    }
  }
  return 0;
}
