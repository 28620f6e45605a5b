// GET /api/v1/fleet's work in process: FleetSummary over 10,000 devices
// x 7 canonical series (two samples each) against an anchor measured in the
// same run: one ForEach over the same metrics that only touches each
// series' latest point (the floor any summary of the window pays). The
// ratio summary / anchor is what the fleet API adds (device grouping and
// the JSON answer). bench/fleet_api_vs_victoriametrics.py measures it over
// HTTP against VictoriaMetrics.
#include <benchmark/benchmark.h>

#include <string>
#include <unordered_map>

#include "server/fleet_api.h"
#include "store/window_store.h"

namespace gpufleet {
namespace {

constexpr int kGpus = 10000;
constexpr int64_t kNow = 1'733'350'000'000'000'000;
const std::span<const char* const> kMetrics = FleetSummaryMetrics();

const WindowStore& Fleet() {
  static WindowStore* store = [] {
    auto* s = new WindowStore(WindowStoreOptions{});
    const char* vendors[] = {"nvidia", "amd", "intel"};
    for (int g = 0; g < kGpus; ++g) {
      for (int m = 0; m < 7; ++m) {
        Labels l{{"__name__", kMetrics[m]},
                 {"node", "node-" + std::to_string(g / 8)},
                 {"gpu", std::to_string(g % 8)},
                 {"gpu_uuid", "GPU-" + std::to_string(1000000 + g)},
                 {"model", "NVIDIA H100 80GB HBM3"},
                 {"cloud", "aws"},
                 {"region", "us-east-1"},
                 {"vendor", vendors[g % 3]}};
        if (m == 0) l.Set("reason", "ok");
        s->Append(l, kNow - 15'000'000'000, 0.5);
        s->Append(l, kNow - 1'000'000'000, 0.25 + (g % 50) / 100.0);
      }
    }
    return s;
  }();
  return *store;
}

// The server's path: one FleetSummary kept between calls, so after the first
// call it reads labels only for new series.
void BM_FleetSummary(benchmark::State& state) {
  const WindowStore& w = Fleet();
  std::unordered_map<std::string, int> open = {{"GPU-1000007", 1}};
  FleetSummary kept;
  size_t bytes = kept.Json(w, FleetFilter{}, open, kNow, FleetOptions{}).size();
  for (auto _ : state) {
    std::string json = kept.Json(w, FleetFilter{}, open, kNow, FleetOptions{});
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["devices"] = kGpus;
  state.counters["answer_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_FleetSummary)->Unit(benchmark::kMillisecond);

// A first call (or one after the cache was dropped): every series' labels read.
void BM_FleetSummaryFirstCall(benchmark::State& state) {
  const WindowStore& w = Fleet();
  std::unordered_map<std::string, int> open = {{"GPU-1000007", 1}};
  for (auto _ : state) {
    std::string json = FleetSummaryJson(w, FleetFilter{}, open, kNow, FleetOptions{});
    benchmark::DoNotOptimize(json.data());
  }
}
BENCHMARK(BM_FleetSummaryFirstCall)->Unit(benchmark::kMillisecond);

// Anchor: the same metrics' latest points, nothing else.
void BM_AnchorLatestPoints(benchmark::State& state) {
  const WindowStore& w = Fleet();
  for (auto _ : state) {
    double sum = 0;
    for (const char* m : kMetrics) {
      w.ForEach(
          m, kNow - 1'800'000'000'000, kNow,
          [&](const StoredLabels&, std::span<const WindowPoint> p) { sum += p.back().value; });
    }
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_AnchorLatestPoints)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpufleet

BENCHMARK_MAIN();
