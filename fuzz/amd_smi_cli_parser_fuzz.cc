// libFuzzer target: amd-smi JSON and text parsers (the first byte picks one).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "normalize/amd_smi_cli_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto r = (data[0] & 1) ? gpufleet::ParseAmdSmiJson(text) : gpufleet::ParseAmdSmiText(text);
  if (r.ok()) {
    for (const auto& d : r->devices) {
      for (const auto& reading : d.readings.readings) (void)reading.labels.ToString();
    }
  }
  return 0;
}
