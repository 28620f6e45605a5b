#include "normalize/cli_readings.h"

#include <utility>

#include "core/strings.h"

namespace gpufleet {

std::optional<double> UnitScale(std::string_view unit) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"", 1.0},          {"%", 0.01},         {"W", 1.0},          {"mW", 1e-3},
      {"uW", 1e-6},       {"\xC2\xB5W", 1e-6}, {"V", 1.0},          {"mV", 1e-3},
      {"C", 1.0},         {"\xC2\xB0" "C", 1.0}, {"Celsius", 1.0},  {"Celsius Degree", 1.0},
      {"J", 1.0},         {"mJ", 1e-3},        {"uJ", 1e-6},        {"\xC2\xB5J", 1e-6},
      {"Hz", 1.0},        {"KHz", 1e3},        {"kHz", 1e3},        {"MHz", 1e6},
      {"GHz", 1e9},       {"B", 1.0},          {"KB", 1024.0},      {"KiB", 1024.0},
      {"MB", 1048576.0},  {"MiB", 1048576.0},  {"GB", 1073741824.0}, {"GiB", 1073741824.0},
      {"B/s", 1.0},       {"kB/s", 1e3},       {"KB/s", 1e3},       {"MB/s", 1e6},
      {"Mb/s", 125000.0}, {"GB/s", 1e9},       {"ns", 1e-9},        {"us", 1e-6},
      {"ms", 1e-3},       {"s", 1.0},
  };
  for (const auto& [name, scale] : kUnits) {
    if (name == unit) return scale;
  }
  return std::nullopt;
}

std::string ReadingName(std::string_view text) {
  // Drop a trailing "(unit)".
  size_t paren = text.find('(');
  if (paren != std::string_view::npos) text = text.substr(0, paren);
  std::string out;
  bool pending_sep = false;
  for (char c : TrimWhitespace(text)) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      pending_sep = !out.empty();
      continue;
    }
    if (pending_sep) out.push_back('_');
    pending_sep = false;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

}  // namespace gpufleet
