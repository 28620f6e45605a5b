// Fuzzes `gpufleet advise`'s readers: the jobs file (TOML) and the server's
// answers it builds its snapshot from (fleet, cost, recent cost, step-series
// and canary JSON). The
// first byte picks which input the rest is; the others are fixed, valid
// answers. No crash; an error always has a message; every job in a snapshot
// runs on at least one device, has a measured step time > 0 exactly when it
// has step reports, every free-capacity entry has a free device, and canary
// factors are in (0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/advise_client.h"

namespace {

constexpr std::string_view kFleet =
    R"({"devices":[{"node":"n1","model":"NVIDIA H100 80GB HBM3","cloud":"aws","region":"us-east-1",)"
    R"("workload":"train,train-0","up":true,"stale":false,"open_incidents":1},)"
    R"({"node":"n2","model":"AMD Instinct MI300X OAM","cloud":"azure","region":"eastus",)"
    R"("workload":"","up":true,"stale":false,"open_incidents":0}]})";
constexpr std::string_view kCost =
    R"({"rows":[{"group":{"workload":"train-0","node":"n1"},"gpu_hours":1,"allocation_usd":6,)"
    R"("idle_gpu_hours":0,"idle_usd":0,"lost_gpu_hours":0.1}]})";
constexpr std::string_view kSteps =
    R"({"series":[{"labels":{"workload_pod":"train-0"},"t":[1,2],"v":[0.5,null]}]})";
constexpr std::string_view kCanary =
    R"({"runs":[{"id":1,"target":"n2","checks":[{"name":"gemm","verdict":"regression",)"
    R"("value":8,"baseline":10,"unit":"flop_per_second"}]}]})";
constexpr std::string_view kJobs =
    "[[job]]\nname = \"train\"\njob_type = \"ResNet-50 (batch size 64)\"\nremaining_steps = 1000\n";

void Check(const gpufleet::StatusOr<gpufleet::AdviseSnapshot>& s) {
  if (!s.ok()) {
    if (s.status().message().empty()) std::abort();
    return;
  }
  for (const auto& j : s->jobs) {
    if (j.gpus < 1) std::abort();
    if ((j.measured_step_s > 0) != (j.step_samples > 0)) std::abort();
    if (!(j.measured_step_s >= 0) || !std::isfinite(j.measured_step_s)) std::abort();
  }
  for (const auto& c : s->capacity) {
    if (c.free_gpus < 1) std::abort();
    if (!(c.canary.factor > 0 && c.canary.factor <= 1)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  if (size < 1) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto valid_jobs = ParseAdviseJobs(kJobs, "advise.toml");
  if (!valid_jobs.ok()) std::abort();
  AdviseAnswers answers{.fleet = kFleet,
                        .cost_by_workload = kCost,
                        .cost_by_node = kCost,
                        .cost_by_workload_recent = kCost,
                        .step_series = kSteps,
                        .canary_runs = kCanary};
  switch (data[0] % 7) {
    case 0: {
      auto jobs = ParseAdviseJobs(rest, "advise.toml");
      if (!jobs.ok()) {
        if (jobs.status().message().empty()) std::abort();
        return 0;
      }
      Check(SnapshotFromApis(answers, *jobs));
      return 0;
    }
    case 1:
      answers.fleet = rest;
      break;
    case 2:
      answers.cost_by_workload = rest;
      break;
    case 3:
      answers.cost_by_node = rest;
      break;
    case 4:
      answers.step_series = rest;
      break;
    case 5:
      answers.canary_runs = rest;
      break;
    default:
      answers.cost_by_workload_recent = rest;
      break;
  }
  Check(SnapshotFromApis(answers, *valid_jobs));
  return 0;
}
