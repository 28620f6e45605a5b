// Fuzzes the cost ledger's network and sharing inputs: the egress price
// table format (EgressTable::Parse, data/prices/egress.toml) and HAMi's
// limit labels (HamiShare). Properties: no crash; a parsed table's prices
// are finite, non-negative and carry a source and date; a parsed share is
// -1 (none) or in (0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cost/network.h"
#include "cost/shares.h"

namespace {

void Require(bool cond) {
  if (!cond) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  using namespace gpufleet::cost;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<EgressTable> table = EgressTable::Parse(text, "fuzz.toml");
  if (table.ok()) {
    for (const EgressPrice& p : table->rows()) {
      Require(std::isfinite(p.usd_per_unit) && p.usd_per_unit >= 0);
      Require(!p.source.empty() && !p.date.empty() && p.unit_bytes > 0);
    }
  }
  if (size <= 16) {
    Holder h;
    h.key = "fuzz";
    size_t half = size / 2;
    h.hami_gpucores = std::string(text.substr(0, half));
    h.hami_gpumem_percentage = std::string(text.substr(half));
    StatusOr<double> share = HamiShare(h);
    if (share.ok()) Require(*share == -1 || (*share > 0 && *share <= 1));
  }
  return 0;
}
