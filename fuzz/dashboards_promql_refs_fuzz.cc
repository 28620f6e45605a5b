// Fuzzes the PromQL reference scanner the dashboards exporter checks every
// query with (dashboards/promql_refs.h). Properties: no crash or hang; an
// error names a byte offset; every metric found is a non-empty name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dashboards/promql_refs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::dashboards;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto refs = ExtractPromqlRefs(text);
  if (!refs.ok()) {
    if (refs.status().message().find("offset") == std::string::npos) std::abort();
    return 0;
  }
  for (const std::string& m : refs->metrics) {
    if (m.empty()) std::abort();
  }
  return 0;
}
