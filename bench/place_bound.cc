// Lower bound and offline replays for the placement goal (docs/placement.md,
// "Is the 80% goal reachable?"). For each seed it rebuilds the arrived pod
// sequence exactly as `gpufleet sim place` does and prints:
//   - the hole lower bound (placement_bound.h) on unallocated GPUs;
//   - each policy replayed in arrival order (the simulator's figure at 130%,
//     a check that the sequence is the simulator's) and on the same pods
//     sorted by decreasing size (an offline packer that may reorder).
//
// usage: place_bound [--trace-dir DIR] [--pods NAME] [--seed N] [--seeds K]
//                    [--policy P]... [--no-sorted] [--window W]... [--rollout K:H:P]...
// --rollout K:H:P adds a hindsight replay in arrival order: for each GPU pod
// once P% of capacity has arrived, gpufleet's K best-scored nodes are each
// tried, followed by the next H pods placed with bestfit, and the one with
// the most GPU milli allocated at the end of that look wins (every pod that
// fits is still placed; it only sees the future to choose where).
// PLACE_BOUND_DETAIL=1 prints, per replay in arrival order, placed/failed
// pods by kind (per-GPU milli; 1000*n for n GPUs; 0 CPU-only) on stderr.
// --window W adds a replay where the pods are sorted by size within each run
// of W consecutive arrivals (how much reordering is worth).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "place/alibaba_csv.h"
#include "place/feasibility.h"
#include "place/fragmentation.h"
#include "place/placer.h"
#include "place/placement_bound.h"
#include "place/simulator.h"

namespace {

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "place_bound: %s\nusage: place_bound [--trace-dir DIR] [--pods NAME] [--seed N] "
               "[--seeds K] [--policy P]... [--no-sorted] [--window W]... [--rollout K:H:P]...\n",
               why.c_str());
  return 2;
}

struct Rollout {
  int k = 0;
  size_t horizon = 0;
  double from_pct = 0;
};

// Returns the unallocated GPUs at the end (and via at130 the simulator's
// figure) of the hindsight rollout replay described at the top.
double RolloutReplay(const std::vector<gpufleet::place::NodeSpec>& nodes,
                     const std::vector<gpufleet::place::WorkloadRequest>& workload,
                     const gpufleet::place::ArrivedSequence& seq, const Rollout& ro,
                     double* at130) {
  using namespace gpufleet::place;
  Cluster cluster(nodes);
  TargetWorkload target = TargetWorkload::FromWorkload(workload, 0.95);
  auto policy = MakePolicy("gpufleet", target);
  auto fast = MakePolicy("bestfit", target);
  if (!policy.ok() || !fast.ok()) return -1;
  Rng rng(0);
  const double capacity = static_cast<double>(cluster.total_gpu_milli());
  int64_t arrived = 0;
  double sum130 = 0;
  int n130 = 0;
  std::vector<std::pair<double, int>> cands;
  for (size_t i = 0; i < seq.pods.size(); ++i) {
    const WorkloadRequest& pod = seq.pods[i];
    arrived += pod.total_gpu_milli();
    const bool look = pod.needs_gpu() && static_cast<double>(arrived) / capacity * 100 >= ro.from_pct;
    if (!look) {
      auto d = ChooseNode(cluster, pod, **policy, rng, {}, &seq.rank);
      if (d) cluster.Place(d->node, d->gpus, pod);
    } else {
      (*policy)->BeginRequest(cluster, pod, rng);
      cands.clear();
      for (int n = 0; n < cluster.size(); ++n) {
        const NodeSpec& spec = cluster.spec(n);
        if (spec.gpu_count == 0 || !ModelAllowed(pod, spec.gpu_model)) continue;
        if (!FitsCapacity(cluster.state(n), pod)) continue;
        cands.emplace_back((*policy)->Score(cluster, n, pod), n);
      }
      std::sort(cands.begin(), cands.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return seq.rank[a.second] < seq.rank[b.second];
      });
      int best = -1;
      GpuMask best_gpus = 0;
      int64_t best_used = -1;
      int tried = 0;
      for (size_t c = 0; c < cands.size() && tried < ro.k; ++c) {
        if (c > 0 && cands[c].first == cands[c - 1].first) continue;
        ++tried;
        const int n = cands[c].second;
        GpuMask gpus = (*policy)->ChooseGpus(cluster, n, pod, rng);
        Cluster copy = cluster;
        copy.Place(n, gpus, pod);
        for (size_t j = i + 1; j < seq.pods.size() && j <= i + ro.horizon; ++j) {
          auto d = ChooseNode(copy, seq.pods[j], **fast, rng, {}, &seq.rank);
          if (d) copy.Place(d->node, d->gpus, seq.pods[j]);
        }
        if (copy.used_gpu_milli() > best_used) {
          best_used = copy.used_gpu_milli();
          best = n;
          best_gpus = gpus;
        }
      }
      if (best >= 0) cluster.Place(best, best_gpus, pod);
    }
    if (std::lround(static_cast<double>(arrived) / capacity * 100.0) == 130) {
      sum130 += capacity - static_cast<double>(cluster.used_gpu_milli());
      ++n130;
    }
  }
  *at130 = n130 ? sum130 / n130 / 1000.0 : -1;
  return (capacity - static_cast<double>(cluster.used_gpu_milli())) / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpufleet::place;
  std::string dir = std::string(GPUFLEET_SOURCE_DIR) + "/../shared/traces/alibaba-gpu-v2023";
  std::string pods_name = "openb_pod_list_default";
  uint64_t seed = 42;
  int seeds = 4;
  bool sorted = true;
  std::vector<std::string> policies;
  std::vector<size_t> windows;
  std::vector<Rollout> rollouts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--no-sorted") {
      sorted = false;
    } else if (a == "--trace-dir" || a == "--pods" || a == "--seed" || a == "--seeds" ||
               a == "--policy" || a == "--window" || a == "--rollout") {
      if (!(v = value())) return Usage(a + " needs a value");
      if (a == "--trace-dir") dir = v;
      if (a == "--pods") pods_name = v;
      if (a == "--seed") seed = std::strtoull(v, nullptr, 10);
      if (a == "--seeds") seeds = std::atoi(v);
      if (a == "--policy") policies.push_back(v);
      if (a == "--window") windows.push_back(std::strtoull(v, nullptr, 10));
      if (a == "--rollout") {
        Rollout r;
        unsigned long long h = 0;
        if (std::sscanf(v, "%d:%llu:%lf", &r.k, &h, &r.from_pct) != 3 || r.k < 1) {
          return Usage("--rollout wants K:H:P, e.g. 3:300:105");
        }
        r.horizon = h;
        rollouts.push_back(r);
      }
    } else {
      return Usage("unknown argument '" + a + "'");
    }
  }
  if (policies.empty()) policies = {"fgd", "gpufleet"};
  auto nodes = LoadAlibabaNodes(dir + "/openb_node_list_gpu_node.csv");
  if (!nodes.ok()) return Usage(nodes.status().ToString());
  auto pods = LoadAlibabaPods(dir + "/" + pods_name + ".csv");
  if (!pods.ok()) return Usage(pods.status().ToString());

  std::printf("trace %s\n", pods_name.c_str());
  std::printf("seed,certain_pods_over_500,hole_gpus,max_fill_gpus,lower_bound_gpus");
  for (const std::string& p : policies) {
    std::printf(",%s_at130,%s_end%s", p.c_str(), p.c_str(), sorted ? (",sorted_" + p).c_str() : "");
    for (size_t w : windows) std::printf(",window%zu_%s", w, p.c_str());
  }
  for (const Rollout& r : rollouts) {
    std::printf(",rollout%d_%zu_%g_at130,rollout%d_%zu_%g_end", r.k, r.horizon, r.from_pct, r.k,
                r.horizon, r.from_pct);
  }
  std::printf("\n");
  for (int s = 0; s < seeds; ++s) {
    Cluster cluster(nodes->rows);
    Rng rng(seed + static_cast<uint64_t>(s));
    ArrivedSequence seq = MakeArrivedSequence(cluster, pods->rows, 1.3, rng);
    HoleBound b = HoleLowerBound(nodes->rows, seq.pods);
    std::printf("%llu,%d,%.1f,%.1f,%.1f", static_cast<unsigned long long>(seed + s),
                b.certain_pods, static_cast<double>(b.hole_milli) / 1000.0,
                static_cast<double>(b.max_fill_milli) / 1000.0, b.UnallocatedGpus());
    std::vector<WorkloadRequest> by_size;
    if (sorted) by_size = SortedBySizeDecreasing(seq.pods);
    for (const std::string& p : policies) {
      auto r = ReplayPods(nodes->rows, pods->rows, seq.pods, seq.rank, p);
      if (!r.ok()) return Usage(r.status().ToString());
      std::printf(",%.3f,%.3f", r->unallocated_gpus_at_130, r->unallocated_gpus_end);
      if (std::getenv("PLACE_BOUND_DETAIL")) {
        std::fprintf(stderr, "%s seed %llu: GPU pods failed by 100%% arrived: %d; kind placed/failed:",
                     p.c_str(), static_cast<unsigned long long>(seed + s), r->failed_gpu_pods_by_100);
        for (const auto& [kind, n] : r->placed_by_kind) {
          auto f = r->failed_by_kind.find(kind);
          std::fprintf(stderr, " %lld:%d/%d", static_cast<long long>(kind), n,
                       f == r->failed_by_kind.end() ? 0 : f->second);
        }
        std::fprintf(stderr, "\n  partly free devices at the end (free milli:count):");
        for (const auto& [f, n] : r->partly_free_devices) {
          std::fprintf(stderr, " %lld:%d", static_cast<long long>(f), n);
        }
        std::fprintf(stderr, "\n");
      }
      if (sorted) {
        auto o = ReplayPods(nodes->rows, pods->rows, by_size, seq.rank, p);
        if (!o.ok()) return Usage(o.status().ToString());
        std::printf(",%.1f", o->unallocated_gpus_end);
      }
      for (size_t w : windows) {
        std::vector<WorkloadRequest> win = seq.pods;
        for (size_t at = 0; w > 0 && at < win.size(); at += w) {
          const size_t end = std::min(win.size(), at + w);
          std::vector<WorkloadRequest> part(win.begin() + at, win.begin() + end);
          part = SortedBySizeDecreasing(std::move(part));
          std::move(part.begin(), part.end(), win.begin() + at);
        }
        auto o = ReplayPods(nodes->rows, pods->rows, win, seq.rank, p);
        if (!o.ok()) return Usage(o.status().ToString());
        std::printf(",%.1f", o->unallocated_gpus_end);
      }
    }
    for (const Rollout& r : rollouts) {
      double at130 = 0;
      double end = RolloutReplay(nodes->rows, pods->rows, seq, r, &at130);
      std::printf(",%.1f,%.1f", at130, end);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
