// Fuzzes the Gavel co-location table parser (detect/gavel_colocation.h).
// Properties: no crash or hang; every kept pair is feasible with norms in
// (0, 4]; bad rows are counted with at most 20 messages.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "detect/gavel_colocation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::detect;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = ParseGavelColocation(text, "fuzz.csv");
  if (!table.ok()) return 0;
  for (const CoLocationPair& p : table->pairs) {
    if (!(p.norm_a > 0 && p.norm_a <= 4 && p.norm_b > 0 && p.norm_b <= 4)) std::abort();
  }
  if (table->errors.size() > 20 || table->errors.size() > table->bad) std::abort();
  return 0;
}
