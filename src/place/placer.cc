#include "place/placer.h"

namespace gpufleet::place {

bool HasOnlyModelConstraints(const WorkloadRequest& req) {
  return req.vendor.empty() && req.region.empty() && req.software.empty() &&
         req.interconnect.empty() && req.min_gpu_memory_mib == 0;
}

std::optional<PlacementDecision> ChooseNode(const Cluster& cluster, const WorkloadRequest& req,
                                            PlacementPolicy& policy, Rng& rng,
                                            const SoftwareCompatHook& compat,
                                            const std::vector<int>* tie_rank) {
  const bool fast = HasOnlyModelConstraints(req);
  policy.BeginRequest(cluster, req, rng);
  PlacementDecision best;
  int ties = 0;
  for (int n = 0; n < cluster.size(); ++n) {
    const NodeSpec& spec = cluster.spec(n);
    const NodeState& state = cluster.state(n);
    if (fast) {
      if (req.needs_gpu() && (spec.gpu_count == 0 || !ModelAllowed(req, spec.gpu_model))) continue;
      if (!FitsCapacity(state, req)) continue;
    } else if (!CheckFeasible(spec, state, req, compat).ok()) {
      continue;
    }
    ++best.feasible_nodes;
    double s = policy.Score(cluster, n, req);
    if (best.node < 0 || s > best.score) {
      best.node = n;
      best.score = s;
      ties = 1;
    } else if (s == best.score) {
      if (tie_rank) {
        if ((*tie_rank)[n] < (*tie_rank)[best.node]) best.node = n;
      } else if (rng.Uniform(static_cast<uint64_t>(++ties)) == 0) {
        // Reservoir sampling keeps each tied node with equal probability.
        best.node = n;
      }
    }
  }
  if (best.node < 0) return std::nullopt;
  best.gpus = policy.ChooseGpus(cluster, best.node, req, rng);
  return best;
}

}  // namespace gpufleet::place
