// Trace-replay placement simulator with the FGD paper's protocol:
//   1. the pod list is sorted by name and shuffled with the seed;
//   2. it is inflated by appending pods sampled uniformly with replacement
//      from the original list until the GPU request reaches `inflate_ratio`
//      x cluster GPU capacity (the authors' tuneUpPods: it stops at the
//      first sample whose per-GPU share would overshoot);
//   3. pods are placed one at a time, no departures, failures stay failed;
//      score ties go to a per-run random node order (see placer.h).
// After every pod it records GPU allocation, fragmentation amount and ratio
// against "arrived workload" (GPU requests submitted so far, failed ones
// included, as % of capacity). Curves are binned per integer arrived
// percent (rounded), averaging the records in each bin.
//
// Thread safety: RunSimulation is reentrant; it owns its cluster and policy.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "place/fragmentation.h"
#include "place/model.h"
#include "place/policy.h"

namespace gpufleet::place {

struct SimOptions {
  std::string policy = "fgd";
  uint64_t seed = 42;
  double inflate_ratio = 1.3;
  int max_arrived_pct = 130;
  double target_coverage = 0.95;  // FGD's podPopularityThreshold
  // Called every `progress_every` pods with (pods done, pods total).
  std::function<void(int, int)> progress;
  int progress_every = 1000;
};

struct SimPoint {
  int arrived_pct = 0;
  int samples = 0;  // records averaged; 0 when no pod landed in this bin
  double alloc_pct = 0;
  double frag_pct = 0;        // fragmentation, % of cluster GPU capacity
  double frag_ratio_pct = 0;  // fragmentation, % of idle GPU capacity
};

struct SimResult {
  std::string policy;
  uint64_t seed = 0;
  int pods_total = 0;
  int pods_failed = 0;
  int total_gpus = 0;
  double seconds = 0;
  std::vector<SimPoint> curve;  // index = arrived percent, 0..max_arrived_pct

  // Value at `pct`, or the nearest earlier bin with samples; NaN if none.
  double AllocAt(int pct) const;
  double FragAt(int pct) const;
  double FragRatioAt(int pct) const;
  double UnallocatedGpusAt(int pct) const;
};

// Applies steps 1-2 of the protocol (exposed for tests).
// The same `rng` then drives tie-breaking, as one seeded source does in the
// authors' simulator.
std::vector<WorkloadRequest> ShuffleAndInflate(const std::vector<WorkloadRequest>& workload,
                                               int64_t cluster_gpu_milli, double ratio, Rng& rng);

// The pods in arrival order and the per-run node tie-break order (rank[n]:
// lower wins ties), exactly as RunSimulation builds them for `seed`; `rng`
// is left where RunSimulation continues with it. For offline analyses of
// the same sequence (placement_bound.h).
struct ArrivedSequence {
  std::vector<WorkloadRequest> pods;
  std::vector<int> rank;
};
ArrivedSequence MakeArrivedSequence(const Cluster& cluster,
                                    const std::vector<WorkloadRequest>& workload, double ratio,
                                    Rng& rng);

StatusOr<SimResult> RunSimulation(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& workload,
                                  const SimOptions& opts);

// CSV: policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct (bins with
// samples only).
std::string CurvesToCsv(const std::vector<SimResult>& results);
// SVG with three panels (allocation, fragmentation amount, fragmentation
// ratio against arrived workload), one curve per policy (seed means).
std::string CurvesToSvg(const std::vector<SimResult>& results, const std::string& title);

}  // namespace gpufleet::place
