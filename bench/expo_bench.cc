// Parse and write throughput of the exposition code on dcgm-exporter style
// input (see dcgm_exposition_gen.h), and of the whole dcgm-exporter ->
// canonical translation on the same input, whose anchor is the parse alone
// (BM_ParseDcgmExposition, same run). Counters: bytes_per_second (MB/s in
// the report) and samples_per_second.
//
//   expo_bench                                   # generated ~32 MB input
//   GPUFLEET_EXPO_BENCH_FILE=x.prom expo_bench --benchmark_filter=ParseFile
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/dcgm_exposition_gen.h"
#include "core/labels.h"
#include "core/sample.h"
#include "expo/exposition_parser.h"
#include "expo/exposition_writer.h"
#include "normalize/translate.h"

namespace gpufleet {
namespace {

// Does what any consumer must at least do: read the value and look at each
// label, so the parse cannot be optimised away.
class CountingHandler : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    checksum_ += s.value + static_cast<double>(s.labels.size() + s.name.size());
  }
  double checksum() const { return checksum_; }

 private:
  double checksum_ = 0;
};

const std::string& GeneratedInput() {
  static const std::string* input = [] {
    auto* s = new std::string;
    bench::DcgmExpositionShape shape;
    shape.gpus = bench::GpusForBytes(32'000'000);
    bench::GenerateDcgmExposition(shape, [&](std::string_view c) { s->append(c); });
    return s;
  }();
  return *input;
}

void RunParse(benchmark::State& state, const std::string& input) {
  size_t samples = 0;
  for (auto _ : state) {
    CountingHandler h;
    ExpoParseStats stats = ParseExposition(input, h);
    benchmark::DoNotOptimize(h.checksum());
    samples += stats.samples;
    if (stats.errors != 0) state.SkipWithError("input has parse errors");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  state.counters["bytes_per_sample"] = static_cast<double>(input.size()) *
                                       static_cast<double>(state.iterations()) /
                                       static_cast<double>(samples == 0 ? 1 : samples);
}

void BM_ParseDcgmExposition(benchmark::State& state) { RunParse(state, GeneratedInput()); }
BENCHMARK(BM_ParseDcgmExposition)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parse, map, order and write (output counted, not kept), as `gpufleet
// translate --from dcgm_exporter` does.
void RunTranslate(benchmark::State& state, const std::string& input) {
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

void BM_TranslateDcgmExposition(benchmark::State& state) { RunTranslate(state, GeneratedInput()); }
BENCHMARK(BM_TranslateDcgmExposition)->Unit(benchmark::kMillisecond)->UseRealTime();

// The file named by $GPUFLEET_EXPO_BENCH_FILE (bench/translate_vs_promtool.sh
// --parser-only uses this on its generated file), read once; nullptr (and the
// benchmark skipped) when unset or unreadable.
const std::string* BenchFile(benchmark::State& state) {
  const char* path = std::getenv("GPUFLEET_EXPO_BENCH_FILE");
  static const std::string* input = [path] {
    if (path == nullptr) return new std::string();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    return new std::string(buf.str());
  }();
  if (input->empty()) {
    state.SkipWithError(path == nullptr ? "GPUFLEET_EXPO_BENCH_FILE not set"
                                        : "GPUFLEET_EXPO_BENCH_FILE is empty or unreadable");
    for (auto _ : state) {
    }
    return nullptr;
  }
  return input;
}

void BM_ParseFile(benchmark::State& state) {
  if (const std::string* input = BenchFile(state)) RunParse(state, *input);
}
BENCHMARK(BM_ParseFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// Translation of the same file, from memory to a counting sink: the part of
// `gpufleet translate` that is not I/O. Run with BM_ParseFile, the ratio of
// the two is what translation costs beyond parsing.
void BM_TranslateFile(benchmark::State& state) {
  if (const std::string* input = BenchFile(state)) RunTranslate(state, *input);
}
BENCHMARK(BM_TranslateFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WriteExposition(benchmark::State& state) {
  std::vector<Sample> samples;
  for (int gpu = 0; gpu < 8 * 128; ++gpu) {
    for (const char* name :
         {"gpu_power_watts", "gpu_temperature_celsius", "gpu_energy_joules_total"}) {
      samples.push_back(
          Sample{name,
                 Labels{{"gpu", std::to_string(gpu % 8)},
                        {"node", "gke-prod-a3-highgpu-8g-pool-" + std::to_string(gpu / 8)},
                        {"uuid", "GPU-84412445-5790-0b3f-f714-da8aa3b2c0b0"},
                        {"pod", "triton-84d57987c9-kks4k"}},
                 123.456 + gpu, 0});
    }
  }
  auto meta = [](std::string_view name) { return FamilyMeta{name, "gauge", "", "help"}; };
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out;
    WriteExposition(samples, static_cast<ExpositionFormat>(state.range(0)), meta, &out);
    bytes += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["samples_per_second"] = benchmark::Counter(
      static_cast<double>(samples.size() * state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WriteExposition)
    ->Arg(static_cast<int>(ExpositionFormat::kPrometheusText))
    ->Arg(static_cast<int>(ExpositionFormat::kOpenMetrics))
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpufleet

BENCHMARK_MAIN();
