#include "canary/parse_util.h"

#include <cmath>

#include "core/strings.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<double> ParseFinite(std::string_view s) {
  std::optional<double> v = ParseDouble(s);
  if (!v.has_value() || !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::string CatalogModelKey(std::string_view device_name) {
  std::string_view name = TrimWhitespace(device_name);
  const GpuModelSpec* spec = HardwareCatalog::Default().Find(name);
  return spec != nullptr ? spec->key : std::string(name);
}

}  // namespace gpufleet::canary
