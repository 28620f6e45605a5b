// gpufleet's waste model: FGD's fragmentation measure extended with how many
// copies of each target shape a node's free CPU and memory still allow.
// NewGpufleetPolicy (policy.h) scores nodes by the waste a placement removes.
//
// Thread safety: immutable after Bind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "place/fragmentation.h"
#include "place/model.h"

namespace gpufleet::place {

class GpufleetWasteModel {
 public:
  explicit GpufleetWasteModel(const TargetWorkload& target);

  // Precomputes which shapes each node's model may run; call with the
  // cluster whose nodes will be measured.
  void Bind(const Cluster& cluster);

  // Expected waste of node `node` in milli-GPU: sum over target shapes s of
  // weight_s * (idle GPU milli - Usable(s)). The free resources given need
  // not be the node's current ones (policies pass hypothetical states).
  double Waste(int node, int64_t cpu_free_milli, int64_t memory_free_mib,
               const int64_t* gpu_free, int gpu_count) const;

  // GPU milli of a node that shape `s` can use: 0 when s needs no GPU, the
  // model is not allowed or fewer than s.gpu_count devices have room;
  // otherwise the free milli of the devices with room (FGD's complement),
  // capped at copies * s's GPU milli when the free CPU or memory allow fewer
  // copies of s than the devices do.
  static int64_t Usable(const TypicalShape& s, bool model_ok, int64_t cpu_free_milli,
                        int64_t memory_free_mib, const int64_t* gpu_free, int gpu_count);

 private:
  static std::vector<std::string> SplitModels(const std::string& joined);

  std::vector<TypicalShape> shapes_;
  std::vector<int> model_index_;
  std::vector<std::vector<char>> access_;
};

// CPU per GPU milli of the target's GPU shapes (weighted mean); 0 when the
// target has no GPU shape.
double TargetCpuPerGpuMilli(const TargetWorkload& target);

// GPUs of a node that its free CPU cannot feed: free GPU milli beyond
// free CPU / c, in GPUs, where c = min(the node's CPU per GPU milli as built,
// the target's). Using the node's own ratio when it is lower keeps CPU-poor
// nodes (16 cores for 2 GPUs) from looking starved when empty; using the
// target's when it is lower keeps CPU-rich nodes (104 cores for 2 GPUs) from
// looking starved after CPU-only pods took part of their CPU.
double CpuStarvedGpus(const NodeSpec& spec, double target_cpu_per_gpu_milli,
                      double gpu_free_milli, double cpu_free_milli);

}  // namespace gpufleet::place
