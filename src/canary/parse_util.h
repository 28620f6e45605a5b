// Private helpers shared by the canary parsers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufleet::canary {

// Splits on runs of spaces and tabs; no empty tokens.
std::vector<std::string_view> SplitFields(std::string_view line);

// A finite double, or nullopt (benchmark output never legitimately holds
// NaN or Inf, so those count as malformed).
std::optional<double> ParseFinite(std::string_view s);

// Calls fn(line_number, line) for each line; strips a trailing '\r'.
template <typename Fn>
void ForEachLine(std::string_view text, Fn&& fn) {
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(++line_no, line);
  }
}

// Maps a vendor device name to the hardware catalog key when known
// ("NVIDIA H100 80GB HBM3" -> "h100-sxm"), else returns it unchanged.
std::string CatalogModelKey(std::string_view device_name);

}  // namespace gpufleet::canary
