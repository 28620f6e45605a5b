#include "place/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "place/placer.h"

namespace gpufleet::place {
namespace {

double At(const std::vector<SimPoint>& curve, int pct, double SimPoint::*field) {
  for (int p = std::min<int>(pct, static_cast<int>(curve.size()) - 1); p >= 0; --p) {
    if (curve[p].samples > 0) return curve[p].*field;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

double SimResult::AllocAt(int pct) const { return At(curve, pct, &SimPoint::alloc_pct); }
double SimResult::FragAt(int pct) const { return At(curve, pct, &SimPoint::frag_pct); }
double SimResult::FragRatioAt(int pct) const { return At(curve, pct, &SimPoint::frag_ratio_pct); }
double SimResult::UnallocatedGpusAt(int pct) const {
  return (100.0 - AllocAt(pct)) / 100.0 * total_gpus;
}

std::vector<WorkloadRequest> ShuffleAndInflate(const std::vector<WorkloadRequest>& workload,
                                               int64_t cluster_gpu_milli, double ratio,
                                               Rng& rng) {
  std::vector<WorkloadRequest> sorted = workload;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const WorkloadRequest& a, const WorkloadRequest& b) { return a.name < b.name; });
  std::vector<WorkloadRequest> out = sorted;
  // Fisher-Yates with our own draws, so every platform shuffles alike.
  for (size_t i = out.size(); i > 1; --i) {
    std::swap(out[i - 1], out[rng.Uniform(i)]);
  }
  if (sorted.empty() || ratio <= 0) return out;
  int64_t total = 0;
  for (const WorkloadRequest& r : out) total += r.total_gpu_milli();
  const double target = ratio * static_cast<double>(cluster_gpu_milli);
  for (int i = 0;; ++i) {
    const WorkloadRequest& pick = sorted[rng.Uniform(sorted.size())];
    // The authors compare with the per-GPU share, not the pod's total; kept
    // as is so the inflated workloads have the same size.
    if (static_cast<double>(total + pick.gpu_milli) > target) break;
    total += pick.total_gpu_milli();
    out.push_back(pick);
    out.back().name += "-tuned-" + std::to_string(i);
  }
  return out;
}

ArrivedSequence MakeArrivedSequence(const Cluster& cluster,
                                    const std::vector<WorkloadRequest>& workload, double ratio,
                                    Rng& rng) {
  ArrivedSequence seq;
  seq.pods = ShuffleAndInflate(workload, cluster.total_gpu_milli(), ratio, rng);
  // Node tie-break order: a random permutation per run, like the authors'
  // "%04d-" name prefixes (see placer.h).
  seq.rank.resize(cluster.size());
  for (int n = 0; n < cluster.size(); ++n) seq.rank[n] = n;
  for (size_t i = seq.rank.size(); i > 1; --i) std::swap(seq.rank[i - 1], seq.rank[rng.Uniform(i)]);
  return seq;
}

StatusOr<SimResult> RunSimulation(const std::vector<NodeSpec>& nodes,
                                  const std::vector<WorkloadRequest>& workload,
                                  const SimOptions& opts) {
  if (nodes.empty()) return InvalidArgumentError("simulation needs at least one node");
  if (workload.empty()) return InvalidArgumentError("simulation needs at least one pod");
  auto start = std::chrono::steady_clock::now();
  Cluster cluster(nodes);
  if (cluster.total_gpu_milli() == 0) {
    return InvalidArgumentError("the cluster has no GPUs; nothing to simulate");
  }
  TargetWorkload target = TargetWorkload::FromWorkload(workload, opts.target_coverage);
  ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> policy, MakePolicy(opts.policy, target));
  target.BindModels(cluster);

  Rng rng(opts.seed);
  ArrivedSequence seq = MakeArrivedSequence(cluster, workload, opts.inflate_ratio, rng);
  const std::vector<WorkloadRequest>& pods = seq.pods;
  const std::vector<int>& rank = seq.rank;

  SimResult result;
  result.policy = std::string(policy->name());
  result.seed = opts.seed;
  result.pods_total = static_cast<int>(pods.size());
  result.total_gpus = cluster.total_gpus();
  result.curve.resize(opts.max_arrived_pct + 1);
  for (int p = 0; p <= opts.max_arrived_pct; ++p) result.curve[p].arrived_pct = p;

  std::vector<double> node_frag(cluster.size());
  double frag = 0;
  for (int n = 0; n < cluster.size(); ++n) frag += node_frag[n] = target.NodeFrag(cluster, n);

  const double capacity = static_cast<double>(cluster.total_gpu_milli());
  int64_t arrived = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    const WorkloadRequest& pod = pods[i];
    arrived += pod.total_gpu_milli();
    std::optional<PlacementDecision> d = ChooseNode(cluster, pod, *policy, rng, {}, &rank);
    if (d) {
      cluster.Place(d->node, d->gpus, pod);
      double f = target.NodeFrag(cluster, d->node);
      frag += f - node_frag[d->node];
      node_frag[d->node] = f;
    } else {
      ++result.pods_failed;
    }
    int bin = static_cast<int>(std::lround(static_cast<double>(arrived) / capacity * 100.0));
    if (bin >= 0 && bin <= opts.max_arrived_pct) {
      SimPoint& pt = result.curve[bin];
      double idle = capacity - static_cast<double>(cluster.used_gpu_milli());
      pt.alloc_pct += static_cast<double>(cluster.used_gpu_milli()) / capacity * 100.0;
      pt.frag_pct += frag / capacity * 100.0;
      pt.frag_ratio_pct += idle > 0 ? frag / idle * 100.0 : 0.0;
      ++pt.samples;
    }
    if (opts.progress && opts.progress_every > 0 && (i + 1) % opts.progress_every == 0) {
      opts.progress(static_cast<int>(i + 1), result.pods_total);
    }
  }
  for (SimPoint& pt : result.curve) {
    if (pt.samples == 0) continue;
    pt.alloc_pct /= pt.samples;
    pt.frag_pct /= pt.samples;
    pt.frag_ratio_pct /= pt.samples;
  }
  if (opts.progress) opts.progress(result.pods_total, result.pods_total);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gpufleet::place
