// Fuzzes the plan component's readers: training job and ring topology TOML,
// inference options TOML, model and GPU type tables, the Azure request trace
// CSV and the calibration data formats (splitwise-sim, Vidur, DistServe,
// LLMCompass, dstack). Whatever parses is planned (small inputs only) and
// must hold the planners' invariants.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "plan/calibration_data.h"
#include "plan/gpu_type.h"
#include "plan/model_spec.h"
#include "plan/plan_input.h"
#include "plan/plan_service.h"
#include "plan/request_trace.h"

using namespace gpufleet::plan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // Ranks with measured_workload read a stub store when the input's length
  // is odd (the server's path), none when even (the CLI's).
  const StepLookup lookup = [](std::string_view, std::string_view node) {
    return node.empty() ? std::optional<MeasuredSteps>() : MeasuredSteps{0.1, 10, 1800};
  };
  auto job = ParseTrainingJob(in, "fuzz", nullptr, size % 2 ? &lookup : nullptr);
  if (job.ok() && job->ranks.size() <= 64 && job->microbatches <= 4096 && job->layers <= 4096) {
    auto plan = PlanTraining(*job);
    if (plan.ok()) {
      int total = 0;
      for (int u : plan->planned.units) total += u;
      int want = job->mode == TrainMode::kData ? job->microbatches : job->layers;
      if (total != want) __builtin_trap();
      if (plan->planned.step_s > plan->even.step_s * (1 + 1e-9) && plan->even.feasible &&
          job->mode == TrainMode::kData) {
        __builtin_trap();
      }
    }
  }
  auto ring = ParseRingTopology(in, "fuzz");
  if (ring.ok() && ring->ranks.size() <= 64) {
    auto plan = PlanRing(*ring);
    if (plan.ok() && plan->chosen.cross_cloud_bytes > plan->naive.cross_cloud_bytes * (1 + 1e-9)) {
      __builtin_trap();
    }
  }
  (void)ParseInferenceOptions(in, "fuzz", "/nonexistent");
  (void)ParseModels(in, "fuzz");
  (void)ParseGpuTypes(in, "fuzz");
  auto trace = ParseAzureTrace(in, "fuzz");
  if (trace.ok()) {
    for (size_t i = 1; i < trace->requests.size(); ++i) {
      if (trace->requests[i].arrival_s < trace->requests[i - 1].arrival_s) __builtin_trap();
    }
  }
  int skipped = 0;
  (void)ParseSplitwise(in, "fuzz", &skipped);
  (void)ParseVidurMlp(in, "fuzz", "h100", "llama2-7b");
  (void)ParseDistServe(in, "fuzz");
  (void)ParseLlmCompassMatmul(in, "fuzz", "mi210");
  (void)ParseDstack(in, "fuzz", &skipped);
  return 0;
}
