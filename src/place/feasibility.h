// Can a node host a request? Every rejection carries a reason, so the CLI,
// the scheduler extender and the simulator's failure counts can explain it.
//
// Checks, in order: region, vendor, GPU model allow-list, per-GPU memory,
// interconnect, software compatibility (through a pluggable hook, so the
// compatibility table in src/schema can be wired in without this component
// depending on it), then capacity: CPU, memory, and GPUs with enough free
// milli-GPU (whole GPUs need fully free devices).
//
// Thread safety: stateless functions; the hook must be safe to call from the
// calling thread.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "place/model.h"

namespace gpufleet::place {

enum class RejectReason {
  kNone,
  kRegion,
  kVendor,
  kModel,
  kGpuMemory,
  kInterconnect,
  kSoftware,
  kCpu,
  kMemory,
  kGpuCapacity,
};

std::string_view RejectReasonName(RejectReason r);

struct Feasibility {
  RejectReason reason = RejectReason::kNone;
  std::string detail;  // human-readable, names the numbers that did not fit
  bool ok() const { return reason == RejectReason::kNone; }
};

// Returns a reason when `node` cannot run `req` (e.g. "requires cuda>=12.4,
// node has 12.2"), std::nullopt when it can. The default hook requires each
// requested software component to be present with exactly the same version
// string; src/compat/compat_* can supply a real one.
using SoftwareCompatHook =
    std::function<std::optional<std::string>(const NodeSpec&, const WorkloadRequest&)>;

// Static checks that do not depend on free capacity.
Feasibility CheckStatic(const NodeSpec& node, const WorkloadRequest& req,
                        const SoftwareCompatHook& compat = {});

// Static checks plus capacity against the node's current free state.
Feasibility CheckFeasible(const NodeSpec& node, const NodeState& state,
                          const WorkloadRequest& req, const SoftwareCompatHook& compat = {});

// Capacity only, without building strings: the simulator's hot path.
bool FitsCapacity(const NodeState& state, const WorkloadRequest& req);

// GPUs with room for one device's share of `req`.
int GpusWithRoom(const NodeState& state, int64_t gpu_milli);

}  // namespace gpufleet::place
