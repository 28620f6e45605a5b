// TOML inputs of `gpufleet plan training` and `gpufleet plan ring`
// (examples in data/plan/). Errors name file:line and field.
//
// Training:
//   mode = "data"            # or "pipeline"
//   microbatches = 64
//   allreduce_ms = 40        # data parallel: gradient all-reduce per step
//   layers = 80              # pipeline
//   model = "llama2-7b"      # to estimate times not measured (with tokens_per_microbatch)
//   tokens_per_microbatch = 4096
//   [[rank]]
//   gpu = "h100"             # data/plan/gpus.toml type or hardware catalog key
//   count = 4                # ranks alike (default 1)
//   name = "node-a"          # prefix of rank names
//   microbatch_ms = 120      # measured (data); layer_ms for pipeline
//   max_microbatches = 0     # memory cap (data); max_layers for pipeline
//   measured_workload = "llm-mb"  # steps reported to the agent: one per
//                            # micro-batch (data) / per micro-batch through
//                            # this rank's stage (pipeline)
//   measured_layers = 20     # pipeline: the layers that stage held
//   node = "gpu-node-7"      # only steps reported from this node
//
// Ring:
//   message_mib = 1024
//   [links.node] / [links.region] / [links.cloud] / [links.intercloud]
//     gb_s = 300, latency_us = 5, egress_usd_per_gb = 0
//   [[rank]]  node = "a1", cloud = "aws", region = "us-east-1", count = 8
//   [[link]]  a = "aws/us-east-1", b = "gcp/us-central1", gb_s = 1.2, latency_us = 12000
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "plan/calibration.h"
#include "plan/ring_planner.h"
#include "plan/training_planner.h"

namespace gpufleet::plan {

// What the agent measured of a workload's steps: their median and count
// over the lookup's window, and the window's length.
struct MeasuredSteps {
  double median_s = 0;
  int64_t points = 0;
  double window_s = 0;
};
// The steps of `workload` (gpu_workload_step_duration_seconds'
// workload_name), reported from `node` when it is not empty; nullopt when
// none.
using StepLookup =
    std::function<std::optional<MeasuredSteps>(std::string_view workload, std::string_view node)>;

// `table` estimates the times of ranks without measured times (may be null
// when every rank is measured). A rank with `measured_workload` takes the
// median of that workload's reported steps from `lookup` (the server's
// store; null from the CLI), else its `microbatch_ms` / `layer_ms`, else the
// estimate; what was used is said in `notes`.
StatusOr<TrainingJob> ParseTrainingJob(std::string_view toml, std::string_view origin,
                                       const LatencyTable* table,
                                       const StepLookup* lookup = nullptr,
                                       std::vector<std::string>* notes = nullptr);
StatusOr<RingTopology> ParseRingTopology(std::string_view toml, std::string_view origin);

}  // namespace gpufleet::plan
