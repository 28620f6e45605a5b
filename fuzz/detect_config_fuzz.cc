// Fuzzes the detection config parser (ParseDetectConfig, ParseDurationNs)
// and the rules export of whatever parses. Properties: no crash; a parsed
// config has rules with conditions and non-negative windows; a parsed
// duration formats and re-parses to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "detect/detect_config.h"
#include "detect/rules_export.h"

namespace gpufleet::detect {
namespace {

void Require(bool cond) {
  if (!cond) std::abort();
}

}  // namespace
}  // namespace gpufleet::detect

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::detect;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = ParseDetectConfig(text, "fuzz.toml");
  if (config.ok()) {
    for (const RuleConfig& r : config->rules) {
      Require(!r.conditions.empty() && r.for_ns >= 0);
    }
    Require(!ExportPrometheusRules(*config, "fuzz.toml").empty());
  }
  if (size <= 32) {
    auto d = ParseDurationNs(text);
    if (d.ok() && *d > 0) {
      auto again = ParseDurationNs(FormatDuration(*d));
      Require(again.ok() && *again == *d);
    }
  }
  return 0;
}
