// Fuzzes the replay readers (ReplayReader: OpenMetrics text with timestamps
// and VictoriaMetrics export JSON lines) and the truth CSV parser.
// Properties: no crash or hang; samples come out in non-decreasing time
// unless the input had a backwards timestamp; every delivered sample has a
// metric name; the samples written as text (SamplesAsText, the form vendor
// export lines take before translation) read back as well-formed text with
// the same count, less those of series whose names text cannot hold and
// those the text reader drops as late.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
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
  ReplayReader again;
  again.AddBuffer("fuzz", text);
  uint64_t skipped = 0;
  const std::string as_text = SamplesAsText(again, &skipped);
  ReplayReader back;
  back.AddBuffer("fuzz.prom", as_text);
  uint64_t n = 0;
  back.ForEach([&](const gpufleet::Labels&, int64_t, double) { ++n; });
  // A series' sample older than its previous one is delivered from an export
  // line (the store drops it) but dropped by the text reader as late.
  if (back.stats().malformed != 0 || n + skipped + back.stats().late != again.stats().samples) {
    std::abort();
  }
  uint64_t bad = 0;
  std::vector<std::string> errors;
  (void)ParseTruthCsv(text, "fuzz.csv", &bad, &errors);
  return 0;
}
