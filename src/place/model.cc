#include "place/model.h"

#include <utility>

#include "core/status.h"

namespace gpufleet::place {

int64_t NodeState::total_gpu_free_milli() const {
  int64_t t = 0;
  for (int64_t g : gpu_free_milli) t += g;
  return t;
}

int NodeState::fully_free_gpus() const {
  int n = 0;
  for (int64_t g : gpu_free_milli) n += g == kMilliPerGpu;
  return n;
}

GpuMask NodeState::LowestFullyFreeGpus(int count) const {
  GpuMask m = 0;
  for (int g = 0; g < static_cast<int>(gpu_free_milli.size()) && count > 0; ++g) {
    if (gpu_free_milli[g] == kMilliPerGpu) {
      m |= GpuMask{1} << g;
      --count;
    }
  }
  return m;
}

Cluster::Cluster(std::vector<NodeSpec> nodes) : nodes_(std::move(nodes)) {
  states_.resize(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    NodeState& s = states_[i];
    s.cpu_free_milli = nodes_[i].cpu_milli;
    s.memory_free_mib = nodes_[i].memory_mib;
    s.gpu_free_milli.assign(nodes_[i].gpu_count, kMilliPerGpu);
    total_gpu_milli_ += nodes_[i].gpu_count * kMilliPerGpu;
  }
}

Cluster::Cluster(std::vector<NodeSpec> nodes, std::vector<NodeState> states)
    : nodes_(std::move(nodes)), states_(std::move(states)) {
  GPUFLEET_CHECK(states_.size() == nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    GPUFLEET_CHECK(static_cast<int>(states_[i].gpu_free_milli.size()) == nodes_[i].gpu_count);
    total_gpu_milli_ += nodes_[i].gpu_count * kMilliPerGpu;
    used_gpu_milli_ += nodes_[i].gpu_count * kMilliPerGpu - states_[i].total_gpu_free_milli();
  }
}

void Cluster::Place(int node, GpuMask gpus, const WorkloadRequest& req) {
  NodeState& s = states_[node];
  s.cpu_free_milli -= req.cpu_milli;
  s.memory_free_mib -= req.memory_mib;
  if (req.needs_gpu()) {
    int used = 0;
    for (int g = 0; g < static_cast<int>(s.gpu_free_milli.size()); ++g) {
      if (!(gpus & (GpuMask{1} << g))) continue;
      GPUFLEET_CHECK(s.gpu_free_milli[g] >= req.gpu_milli);
      s.gpu_free_milli[g] -= req.gpu_milli;
      used_gpu_milli_ += req.gpu_milli;
      ++used;
    }
    GPUFLEET_CHECK(used == req.gpu_count);
    ++s.gpu_affinity[GpuAffinityKey(req)];
  }
  ++s.version;
}

int GpuAffinityKey(const WorkloadRequest& req) {
  if (!req.needs_gpu()) return -1;
  return req.is_gpu_share() ? 0 : req.gpu_count;
}

bool ModelAllowed(const WorkloadRequest& req, const std::string& node_model) {
  if (req.gpu_models.empty()) return true;
  if (node_model.empty()) return false;
  for (const std::string& m : req.gpu_models) {
    if (m == node_model) return true;
  }
  return false;
}

}  // namespace gpufleet::place
