// WindowStore ingest and read speed: samples/s appended (the server's ingest
// hot path) for a fleet-shaped label set, single- and multi-threaded, and a
// detector-style read of one metric over 5 minutes.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "store/window_store.h"

namespace gpufleet {
namespace {

constexpr int kGpus = 4096;  // 512 nodes x 8
constexpr int kMetrics = 16;

std::vector<Labels> FleetSeries() {
  std::vector<Labels> out;
  for (int m = 0; m < kMetrics; ++m) {
    for (int g = 0; g < kGpus; ++g) {
      out.push_back(Labels{{"__name__", "gpu_metric_" + std::to_string(m) + "_ratio"},
                           {"node", "node-" + std::to_string(g / 8)},
                           {"gpu", std::to_string(g % 8)},
                           {"gpu_uuid", "GPU-" + std::to_string(1000000 + g)},
                           {"model", "NVIDIA H100 80GB HBM3"},
                           {"cloud", "aws"},
                           {"region", "us-east-1"},
                           {"vendor", "nvidia"}});
    }
  }
  return out;
}

void BM_Append(benchmark::State& state) {
  static const std::vector<Labels>* series = new std::vector<Labels>(FleetSeries());
  static WindowStore* store = nullptr;
  if (state.thread_index() == 0) store = new WindowStore(WindowStoreOptions{});
  int64_t t = 1'000'000'000LL * (1 + state.thread_index());
  size_t i = static_cast<size_t>(state.thread_index());
  for (auto _ : state) {
    store->Append((*series)[i], t, 0.5);
    i += static_cast<size_t>(state.threads());
    if (i >= series->size()) {
      i = static_cast<size_t>(state.thread_index());
      t += 10'000'000'000LL;
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete store;
    store = nullptr;
  }
}
BENCHMARK(BM_Append)->Threads(1)->Threads(4)->UseRealTime();

void BM_ForEachFiveMinutes(benchmark::State& state) {
  WindowStore store(WindowStoreOptions{});
  const std::vector<Labels> series = FleetSeries();
  for (int step = 0; step < 30; ++step) {
    for (int g = 0; g < kGpus; ++g) store.Append(series[g], step * 10'000'000'000LL, 0.5);
  }
  for (auto _ : state) {
    size_t points = 0;
    store.ForEach(
        "gpu_metric_0_ratio", 0, 300'000'000'000LL,
        [&](const StoredLabels&, std::span<const WindowPoint> pts) { points += pts.size(); });
    benchmark::DoNotOptimize(points);
  }
  state.SetItemsProcessed(state.iterations() * kGpus * 30);
}
BENCHMARK(BM_ForEachFiveMinutes);

}  // namespace
}  // namespace gpufleet

BENCHMARK_MAIN();
