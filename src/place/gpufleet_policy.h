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

  // Nodes with the same index run the same shapes (same GPU model); Waste
  // depends on a node only through it.
  int model_class(int node) const { return model_index_[node]; }

  // GPU milli of a node that shape `s` can use: 0 when s needs no GPU, the
  // model is not allowed or fewer than s.gpu_count devices have room;
  // otherwise the free milli of the devices with room (FGD's complement),
  // capped at copies * s's GPU milli when the free CPU or memory allow fewer
  // copies of s than the devices do.
  static int64_t Usable(const TypicalShape& s, bool model_ok, int64_t cpu_free_milli,
                        int64_t memory_free_mib, const int64_t* gpu_free, int gpu_count);

 private:
  static std::vector<std::string> SplitModels(const std::string& joined);

  // Shapes with the same GPU demand share the per-device part of Usable
  // (devices with room, their milli, copies they hold), which Waste computes
  // once per group; the result is the same as calling Usable per shape.
  struct GpuGroup {
    int64_t gpu_milli = 0;
    int gpu_count = 0;
  };
  static constexpr size_t kMaxGroups = 64;  // more: Waste falls back to Usable per shape

  std::vector<TypicalShape> shapes_;
  std::vector<GpuGroup> groups_;
  std::vector<int> group_of_;  // per shape; -1 when it needs no GPU
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
