// Fuzzes the replay readers (ReplayReader: OpenMetrics text with timestamps
// and VictoriaMetrics export JSON lines) and the truth CSV parser.
// Properties: no crash or hang; samples come out in non-decreasing time
// unless the input had a backwards timestamp; every delivered sample has a
// metric name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "detect/replay.h"
#include "detect/replay_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet::detect;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ReplayReader reader;
  reader.AddBuffer("fuzz", text);
  int64_t last = INT64_MIN;
  bool ordered = true;
  reader.ForEach([&](const gpufleet::Labels& labels, int64_t ts, double) {
    if (labels.Get("__name__").empty()) std::abort();
    ordered = ordered && ts >= last;
    last = ts;
  });
  if (!ordered && reader.stats().backwards == 0) std::abort();
  uint64_t bad = 0;
  std::vector<std::string> errors;
  (void)ParseTruthCsv(text, "fuzz.csv", &bad, &errors);
  return 0;
}
