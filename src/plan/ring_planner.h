// Ring order planner: orders the ranks of an all-reduce over nodes, regions
// and clouds, and chooses a hierarchical all-reduce where that wins.
//
// Cost model (bandwidth-latency, per link class or measured pair):
//  flat ring of n ranks, message S: 2(n-1) steps; in each, every ring edge
//    sends S/n at once, so a step takes max_edge(latency + S/n / bandwidth);
//    every edge carries 2(n-1)/n * S per all-reduce.
//  hierarchical by cloud (k clouds): reduce-scatter on a ring inside each
//    cloud, an all-reduce of the shards across clouds (one ring over the k
//    clouds per shard, sharing the inter-cloud links), an all-gather inside
//    each cloud; the inter-cloud edges carry 2(k-1)/k * S each, 2(k-1) * S
//    in all.
// Cross-cloud bytes: a ring visiting k >= 2 clouds crosses a cloud border at
// least k times, and the planner's flat order (grouped by cloud, region,
// node) crosses exactly k times. Any all-reduce across k clouds that moves
// (partial) sums moves at least 2(k-1) * S across cloud borders (docs/plan.md
// gives the argument); the hierarchical form meets that bound, so the
// planner's choice has the minimum cross-cloud bytes.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace gpufleet::plan {

struct RingRank {
  std::string name;
  std::string node;
  std::string cloud;
  std::string region;
};

struct LinkSpec {
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
  double egress_usd_per_gb = 0;  // charged on bytes leaving the sender
};

// A measured link between two regions ("cloud/region"), overriding the class.
struct RegionLink {
  std::string a;
  std::string b;
  LinkSpec link;
};

struct RingTopology {
  std::vector<RingRank> ranks;  // in the naive (given) order
  LinkSpec same_node, same_region, same_cloud, cross_cloud;
  std::vector<RegionLink> measured;
  double message_bytes = 0;
};

struct RingResult {
  std::string
      algorithm;  // "flat ring (given order)", "flat ring (grouped)", "hierarchical by cloud"
  std::vector<int> order;  // rank indices, the flat ring (grouped within clouds when hierarchical)
  double time_s = 0;
  double cross_cloud_bytes = 0;
  int cross_cloud_edges = 0;
  double egress_usd = 0;
};

struct RingPlan {
  RingResult naive;
  RingResult grouped;
  RingResult hierarchical;  // only when more than one cloud
  RingResult chosen;
  double min_cross_cloud_bytes = 0;  // 2(k-1)S for k clouds
  int clouds = 0;
  std::string summary;
};

// Cost of a flat ring in the given order.
RingResult EvaluateFlatRing(const RingTopology& t, const std::vector<int>& order);

StatusOr<RingPlan> PlanRing(const RingTopology& t);

}  // namespace gpufleet::plan
