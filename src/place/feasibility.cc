#include "place/feasibility.h"

namespace gpufleet::place {
namespace {

std::optional<std::string> DefaultCompat(const NodeSpec& node, const WorkloadRequest& req) {
  for (const auto& [component, version] : req.software) {
    auto it = node.software.find(component);
    if (it == node.software.end()) return "requires " + component + " " + version + ", node has none";
    if (it->second != version) {
      return "requires " + component + " " + version + ", node has " + it->second;
    }
  }
  return std::nullopt;
}

Feasibility Reject(RejectReason r, std::string detail) { return {r, std::move(detail)}; }

}  // namespace

std::string_view RejectReasonName(RejectReason r) {
  switch (r) {
    case RejectReason::kNone: return "ok";
    case RejectReason::kRegion: return "region";
    case RejectReason::kVendor: return "vendor";
    case RejectReason::kModel: return "model";
    case RejectReason::kGpuMemory: return "gpu_memory";
    case RejectReason::kInterconnect: return "interconnect";
    case RejectReason::kSoftware: return "software";
    case RejectReason::kCpu: return "cpu";
    case RejectReason::kMemory: return "memory";
    case RejectReason::kGpuCapacity: return "gpu_capacity";
  }
  return "unknown";
}

int GpusWithRoom(const NodeState& state, int64_t gpu_milli) {
  int n = 0;
  for (int64_t g : state.gpu_free_milli) n += g >= gpu_milli;
  return n;
}

bool FitsCapacity(const NodeState& state, const WorkloadRequest& req) {
  if (state.cpu_free_milli < req.cpu_milli || state.memory_free_mib < req.memory_mib) return false;
  if (!req.needs_gpu()) return true;
  return GpusWithRoom(state, req.gpu_milli) >= req.gpu_count;
}

Feasibility CheckStatic(const NodeSpec& node, const WorkloadRequest& req,
                        const SoftwareCompatHook& compat) {
  if (!req.region.empty() && req.region != node.region) {
    return Reject(RejectReason::kRegion,
                  "requires region " + req.region + ", node is in '" + node.region + "'");
  }
  if (!req.needs_gpu()) return {};
  if (node.gpu_count == 0) return Reject(RejectReason::kModel, "node has no GPUs");
  if (!req.vendor.empty() && req.vendor != node.vendor) {
    return Reject(RejectReason::kVendor,
                  "requires vendor " + req.vendor + ", node has '" + node.vendor + "'");
  }
  if (!ModelAllowed(req, node.gpu_model)) {
    std::string list;
    for (const std::string& m : req.gpu_models) list += (list.empty() ? "" : "|") + m;
    return Reject(RejectReason::kModel,
                  "requires model " + list + ", node has " + node.gpu_model);
  }
  if (req.min_gpu_memory_mib > 0 && node.gpu_memory_mib < req.min_gpu_memory_mib) {
    return Reject(RejectReason::kGpuMemory,
                  "requires " + std::to_string(req.min_gpu_memory_mib) + " MiB per GPU, node has " +
                      std::to_string(node.gpu_memory_mib));
  }
  if (!req.interconnect.empty() && req.interconnect != node.interconnect) {
    return Reject(RejectReason::kInterconnect, "requires " + req.interconnect + ", node has '" +
                                                   node.interconnect + "'");
  }
  if (!req.software.empty()) {
    std::optional<std::string> why = compat ? compat(node, req) : DefaultCompat(node, req);
    if (why) return Reject(RejectReason::kSoftware, *why);
  }
  return {};
}

Feasibility CheckFeasible(const NodeSpec& node, const NodeState& state,
                          const WorkloadRequest& req, const SoftwareCompatHook& compat) {
  Feasibility f = CheckStatic(node, req, compat);
  if (!f.ok()) return f;
  if (state.cpu_free_milli < req.cpu_milli) {
    return Reject(RejectReason::kCpu, "needs " + std::to_string(req.cpu_milli) +
                                          " milli-CPU, node has " +
                                          std::to_string(state.cpu_free_milli) + " free");
  }
  if (state.memory_free_mib < req.memory_mib) {
    return Reject(RejectReason::kMemory, "needs " + std::to_string(req.memory_mib) +
                                             " MiB, node has " +
                                             std::to_string(state.memory_free_mib) + " free");
  }
  if (req.needs_gpu()) {
    int room = GpusWithRoom(state, req.gpu_milli);
    if (room < req.gpu_count) {
      return Reject(RejectReason::kGpuCapacity,
                    "needs " + std::to_string(req.gpu_count) + " GPU(s) with " +
                        std::to_string(req.gpu_milli) + " milli free, node has " +
                        std::to_string(room));
    }
  }
  return {};
}

}  // namespace gpufleet::place
