// Placements per second per policy on the Alibaba default trace (FGD
// protocol, seed 42). Skips when ../shared/traces is not beside the clone.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "place/alibaba_csv.h"
#include "place/simulator.h"

namespace {

const std::string kDir = std::string(GPUFLEET_SOURCE_DIR) + "/../shared/traces/alibaba-gpu-v2023";

void BM_PlaceDefaultTrace(benchmark::State& state, const char* policy) {
  auto nodes = gpufleet::place::LoadAlibabaNodes(kDir + "/openb_node_list_gpu_node.csv");
  auto pods = gpufleet::place::LoadAlibabaPods(kDir + "/openb_pod_list_default.csv");
  if (!nodes.ok() || !pods.ok()) {
    state.SkipWithError("trace not found beside the repository");
    return;
  }
  int64_t placed = 0;
  for (auto _ : state) {
    gpufleet::place::SimOptions o;
    o.policy = policy;
    auto r = gpufleet::place::RunSimulation(nodes->rows, pods->rows, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    placed += r->pods_total;
  }
  state.counters["placements_per_s"] =
      benchmark::Counter(static_cast<double>(placed), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, random, "random")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, dotprod, "dotprod")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, gpuclustering, "gpuclustering")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, gpupacking, "gpupacking")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, bestfit, "bestfit")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, fgd, "fgd")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlaceDefaultTrace, gpufleet, "gpufleet")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
