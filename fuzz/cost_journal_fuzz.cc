// Fuzzes the cost meter's journal body (cost/meter_journal.h), which a
// restarted server reads back from its database. Properties: no crash; a
// body that decodes re-encodes to bytes that decode to the same deltas.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cost/meter_journal.h"

namespace {

void Require(bool cond) {
  if (!cond) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::cost;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  MeterDeltas d;
  if (!DecodeDeltasInto(body, "fuzz", d).ok()) return 0;
  const std::string again = EncodeDeltas(d);
  MeterDeltas e;
  Require(DecodeDeltasInto(again, "fuzz", e).ok());
  Require(EncodeDeltas(e) == again);
  return 0;
}
