// Chooses a node and GPUs for one request: filters the cluster's nodes by
// feasibility, scores the feasible ones with a policy and picks the highest
// score. Ties go to the node with the lowest `tie_rank` when one is given
// (the FGD authors' scheduler fork picks the lexicographically smallest node
// name, and their simulator prefixes names with a random permutation per
// run, so ties follow a fixed random node order); without ranks ties are
// broken uniformly at random (upstream kube-scheduler's selectHost).
//
// Thread safety: none; the cluster, policy and rng belong to the caller.
#pragma once

#include <optional>
#include <vector>

#include "place/feasibility.h"
#include "place/model.h"
#include "place/policy.h"

namespace gpufleet::place {

struct PlacementDecision {
  int node = -1;
  GpuMask gpus = 0;
  double score = 0;
  int feasible_nodes = 0;
};

// std::nullopt when no node can host the request.
std::optional<PlacementDecision> ChooseNode(const Cluster& cluster, const WorkloadRequest& req,
                                            PlacementPolicy& policy, Rng& rng,
                                            const SoftwareCompatHook& compat = {},
                                            const std::vector<int>* tie_rank = nullptr);

// True when only capacity and the model allow-list matter for `req` (the
// trace's case), so the hot path can skip building reasons.
bool HasOnlyModelConstraints(const WorkloadRequest& req);

}  // namespace gpufleet::place
