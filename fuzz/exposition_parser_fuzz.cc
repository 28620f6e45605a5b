// Fuzzes ParseExposition: no crash, no out-of-bounds read through any view
// the handler receives, and a round-trip property: whatever parses, written
// again (text 0.0.4 and OpenMetrics), parses back to the same samples.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "expo/exposition_parser.h"
#include "expo/exposition_writer.h"

namespace gpufleet {
namespace {

struct Owned {
  std::string name;
  Labels labels;
  double value;
  std::optional<int64_t> timestamp_ms;
};

// Reads every byte of every view so ASan sees a dangling or short one.
size_t Touch(std::string_view s) {
  size_t h = s.size();
  for (char c : s) h = h * 31 + static_cast<unsigned char>(c);
  return h;
}

class Collector : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    sink += Touch(s.name) + s.line;
    Owned o{std::string(s.name), {}, s.value, s.timestamp_ms};
    for (const ExpoLabel& l : s.labels) {
      sink += Touch(l.name) + Touch(l.value);
      o.labels.Set(l.name, l.value);
    }
    if (!IsValidMetricName(s.name)) std::abort();
    samples.push_back(std::move(o));
  }
  void OnMeta(const ExpoMeta& m) override {
    sink += Touch(m.family) + Touch(m.text) + static_cast<size_t>(m.kind) + m.line;
  }
  void OnError(const ExpoError& e) override {
    sink += Touch(e.message) + e.line + e.column + e.offset;
    ++errors;
  }

  std::vector<Owned> samples;
  size_t errors = 0;
  size_t sink = 0;
};

bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void Fail(const char* what, const std::string& written) {
  std::fprintf(stderr, "round trip failed: %s\n--- written ---\n%s\n", what, written.c_str());
  std::abort();
}

void CheckRoundTrip(const std::vector<Owned>& first, ExpositionFormat format) {
  std::string out;
  ExpositionWriter writer(format, &out);
  for (const Owned& s : first) {
    writer.BeginFamily(FamilyMeta{s.name, "gauge", "", "fuzz"});
    writer.WriteSample(s.name, s.labels, s.value, s.timestamp_ms);
  }
  writer.Finish();
  Collector second;
  ParseExposition(out, second);
  if (second.errors != 0) Fail("re-parse reported errors", out);
  if (second.samples.size() != first.size()) Fail("sample count differs", out);
  for (size_t i = 0; i < first.size(); ++i) {
    const Owned& a = first[i];
    const Owned& b = second.samples[i];
    if (a.name != b.name) Fail("name differs", out);
    if (!(a.labels == b.labels)) Fail("labels differ", out);
    if (!SameValue(a.value, b.value)) Fail("value differs", out);
    if (a.timestamp_ms != b.timestamp_ms) Fail("timestamp differs", out);
  }
}

}  // namespace
}  // namespace gpufleet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Collector first;
  ExpoParseStats stats = ParseExposition(text, first);
  if (stats.samples != first.samples.size() || stats.errors != first.errors) std::abort();
  if (stats.samples + stats.errors > stats.lines) std::abort();
  CheckRoundTrip(first.samples, ExpositionFormat::kPrometheusText);
  CheckRoundTrip(first.samples, ExpositionFormat::kOpenMetrics);
  return 0;
}
