// How few GPUs can any placement leave unallocated under the FGD protocol
// (simulator.h: pods in arrival order, every pod that fits somewhere is
// placed, failures stay failed, no departures)? Two answers for one arrived
// sequence:
//
//  - a lower bound (HoleLowerBound) that holds for every such placement,
//    online or offline: pods with a GPU share above half a device each hold
//    a device alone, the rest of that device can only take smaller shares,
//    and some of those pods are placed by every placement because the pods
//    before them cannot block every node (CertainlyPlaced);
//  - replays of the same pods with any policy in any order (ReplayPods), e.g.
//    sorted by size (an offline packer that sees the whole sequence).
//
// docs/placement.md ("Is the 80% goal reachable?") has the figures.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "place/model.h"

namespace gpufleet::place {

// For each pod (arrival order), true when every placement that places each
// pod that fits must place it: the pods before it cannot, however they are
// placed, leave every node that could host it (empty) blocked for it. Only
// GPU-share pods with gpu_milli > min_share_milli are examined; the others
// are false.
//
// Relaxation behind it: node n is blocked for pod p (share v, CPU c, memory
// m) only if every device has >= 1001-v milli used, or >= cpu_n-c+1 CPU, or
// >= mem_n-m+1 memory used. A prior pod q put on n contributes at most
// b(q,n) = min(1, max(devices it fills / devices of n, its CPU / CPU cost,
// its memory / memory cost)) towards blocking n (a share w fills
// min(1, w/(1001-v)) of a device), so blocking all nodes of each type needs
// a fractional assignment of prior pods with sum b >= node count. If weights
// y (per node type) exist with sum_t y_t N_t > sum_q max_t y_t b(q,t), no
// such assignment exists (LP duality), and p is certainly placed. Weights
// are searched by exponentiated gradient; a failed search only makes the
// answer more conservative. A weight vector that certifies a prefix
// certifies every shorter one.
std::vector<char> CertainlyPlaced(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& pods,
                                  int64_t min_share_milli = 500);

// The most GPU milli that fillers can put into holes when a filler of size
// w fits any hole of size >= w, pieces being divisible (so an upper bound
// on any real filling): min over thresholds t of
// (sum of fillers < t) + (sum of holes >= t).
int64_t MaxFluidFill(std::vector<int64_t> holes, std::vector<int64_t> fillers);

struct HoleBound {
  int certain_pods = 0;       // share pods > 500 milli every placement places
  int64_t hole_milli = 0;     // sum of (1000 - share) over them
  int64_t max_fill_milli = 0; // the most that all smaller shares in the sequence could fill
  double UnallocatedGpus() const {
    return static_cast<double>(hole_milli - max_fill_milli) / static_cast<double>(kMilliPerGpu);
  }
};

// Lower bound on the unallocated GPUs after the whole sequence for every
// placement that places each pod that fits: the holes beside the certainly
// placed pods above 500 milli (each holds a device alone) minus the most
// that every pod of a smaller share in the sequence could fill (fillers are
// counted whether or not they are placed; CPU and memory are ignored).
HoleBound HoleLowerBound(const std::vector<NodeSpec>& nodes,
                         const std::vector<WorkloadRequest>& pods);

struct ReplayResult {
  int placed = 0;
  int failed = 0;
  int total_gpus = 0;
  double unallocated_gpus_end = 0;
  // The simulator's figure (mean over the records whose arrived share
  // rounds to 130%, or to the nearest earlier percent with records);
  // meaningful in arrival order only. NaN when there is none.
  double unallocated_gpus_at_130 = 0;
  // Pods by kind: the per-GPU milli of a one-GPU pod, 1000 * n for n whole
  // GPUs (n > 1), 0 for CPU-only pods.
  std::map<int64_t, int> placed_by_kind, failed_by_kind;
  // GPU pods that found no node while at most 100% of capacity had arrived.
  int failed_gpu_pods_by_100 = 0;
  // Devices by free milli at the end (only devices with 0 < free < 1000).
  std::map<int64_t, int> partly_free_devices;
};

// Places `pods` in the given order with `policy` (as RunSimulation: the
// target workload comes from `workload`, ties go to `rank`).
StatusOr<ReplayResult> ReplayPods(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& workload,
                                  const std::vector<WorkloadRequest>& pods,
                                  const std::vector<int>& rank, const std::string& policy);

// `pods` by decreasing total GPU milli, then per-GPU milli, CPU and memory
// (stable): what an offline packer that may reorder would do.
std::vector<WorkloadRequest> SortedBySizeDecreasing(std::vector<WorkloadRequest> pods);

}  // namespace gpufleet::place
