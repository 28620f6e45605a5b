// Speed of a full inference plan (issue 18): Llama-2-70B over the 19,366
// requests of the Azure conversation trace with three GPU types (A100,
// H100, MI300X), on one core. Printed against an anchor measured in the
// same run: one simulation of the trace through a single-type cluster.
// Skips when ../shared/traces is not beside the clone.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "plan/calibration.h"
#include "plan/inference_bound.h"
#include "plan/inference_planner.h"

using namespace gpufleet::plan;

namespace {

double Seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

}  // namespace

int main() {
  const std::string shared = std::string(GPUFLEET_SOURCE_DIR) + "/../shared";
  const std::string path = shared + "/traces/azure-llm-2023/AzureLLMInferenceTrace_conv.csv";
  if (!std::filesystem::exists(path)) {
    std::printf("plan_bench: skipped, %s not found (../shared is not beside the clone)\n",
                path.c_str());
    return 0;
  }
  auto trace = LoadAzureTrace(path);
  auto data = LoadCalibrationData(shared);
  if (!trace.ok() || !data.ok()) {
    std::fprintf(stderr, "plan_bench: %s %s\n", trace.status().ToString().c_str(),
                 data.status().ToString().c_str());
    return 1;
  }
  std::vector<GpuType> types = {ResolveGpuType("a100-80gb").value(), ResolveGpuType("h100").value(),
                                ResolveGpuType("mi300x").value()};
  auto table = BuildLatencyTable(*data, types);
  if (!table.ok()) return 1;
  InferenceRequest req;
  req.model = FindModel("llama2-70b").value();
  req.trace = &*trace;
  req.types = types;
  req.table = &*table;

  // Anchor: one full simulation, 4 x H100 TP8 colocated (the planner's
  // batching), no early stop.
  ServingConfig anchor;
  anchor.model = req.model;
  anchor.batching = req.batching;
  anchor.prefill = PoolSpec{table->Find("h100"), 3.99, 8, 4};
  auto t0 = std::chrono::steady_clock::now();
  auto sim = Simulate(*trace, anchor, req.slo, false);
  double anchor_s = Seconds(t0);
  if (!sim.ok()) return 1;

  t0 = std::chrono::steady_clock::now();
  auto plan = PlanInference(req);
  double plan_s = Seconds(t0);
  if (!plan.ok()) return 1;
  // Every plan answer (CLI, API) also carries the cost bounds, the TTFT
  // bound's search included.
  t0 = std::chrono::steady_clock::now();
  auto bound = BoundInferenceCost(req);
  double bound_s = Seconds(t0);
  if (!bound.ok()) return 1;
  std::printf("requests: %zu\n", trace->requests.size());
  std::printf("anchor (one single-type simulation, 4 x h100 TP8): %.3f s\n", anchor_s);
  std::printf(
      "full plan (3 GPU types, TP 1-8, colocated + disaggregated, %d simulations): %.3f s\n",
      plan->simulations, plan_s);
  std::printf("cost bounds (fluid and TTFT, every type and TP): %.3f s\n", bound_s);
  std::printf("ratio plan + bounds / anchor: %.1fx (goal: plan < 10 s on one core)\n",
              (plan_s + bound_s) / anchor_s);
  std::printf("plan: %s\n", plan->summary.c_str());
  return 0;
}
