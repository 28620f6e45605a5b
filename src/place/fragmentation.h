// GPU fragmentation against a target workload, as defined by FGD (Weng et
// al., ATC'23, and pkg/utils/frag.go of their simulator).
//
// The target workload M is a set of "typical" request shapes (CPU milli,
// per-GPU milli, GPU count, model allow-list) with weights p_m summing to 1.
// A node's fragmentation for one shape m, in milli-GPU, is:
//   - all of its idle GPU milli when m needs no GPU, when the node cannot
//     run m's model, when fewer than m.gpu_count devices have m.gpu_milli
//     free, or when it lacks CPU for m;
//   - otherwise the idle milli on devices whose free share is below
//     m.gpu_milli (those devices cannot serve m).
// F_n(M) = sum_m p_m F_n(m); the cluster's is the sum over nodes.
//
// Thread safety: a TargetWorkload is immutable after construction.
#pragma once

#include <string>
#include <vector>

#include "place/model.h"

namespace gpufleet::place {

struct TypicalShape {
  int64_t cpu_milli = 0;
  int64_t gpu_milli = 0;  // per GPU
  int gpu_count = 0;
  std::string gpu_models;  // canonical '|'-joined allow-list, "" = any
  double weight = 0;       // share of pods, renormalised over the kept shapes
  int64_t count = 0;       // pods of this shape in the source workload
  // Mean memory of the shape's pods (MiB). FGD's shapes and measure ignore
  // memory; gpufleet's waste model (gpufleet_policy.h) uses it.
  int64_t memory_mib = 0;
};

class TargetWorkload {
 public:
  TargetWorkload() = default;
  // Groups `workload` by shape, keeps the most frequent shapes until they
  // cover `coverage` (0-1) of the pods (FGD: 0.95, CPU-only pods included),
  // and renormalises their weights. Order: decreasing count; equal counts by
  // decreasing (cpu, gpu_milli, gpu_count, models), which is FGD's order.
  static TargetWorkload FromWorkload(const std::vector<WorkloadRequest>& workload,
                                     double coverage = 0.95);
  static TargetWorkload FromShapes(std::vector<TypicalShape> shapes);

  const std::vector<TypicalShape>& shapes() const { return shapes_; }

  // Precomputes which shapes each node model may run. Call before NodeFrag
  // with the cluster whose nodes will be measured.
  void BindModels(const Cluster& cluster);

  // F_n(M) in milli-GPU for node `node` of the bound cluster, with the given
  // free CPU and per-device free GPU milli (which need not be the node's
  // current state: policies pass hypothetical ones).
  double NodeFrag(int node, int64_t cpu_free_milli, const int64_t* gpu_free, int gpu_count) const;
  double NodeFrag(const Cluster& cluster, int node) const;

 private:
  std::vector<TypicalShape> shapes_;
  // accessible_[model_index_[node]][shape] != 0 when the model may run it.
  std::vector<int> model_index_;
  std::vector<std::vector<char>> accessible_;
};

// Cluster-wide fragmentation, in milli-GPU.
double ClusterFrag(const Cluster& cluster, const TargetWorkload& target);

}  // namespace gpufleet::place
