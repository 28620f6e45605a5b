#include "plan/ring_planner.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace gpufleet::plan {
namespace {

const LinkSpec& LinkBetween(const RingTopology& t, const RingRank& a, const RingRank& b) {
  if (a.cloud == b.cloud && a.region == b.region && a.node == b.node) return t.same_node;
  std::string ra = a.cloud + "/" + a.region, rb = b.cloud + "/" + b.region;
  for (const RegionLink& m : t.measured) {
    if ((m.a == ra && m.b == rb) || (m.a == rb && m.b == ra)) return m.link;
  }
  if (a.cloud != b.cloud) return t.cross_cloud;
  if (a.region != b.region) return t.same_cloud;
  return t.same_region;
}

// Ring step time over `order` sending `chunk` bytes per edge.
double StepTime(const RingTopology& t, const std::vector<int>& order, double chunk) {
  double worst = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const LinkSpec& l = LinkBetween(t, t.ranks[order[i]], t.ranks[order[(i + 1) % order.size()]]);
    worst = std::max(worst, l.latency_s + chunk / l.bandwidth_bytes_per_s);
  }
  return worst;
}

std::vector<int> GroupedOrder(const RingTopology& t, const std::vector<int>& ranks) {
  std::vector<int> order = ranks;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const RingRank& a = t.ranks[x];
    const RingRank& b = t.ranks[y];
    return std::tie(a.cloud, a.region, a.node) < std::tie(b.cloud, b.region, b.node);
  });
  return order;
}

std::string Money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4f", usd);
  return buf;
}

}  // namespace

RingResult EvaluateFlatRing(const RingTopology& t, const std::vector<int>& order) {
  RingResult r;
  r.order = order;
  const double n = static_cast<double>(order.size());
  if (order.size() < 2) return r;
  r.time_s = 2 * (n - 1) * StepTime(t, order, t.message_bytes / n);
  const double per_edge = 2 * (n - 1) / n * t.message_bytes;
  for (size_t i = 0; i < order.size(); ++i) {
    const RingRank& a = t.ranks[order[i]];
    const RingRank& b = t.ranks[order[(i + 1) % order.size()]];
    const LinkSpec& l = LinkBetween(t, a, b);
    r.egress_usd += per_edge / 1e9 * l.egress_usd_per_gb;
    if (a.cloud != b.cloud) {
      ++r.cross_cloud_edges;
      r.cross_cloud_bytes += per_edge;
    }
  }
  return r;
}

StatusOr<RingPlan> PlanRing(const RingTopology& t) {
  if (t.ranks.size() < 2) return InvalidArgumentError("ring: need at least 2 ranks");
  if (!(t.message_bytes > 0)) return InvalidArgumentError("ring: message size must be positive");
  for (const LinkSpec* l : {&t.same_node, &t.same_region, &t.same_cloud, &t.cross_cloud}) {
    if (!(l->bandwidth_bytes_per_s > 0) || l->latency_s < 0 || l->egress_usd_per_gb < 0) {
      return InvalidArgumentError("ring: every link class needs a positive bandwidth");
    }
  }
  for (const RegionLink& m : t.measured) {
    if (!(m.link.bandwidth_bytes_per_s > 0) || m.link.latency_s < 0) {
      return InvalidArgumentError("ring: measured link " + m.a + " - " + m.b +
                                  " needs a positive bandwidth");
    }
  }
  RingPlan plan;
  std::vector<int> all(t.ranks.size());
  std::iota(all.begin(), all.end(), 0);
  plan.naive = EvaluateFlatRing(t, all);
  plan.naive.algorithm = "flat ring (given order)";
  plan.grouped = EvaluateFlatRing(t, GroupedOrder(t, all));
  plan.grouped.algorithm = "flat ring (grouped by cloud, region, node)";

  std::map<std::string, std::vector<int>> clouds;
  for (int i : all) clouds[t.ranks[i].cloud].push_back(i);
  const double k = static_cast<double>(clouds.size());
  plan.clouds = static_cast<int>(clouds.size());
  plan.chosen = plan.grouped;
  if (clouds.size() >= 2) {
    RingResult h;
    h.algorithm = "hierarchical by cloud";
    h.order = plan.grouped.order;
    const double s = t.message_bytes;
    // Inside each cloud: reduce-scatter then all-gather, (m-1) steps each of S/m.
    double intra = 0, egress = 0;
    for (const auto& [cloud, members] : clouds) {
      std::vector<int> inner = GroupedOrder(t, members);
      const double m = static_cast<double>(inner.size());
      if (inner.size() >= 2) {
        intra = std::max(intra, 2 * (m - 1) * StepTime(t, inner, s / m));
        for (size_t i = 0; i < inner.size(); ++i) {
          const LinkSpec& l =
              LinkBetween(t, t.ranks[inner[i]], t.ranks[inner[(i + 1) % inner.size()]]);
          egress += 2 * (m - 1) / m * s / 1e9 * l.egress_usd_per_gb;
        }
      }
    }
    // Across clouds: a ring over the clouds (one representative each) on the
    // whole message (its shards travel in parallel over the same links).
    std::vector<int> reps;
    for (const auto& [cloud, members] : clouds) reps.push_back(GroupedOrder(t, members)[0]);
    double inter = 2 * (k - 1) * StepTime(t, reps, s / k);
    for (size_t i = 0; i < reps.size(); ++i) {
      const LinkSpec& l = LinkBetween(t, t.ranks[reps[i]], t.ranks[reps[(i + 1) % reps.size()]]);
      egress += 2 * (k - 1) / k * s / 1e9 * l.egress_usd_per_gb;
    }
    h.time_s = intra + inter;
    h.cross_cloud_edges = static_cast<int>(k);
    h.cross_cloud_bytes = 2 * (k - 1) * s;
    h.egress_usd = egress;
    plan.hierarchical = h;
    plan.min_cross_cloud_bytes = 2 * (k - 1) * s;
    // Fewest cross-cloud bytes first (the hierarchical form is minimal), then time.
    if (h.cross_cloud_bytes < plan.grouped.cross_cloud_bytes ||
        (h.cross_cloud_bytes == plan.grouped.cross_cloud_bytes && h.time_s < plan.grouped.time_s)) {
      plan.chosen = h;
    }
  }
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "Use a %s over %zu ranks in %d cloud(s): all-reduce of %.0f MiB takes %.3f s "
                "(given order: %.3f s, %.2fx), moves %.0f MiB across clouds (given order: %.0f "
                "MiB, minimum possible %.0f MiB) and costs %s egress per step (given order: %s).",
                plan.chosen.algorithm.c_str(), t.ranks.size(), plan.clouds,
                t.message_bytes / 1048576.0, plan.chosen.time_s, plan.naive.time_s,
                plan.naive.time_s / plan.chosen.time_s, plan.chosen.cross_cloud_bytes / 1048576.0,
                plan.naive.cross_cloud_bytes / 1048576.0, plan.min_cross_cloud_bytes / 1048576.0,
                Money(plan.chosen.egress_usd).c_str(), Money(plan.naive.egress_usd).c_str());
  plan.summary = buf;
  return plan;
}

}  // namespace gpufleet::plan
