#include "place/placement_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "place/fragmentation.h"
#include "place/placer.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

struct NodeType {
  const NodeSpec* spec = nullptr;  // a representative
  double count = 0;
};

using ShapeKey = std::tuple<int64_t, int64_t, int, int64_t, std::vector<std::string>>;

ShapeKey KeyOf(const WorkloadRequest& r) {
  return {r.cpu_milli, r.memory_mib, r.gpu_count, r.gpu_milli, r.gpu_models};
}

// True when `q` fits an empty node of `spec` (capacity and model).
bool FitsEmpty(const NodeSpec& spec, const WorkloadRequest& q) {
  if (q.cpu_milli > spec.cpu_milli || q.memory_mib > spec.memory_mib) return false;
  if (!q.needs_gpu()) return true;
  return spec.gpu_count >= q.gpu_count && q.gpu_milli <= kMilliPerGpu &&
         ModelAllowed(q, spec.gpu_model);
}

// Share of a node of type `t` that prior pod `q` can block for `p`
// (b(q,t) in the header).
double BlockShare(const NodeSpec& t, const WorkloadRequest& q, const WorkloadRequest& p) {
  if (!FitsEmpty(t, q)) return 0;
  double dev = 0;
  if (q.needs_gpu()) {
    const double need = static_cast<double>(kMilliPerGpu - p.gpu_milli + 1);
    const double per = q.is_gpu_share() ? std::min(1.0, static_cast<double>(q.gpu_milli) / need)
                                        : static_cast<double>(q.gpu_count);
    dev = per / t.gpu_count;
  }
  const double cpu = static_cast<double>(q.cpu_milli) /
                     static_cast<double>(t.cpu_milli - p.cpu_milli + 1);
  const double mem = static_cast<double>(q.memory_mib) /
                     static_cast<double>(t.memory_mib - p.memory_mib + 1);
  return std::min(1.0, std::max({dev, cpu, mem}));
}

// Searches node-type weights z (simplex; y_t = z_t / N_t) minimising
// sum_q n_q max_t z_t b(q,t) / N_t; a value below 1 certifies that the
// prior pods cannot block every node.
bool Certified(const std::vector<NodeType>& types, const std::vector<std::vector<double>>& b,
               const std::vector<double>& counts) {
  const size_t T = types.size();
  const size_t Q = counts.size();
  std::vector<double> z(T, 1.0 / static_cast<double>(T));
  std::vector<double> grad(T);
  for (int it = 0; it < 400; ++it) {
    std::fill(grad.begin(), grad.end(), 0.0);
    double g = 0;
    for (size_t q = 0; q < Q; ++q) {
      if (counts[q] == 0) continue;
      double best = 0;
      size_t arg = T;
      for (size_t t = 0; t < T; ++t) {
        double v = z[t] * b[q][t] / types[t].count;
        if (v > best) best = v, arg = t;
      }
      if (arg == T) continue;
      g += counts[q] * best;
      grad[arg] += counts[q] * b[q][arg] / types[arg].count;
    }
    if (g < 1.0 - 1e-9) return true;
    const double eta = 2.0 / std::sqrt(static_cast<double>(it) + 1.0);
    double sum = 0;
    for (size_t t = 0; t < T; ++t) sum += z[t] *= std::exp(-eta * grad[t]);
    for (double& v : z) v /= sum;
  }
  return false;
}

}  // namespace

std::vector<char> CertainlyPlaced(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& pods,
                                  int64_t min_share_milli) {
  std::vector<char> out(pods.size(), 0);
  // Node types: nodes with the same capacity and model are interchangeable.
  std::map<std::tuple<int64_t, int64_t, int, std::string>, NodeType> by_spec;
  for (const NodeSpec& n : nodes) {
    NodeType& t = by_spec[{n.cpu_milli, n.memory_mib, n.gpu_count, n.gpu_model}];
    t.spec = &n;
    t.count += 1;
  }
  // Prior pods by shape: shape ids and, per prefix, counts.
  std::map<ShapeKey, int> ids;
  std::vector<const WorkloadRequest*> reps;
  std::vector<int> shape_of(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    auto [it, inserted] = ids.emplace(KeyOf(pods[i]), static_cast<int>(reps.size()));
    if (inserted) reps.push_back(&pods[i]);
    shape_of[i] = it->second;
  }
  // Each examined shape: find a long prefix that is certified; every pod of
  // the shape inside it is certainly placed.
  std::map<ShapeKey, std::vector<size_t>> targets;
  for (size_t i = 0; i < pods.size(); ++i) {
    const WorkloadRequest& p = pods[i];
    if (p.is_gpu_share() && p.needs_gpu() && p.gpu_milli > min_share_milli) {
      targets[KeyOf(p)].push_back(i);
    }
  }
  for (const auto& [key, idx] : targets) {
    const WorkloadRequest& p = pods[idx.front()];
    std::vector<NodeType> types;
    for (const auto& [k, t] : by_spec) {
      if (FitsEmpty(*t.spec, p)) types.push_back(t);
    }
    if (types.empty()) continue;
    std::vector<std::vector<double>> b(reps.size(), std::vector<double>(types.size()));
    for (size_t q = 0; q < reps.size(); ++q) {
      for (size_t t = 0; t < types.size(); ++t) b[q][t] = BlockShare(*types[t].spec, *reps[q], p);
    }
    auto certified_prefix = [&](size_t len) {
      std::vector<double> counts(reps.size(), 0.0);
      for (size_t i = 0; i < len; ++i) counts[shape_of[i]] += 1;
      return Certified(types, b, counts);
    };
    // Largest certified prefix length among the shape's arrival indices.
    size_t lo = 0, hi = idx.size();  // idx[0..lo) known certified
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (certified_prefix(idx[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) continue;
    // The weights that certify prefix idx[lo-1] certify all shorter ones.
    for (size_t k = 0; k < lo; ++k) out[idx[k]] = 1;
  }
  return out;
}

int64_t MaxFluidFill(std::vector<int64_t> holes, std::vector<int64_t> fillers) {
  std::vector<int64_t> cuts = holes;
  cuts.insert(cuts.end(), fillers.begin(), fillers.end());
  cuts.push_back(0);
  cuts.push_back(std::numeric_limits<int64_t>::max());
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::sort(holes.begin(), holes.end());
  std::sort(fillers.begin(), fillers.end());
  int64_t best = std::numeric_limits<int64_t>::max();
  size_t f = 0, h = 0;
  int64_t fillers_below = 0, holes_below = 0, holes_total = 0;
  for (int64_t x : holes) holes_total += x;
  for (int64_t t : cuts) {
    while (f < fillers.size() && fillers[f] < t) fillers_below += fillers[f++];
    while (h < holes.size() && holes[h] < t) holes_below += holes[h++];
    best = std::min(best, fillers_below + (holes_total - holes_below));
  }
  return best;
}

HoleBound HoleLowerBound(const std::vector<NodeSpec>& nodes,
                         const std::vector<WorkloadRequest>& pods) {
  constexpr int64_t kHalf = kMilliPerGpu / 2;
  std::vector<char> certain = CertainlyPlaced(nodes, pods, kHalf);
  HoleBound out;
  std::vector<int64_t> holes, fillers;
  int64_t largest_hole = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (!certain[i]) continue;
    ++out.certain_pods;
    holes.push_back(kMilliPerGpu - pods[i].gpu_milli);
    largest_hole = std::max(largest_hole, holes.back());
  }
  for (const WorkloadRequest& q : pods) {
    if (q.needs_gpu() && q.is_gpu_share() && q.gpu_milli <= largest_hole) {
      fillers.push_back(q.gpu_milli);
    }
  }
  for (int64_t h : holes) out.hole_milli += h;
  out.max_fill_milli = MaxFluidFill(holes, fillers);
  return out;
}

StatusOr<ReplayResult> ReplayPods(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& workload,
                                  const std::vector<WorkloadRequest>& pods,
                                  const std::vector<int>& rank, const std::string& policy_spec) {
  Cluster cluster(nodes);
  if (static_cast<int>(rank.size()) != cluster.size()) {
    return InvalidArgumentError("replay: rank has " + std::to_string(rank.size()) +
                                " entries for " + std::to_string(cluster.size()) + " nodes");
  }
  TargetWorkload target = TargetWorkload::FromWorkload(workload, 0.95);
  ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> policy, MakePolicy(policy_spec, target));
  Rng rng(0);  // used only by randomised policies; ties follow `rank`
  ReplayResult out;
  out.total_gpus = cluster.total_gpus();
  const double capacity = static_cast<double>(cluster.total_gpu_milli());
  int64_t arrived = 0;
  std::vector<double> bin_sum(131, 0.0);
  std::vector<int> bin_n(131, 0);
  for (const WorkloadRequest& pod : pods) {
    arrived += pod.total_gpu_milli();
    std::optional<PlacementDecision> d = ChooseNode(cluster, pod, *policy, rng, {}, &rank);
    const int64_t kind = pod.gpu_count > 1 ? pod.total_gpu_milli() : pod.gpu_milli;
    if (d) {
      cluster.Place(d->node, d->gpus, pod);
      ++out.placed;
      ++out.placed_by_kind[kind];
    } else {
      ++out.failed;
      ++out.failed_by_kind[kind];
      if (pod.needs_gpu() && static_cast<double>(arrived) <= capacity) ++out.failed_gpu_pods_by_100;
    }
    const long bin = std::lround(static_cast<double>(arrived) / capacity * 100.0);
    if (bin >= 0 && bin <= 130) {
      bin_sum[bin] += capacity - static_cast<double>(cluster.used_gpu_milli());
      ++bin_n[bin];
    }
  }
  for (int n = 0; n < cluster.size(); ++n) {
    for (int64_t f : cluster.state(n).gpu_free_milli) {
      if (f > 0 && f < kMilliPerGpu) ++out.partly_free_devices[f];
    }
  }
  out.unallocated_gpus_end =
      (capacity - static_cast<double>(cluster.used_gpu_milli())) / kMilliPerGpu;
  out.unallocated_gpus_at_130 = std::numeric_limits<double>::quiet_NaN();
  for (int b = 130; b >= 0; --b) {
    if (bin_n[b] == 0) continue;
    out.unallocated_gpus_at_130 = bin_sum[b] / bin_n[b] / kMilliPerGpu;
    break;
  }
  return out;
}

std::vector<WorkloadRequest> SortedBySizeDecreasing(std::vector<WorkloadRequest> pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const WorkloadRequest& a, const WorkloadRequest& b) {
    return std::make_tuple(a.total_gpu_milli(), a.gpu_milli, a.cpu_milli, a.memory_mib) >
           std::make_tuple(b.total_gpu_milli(), b.gpu_milli, b.cpu_milli, b.memory_mib);
  });
  return pods;
}

}  // namespace gpufleet::place
