// The FGD paper's baseline policies, scored exactly as the authors'
// simulator does (see policy.h).
#include <algorithm>
#include <cmath>

#include "place/policy.h"

namespace gpufleet::place {
namespace {

class RandomPolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "random"; }
  // An independent uniform draw per node: the maximum lands on each feasible
  // node with equal probability, whatever the selector's tie-break.
  void BeginRequest(const Cluster&, const WorkloadRequest&, Rng& rng) override { rng_ = &rng; }
  double Score(const Cluster&, int, const WorkloadRequest&) override {
    return static_cast<double>(rng_->Next() >> 11);
  }
  GpuMask ChooseGpus(const Cluster& cluster, int node, const WorkloadRequest& req,
                     Rng& rng) override {
    const NodeState& st = cluster.state(node);
    if (!req.needs_gpu()) return 0;
    if (!req.is_gpu_share()) return st.LowestFullyFreeGpus(req.gpu_count);
    GpuMask chosen = 0;
    uint64_t seen = 0;
    for (int g = 0; g < static_cast<int>(st.gpu_free_milli.size()); ++g) {
      if (st.gpu_free_milli[g] >= req.gpu_milli && rng.Uniform(++seen) == 0) {
        chosen = GpuMask{1} << g;
      }
    }
    return chosen;
  }

 private:
  Rng* rng_ = nullptr;
};

// Policies whose GPU choice is "best".
class BestGpuPolicy : public PlacementPolicy {
 public:
  GpuMask ChooseGpus(const Cluster& cluster, int node, const WorkloadRequest& req,
                     Rng&) override {
    return BestFitGpus(cluster.state(node), req);
  }
};

class DotProdPolicy : public BestGpuPolicy {
 public:
  std::string_view name() const override { return "dotprod"; }
  double Score(const Cluster& c, int node, const WorkloadRequest& req) override {
    return static_cast<double>(DotProdScore(c.state(node), req));
  }
};

class GpuClusteringPolicy : public BestGpuPolicy {
 public:
  std::string_view name() const override { return "gpuclustering"; }
  double Score(const Cluster& c, int node, const WorkloadRequest& req) override {
    return static_cast<double>(GpuClusteringScore(c.state(node), req));
  }
};

class GpuPackingPolicy : public BestGpuPolicy {
 public:
  std::string_view name() const override { return "gpupacking"; }
  double Score(const Cluster& c, int node, const WorkloadRequest& req) override {
    return static_cast<double>(GpuPackingScore(c.state(node), req));
  }
};

class BestFitPolicy : public BestGpuPolicy {
 public:
  std::string_view name() const override { return "bestfit"; }
  // The simulator min-max normalises these scores per cycle; that maps the
  // highest score to 100 and every lower one below it, so the winner set is
  // the same and the normalisation is skipped.
  double Score(const Cluster& c, int node, const WorkloadRequest& req) override {
    return static_cast<double>(BestFitScore(c.state(node), req));
  }
};

}  // namespace

GpuMask BestFitGpus(const NodeState& node, const WorkloadRequest& req) {
  if (!req.needs_gpu()) return 0;
  if (!req.is_gpu_share()) return node.LowestFullyFreeGpus(req.gpu_count);
  int best = -1;
  for (int g = 0; g < static_cast<int>(node.gpu_free_milli.size()); ++g) {
    int64_t free = node.gpu_free_milli[g];
    if (free >= req.gpu_milli && (best < 0 || free < node.gpu_free_milli[best])) best = g;
  }
  return best < 0 ? 0 : GpuMask{1} << best;
}

int64_t DotProdScore(const NodeState& node, const WorkloadRequest& req) {
  if (node.cpu_free_milli < req.cpu_milli) return 0;
  double dot = static_cast<double>(node.cpu_free_milli) / kMaxSpecCpuMilli *
                   (static_cast<double>(req.cpu_milli) / kMaxSpecCpuMilli) +
               static_cast<double>(node.total_gpu_free_milli()) / kMaxSpecGpuMilli *
                   (static_cast<double>(req.total_gpu_milli()) / kMaxSpecGpuMilli);
  return static_cast<int64_t>(100.0 * (1.0 - dot / 2.0));
}

int64_t GpuClusteringScore(const NodeState& node, const WorkloadRequest& req) {
  int key = GpuAffinityKey(req);
  if (key < 0) return 0;
  // Integer arithmetic on purpose: the simulator's tiers are int64 maths.
  const int64_t fullness =
      25 * (static_cast<int64_t>(kMaxSpecGpuMilli) - node.total_gpu_free_milli()) /
      static_cast<int64_t>(kMaxSpecGpuMilli);
  auto it = node.gpu_affinity.find(key);
  int kinds = 0;
  for (const auto& [k, n] : node.gpu_affinity) kinds += n > 0;
  if (it != node.gpu_affinity.end() && it->second > 0) {
    return fullness + (kinds == 1 ? 75 : 50);
  }
  return fullness + (kinds == 0 ? 25 : 0);
}

int64_t GpuPackingScore(const NodeState& node, const WorkloadRequest& req) {
  if (req.gpu_milli <= 0) return 0;
  const int gpus = static_cast<int>(node.gpu_free_milli.size());
  const int fully_free = node.fully_free_gpus();
  if (fully_free == gpus) return std::max<int64_t>(33 - fully_free, fully_free);
  // Tightest devices first (stable, so lower indices first among equals).
  std::vector<int> order(gpus);
  for (int g = 0; g < gpus; ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return node.gpu_free_milli[a] < node.gpu_free_milli[b];
  });
  int need = req.gpu_count;
  int fully_free_used = 0;
  int64_t free_pct_on_used = 0;
  for (int g : order) {
    if (need == 0) break;
    int64_t free = node.gpu_free_milli[g];
    if (req.gpu_milli <= free) {
      --need;
      fully_free_used += free == kMilliPerGpu;
      free_pct_on_used += free * 100 / kMilliPerGpu;
    }
  }
  if (need != 0) return 0;
  if (fully_free_used > 0) return std::max<int64_t>(50 - fully_free_used, 33);
  return std::max<int64_t>(100 - free_pct_on_used / 10, 50);
}

int64_t BestFitScore(const NodeState& node, const WorkloadRequest& req) {
  double left = static_cast<double>(node.cpu_free_milli - req.cpu_milli) / kMaxSpecCpuMilli * 0.5 +
                static_cast<double>(node.total_gpu_free_milli() - req.total_gpu_milli()) /
                    kMaxSpecGpuMilli * 0.5;
  return static_cast<int64_t>((1.0 - left) * 100.0);
}

int64_t FgdScoreFromFrag(double frag_before, double frag_after) {
  double x = (frag_before - frag_after) / 1000.0;
  return static_cast<int64_t>(1.0 / (1.0 + std::exp(-x)) * 100.0);
}

std::unique_ptr<PlacementPolicy> NewRandomPolicy() { return std::make_unique<RandomPolicy>(); }
std::unique_ptr<PlacementPolicy> NewDotProdPolicy() { return std::make_unique<DotProdPolicy>(); }
std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy() {
  return std::make_unique<GpuClusteringPolicy>();
}
std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy() {
  return std::make_unique<GpuPackingPolicy>();
}
std::unique_ptr<PlacementPolicy> NewBestFitPolicy() { return std::make_unique<BestFitPolicy>(); }

}  // namespace gpufleet::place
