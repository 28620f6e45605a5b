// Kubernetes scheduler extender verbs (filter, prioritize) over a gpufleet
// inventory. kube-scheduler POSTs ExtenderArgs ({"pod": Pod, "nodes":
// {"items": [Node...]}} or {"pod": Pod, "nodenames": [...]} when the extender
// is nodeCacheCapable) and expects an ExtenderFilterResult ({"nodes" |
// "nodenames", "failedNodes": {name: reason}, "failedAndUnresolvableNodes",
// "error"}) or a HostPriorityList ([{"host", "score"}], 0..10). Key names
// are matched case-insensitively on input, as Go's encoding/json does.
//
// The Pod becomes a WorkloadRequest:
//   containers' resources (requests, else limits; summed over containers,
//   at least the largest init container): cpu ("500m"), memory ("4Gi"),
//   GPUs from nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 or
//   gpu.intel.com/xe (the vendor comes from the resource name);
//   annotations gpufleet.io/gpu-milli ("250": a share of one GPU),
//   gpufleet.io/gpu-models ("H100-SXM,H200"), gpufleet.io/intent
//   ("latency" | "throughput"), gpufleet.io/software ("cuda=12.4,nccl=2.21",
//   minimums as in request.toml's [software]); nodeSelector
//   topology.kubernetes.io/region.
// Nodes are matched to inventory nodes by name. Capacity failures (cpu,
// memory, GPU room) go to failedNodes (preemption may help); static ones
// (vendor, model, GPU memory, software, interconnect, region) to
// failedAndUnresolvableNodes; nodes not in the inventory to failedNodes
// with "not in gpufleet inventory".
//
// The inventory's free capacity is taken as given: the extender does not
// bind pods or track what kube-scheduler placed (reload the inventory).
//
// Thread safety: stateless functions; callers serialise access to the
// inventory they pass.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "place/feasibility.h"
#include "place/model.h"
#include "place/spec_file.h"

namespace gpufleet::place {

inline constexpr int kMaxExtenderPriority = 10;

// The request a Pod (JSON object text) asks for. Errors name the field
// ("pod.spec.containers[0].resources.limits.nvidia.com/gpu: ...").
StatusOr<WorkloadRequest> PodToRequest(std::string_view pod_json);

struct ExtenderReply {
  int http_status = 200;
  std::string body;  // JSON
};

// POST /filter. Malformed ExtenderArgs are answered 200 with "error" set,
// which kube-scheduler reports as the extender's failure.
ExtenderReply ExtenderFilter(const Inventory& inventory, const SoftwareCompatHook& compat,
                             std::string_view body);

// POST /prioritize: feasible nodes get the policy's score scaled to
// 1..kMaxExtenderPriority (best = 10), infeasible and unknown nodes 0.
// Malformed input: 400.
ExtenderReply ExtenderPrioritize(const Inventory& inventory, std::string_view policy_spec,
                                 const SoftwareCompatHook& compat, std::string_view body);

}  // namespace gpufleet::place
