// One placement decision with its explanation: the chosen node and GPUs, the
// runners-up with their scores, and every rejected node with its reason. The
// `gpufleet place` CLI, the server's POST /api/v1/place and the Kubernetes
// extender all answer from this, so they agree.
//
// Ties go to the node listed first (inventory order), so answers are
// deterministic.
//
// Thread safety: stateless functions; the policy belongs to the caller.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "place/feasibility.h"
#include "place/fragmentation.h"
#include "place/model.h"
#include "place/policy.h"

namespace gpufleet::place {

struct ScoredNode {
  int node = -1;
  double score = 0;
};

struct Rejection {
  int node = -1;
  RejectReason reason = RejectReason::kNone;
  std::string detail;
};

struct PlacementReport {
  std::optional<ScoredNode> chosen;
  GpuMask gpus = 0;  // on the chosen node
  // Every feasible node, best first (the chosen one first), ties in node order.
  std::vector<ScoredNode> feasible;
  // Infeasible nodes in node order.
  std::vector<Rejection> rejections;
};

// The workload mix FGD and gpufleet measure fragmentation against when there
// is no trace to learn it from: GPU shares of 0.5, 1, 2, 4 and 8 whole GPUs
// and CPU-only pods, weighted towards small requests (see docs/placement.md).
TargetWorkload DefaultPlacementTarget();

// MakePolicy(spec, DefaultPlacementTarget()).
StatusOr<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(std::string_view spec);

PlacementReport ExplainPlacement(const Cluster& cluster, const WorkloadRequest& req,
                                 PlacementPolicy& policy, const SoftwareCompatHook& compat);

// GPU indices in a mask, ascending.
std::vector<int> GpuIndices(GpuMask mask);

// JSON answer: {"request", "policy", "placed", "node", "gpus", "score",
// "cost_usd_per_hour", "alternatives": [{"node", "score", "cost_usd_per_hour"}],
// "rejections": [{"node", "reason", "detail"}], "rejected_by_reason":
// {"software": ["n1", ...]}}. At most `max_alternatives` runners-up.
std::string PlacementReportJson(const Cluster& cluster, const WorkloadRequest& req,
                                std::string_view policy, const PlacementReport& report,
                                int max_alternatives);

// The same for a terminal: the decision, then the runners-up, then the
// rejected nodes grouped by reason.
std::string PlacementReportText(const Cluster& cluster, const WorkloadRequest& req,
                                std::string_view policy, const PlacementReport& report,
                                int max_alternatives);

}  // namespace gpufleet::place
