// Training split planner: cuts a data-parallel or pipeline-parallel step to
// fit each rank's speed so that ranks finish together.
//
// Data parallel: each rank runs n_i micro-batches of the step (gradient
// accumulation), then all ranks all-reduce; the step takes
// max_i(n_i * t_i) + allreduce_s. The planner assigns the micro-batches one
// at a time to the rank that would finish it earliest, within each rank's
// cap: this is optimal for the min-max integer assignment (exchange
// argument; tests check it against exhaustive search).
//
// Pipeline: stages in rank order hold contiguous layers; with M micro-batches
// and S stages a step takes (M + S - 1) * max_stage(layers_s * layer_s_s)
// (GPipe / 1F1B without interleaving). The planner finds the smallest
// bottleneck by trying every candidate stage time (k * layer_s of a rank) in
// increasing order with a greedy fill, within each stage's layer cap
// (memory).
//
// Both are compared with the even split and the fastest homogeneous subset
// (the ranks of one GPU type alone, split evenly).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace gpufleet::plan {

struct TrainRank {
  std::string name;
  std::string gpu_type;
  double unit_s = 0;      // data: one micro-batch (fwd+bwd); pipeline: one layer, one micro-batch
  int cap = 0;            // data: most micro-batches; pipeline: most layers (memory); 0 = no cap
  bool measured = false;  // unit_s measured (agent) rather than estimated
};

enum class TrainMode { kData, kPipeline };

struct TrainingJob {
  TrainMode mode = TrainMode::kData;
  int microbatches = 0;    // per step, over all ranks (data) / through the pipeline
  int layers = 0;          // pipeline only
  double allreduce_s = 0;  // data: gradient all-reduce per step
  std::vector<TrainRank> ranks;
};

struct Split {
  std::vector<int> units;  // micro-batches (data) or layers (pipeline) per rank
  std::vector<int> ranks;  // indices into job.ranks that take part
  double step_s = 0;
  bool feasible = true;  // false: a cap is exceeded (the even split may be)
};

struct TrainingPlan {
  Split planned;
  Split even;
  Split homogeneous;  // best single-GPU-type subset
  std::string homogeneous_type;
  double bound_s = 0;   // continuous lower bound of the step time
  std::string summary;  // plain-language answer
};

// InvalidArgument on an empty job, non-positive times or caps too small to
// hold the work.
StatusOr<TrainingPlan> PlanTraining(const TrainingJob& job);

// Step time of a given split (micro-batches or layers per rank in order).
double StepTime(const TrainingJob& job, const std::vector<int>& ranks,
                const std::vector<int>& units);

}  // namespace gpufleet::plan
