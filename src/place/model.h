// Inventory and workload models of the placement engine.
//
// Units: CPU in milli-cores (1000 = one vCPU), memory in MiB, GPU share in
// milli-GPU per device (1000 = a whole GPU). A request for a fraction of a GPU
// is only ever for one device (gpu_count == 1, gpu_milli < 1000), as in
// Kubernetes GPU-sharing schedulers and the Alibaba trace.
//
// Thread safety: plain values; a Cluster is not synchronised (one writer).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpufleet::place {

inline constexpr int64_t kMilliPerGpu = 1000;
// GPU indices on one node are a bitmask; nodes with more devices are rejected
// by the loaders.
inline constexpr int kMaxGpusPerNode = 32;
using GpuMask = uint32_t;

enum class Intent { kUnspecified, kLatency, kThroughput };

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpu_count = 0;
  std::string gpu_model;  // "" for a node without GPUs
  std::string vendor;     // "nvidia", "amd", "intel" or "" when unknown
  int64_t gpu_memory_mib = 0;  // per device; 0 when unknown
  std::map<std::string, std::string> software;  // e.g. {"cuda", "12.4"}, {"driver", "550.54"}
  std::string interconnect;                     // e.g. "nvlink", "xgmi", "pcie"; "" unknown
  std::string cloud, region, zone;
  double price_usd_per_gpu_hour = 0;
};

struct WorkloadRequest {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpu_count = 0;
  int64_t gpu_milli = 0;                // per GPU; 1000 for whole GPUs
  std::vector<std::string> gpu_models;  // allow-list (OR); empty = any model
  std::string vendor;                   // "" = any
  int64_t min_gpu_memory_mib = 0;
  std::map<std::string, std::string> software;  // required component -> version
  std::string interconnect;                     // "" = no need
  std::string region;                           // "" = anywhere
  Intent intent = Intent::kUnspecified;
  int priority = 0;
  // Objective (place/objective_choice.h); "" = the placement policy alone.
  std::string objective;      // "fastest", "cheapest-per-job", "cheapest-meeting-deadline"
  double deadline_hours = 0;  // for cheapest-meeting-deadline
  std::string job_type;       // the job's profile: a job type of Gavel's table
  double steps = 0;           // total steps (iterations) of the job

  bool needs_gpu() const { return gpu_count > 0 && gpu_milli > 0; }
  bool is_gpu_share() const { return gpu_count == 1 && gpu_milli < kMilliPerGpu; }
  int64_t total_gpu_milli() const { return gpu_count * gpu_milli; }
};

// Free capacity of one node. gpu_free_milli has one entry per device, in
// device index order.
struct NodeState {
  int64_t cpu_free_milli = 0;
  int64_t memory_free_mib = 0;
  std::vector<int64_t> gpu_free_milli;
  // How many placed GPU workloads of each kind the node holds: key 0 counts
  // GPU-share pods, key n counts pods of n whole GPUs (GpuClustering's
  // "affinity").
  std::map<int, int> gpu_affinity;
  uint64_t version = 0;  // bumped by every change

  int64_t total_gpu_free_milli() const;
  int fully_free_gpus() const;
  // The `count` lowest-indexed fully free GPUs (fewer when not enough are).
  GpuMask LowestFullyFreeGpus(int count) const;
};

// Nodes plus their free capacity. Node indices are stable.
class Cluster {
 public:
  explicit Cluster(std::vector<NodeSpec> nodes);
  // Nodes with given free capacity (e.g. from an inventory file).
  // REQUIRES: states.size() == nodes.size() and each state has one entry per GPU.
  Cluster(std::vector<NodeSpec> nodes, std::vector<NodeState> states);

  int size() const { return static_cast<int>(nodes_.size()); }
  const NodeSpec& spec(int i) const { return nodes_[i]; }
  const NodeState& state(int i) const { return states_[i]; }
  const std::vector<NodeSpec>& specs() const { return nodes_; }

  int64_t total_gpu_milli() const { return total_gpu_milli_; }
  int64_t used_gpu_milli() const { return used_gpu_milli_; }
  int total_gpus() const { return static_cast<int>(total_gpu_milli_ / kMilliPerGpu); }

  // Takes the request's resources from node `node`, GPUs in `gpus`.
  // REQUIRES: the placement is feasible (CanHost and the GPUs have room).
  void Place(int node, GpuMask gpus, const WorkloadRequest& req);

 private:
  std::vector<NodeSpec> nodes_;
  std::vector<NodeState> states_;
  int64_t total_gpu_milli_ = 0;
  int64_t used_gpu_milli_ = 0;
};

// Affinity key used by GpuClustering: 0 for GPU-share, n for n whole GPUs,
// -1 for CPU-only requests.
int GpuAffinityKey(const WorkloadRequest& req);

// True when the node's model is in the request's allow-list (or the list is
// empty). A typed request never matches a node without GPUs.
bool ModelAllowed(const WorkloadRequest& req, const std::string& node_model);

}  // namespace gpufleet::place
