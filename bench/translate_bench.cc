// Throughput of the whole dcgm-exporter -> canonical translation (parse, map,
// order, write) against its own anchor in the same run: the exposition parser
// alone on the same input. The ratio says what translation costs on top of
// reading the text once.
//
//   translate_bench                 # generated ~32 MB dcgm-exporter style input
#include <benchmark/benchmark.h>

#include <string>

#include "bench/dcgm_exposition_gen.h"
#include "expo/exposition_parser.h"
#include "normalize/translate.h"

namespace gpufleet {
namespace {

class CountingHandler : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override { checksum_ += s.value + double(s.labels.size()); }
  double checksum() const { return checksum_; }

 private:
  double checksum_ = 0;
};

const std::string& Input() {
  static const std::string* input = [] {
    auto* s = new std::string;
    bench::DcgmExpositionShape shape;
    shape.gpus = bench::GpusForBytes(32'000'000);
    bench::GenerateDcgmExposition(shape, [&](std::string_view c) { s->append(c); });
    return s;
  }();
  return *input;
}

void BM_ParseOnly(benchmark::State& state) {
  const std::string& input = Input();
  for (auto _ : state) {
    CountingHandler h;
    ParseExposition(input, h);
    benchmark::DoNotOptimize(h.checksum());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Translate(benchmark::State& state) {
  const std::string& input = Input();
  TranslateOptions opts;
  opts.from = "dcgm_exporter";
  size_t out_bytes = 0;
  for (auto _ : state) {
    std::string scratch;
    TranslateReport report;
    ChunkSink sink = [&out_bytes](std::string_view chunk) { out_bytes += chunk.size(); };
    Status st = TranslateInput(input, "bench", opts, &scratch, &report, &sink);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  benchmark::DoNotOptimize(out_bytes);
}
BENCHMARK(BM_Translate)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gpufleet

BENCHMARK_MAIN();
