// libFuzzer target: TranslateInput (sniffing, every source, both output formats).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "normalize/translate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kSources[] = {
      "", "dcgm_exporter", "amd_dme", "xpum", "amd_smi_json", "amd_smi_text", "xpumcli", "xpumd"};
  if (size == 0) return 0;
  gpufleet::TranslateOptions opts;
  opts.from = kSources[data[0] % 8];
  opts.format = (data[0] & 0x80) ? gpufleet::ExpositionFormat::kOpenMetrics
                                 : gpufleet::ExpositionFormat::kPrometheusText;
  std::string out;
  gpufleet::TranslateReport report;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  gpufleet::TranslateInput(text, "fuzz", opts, &out, &report).IgnoreError();
  return 0;
}
