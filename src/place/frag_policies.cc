// Fragmentation-aware policies: FGD as its authors' simulator scores it, and
// weighted combinations of policies. FGD scores a node by how much placing
// the request there changes the node's fragmentation against the target
// workload; for a GPU share it tries every device and keeps the best.
// gpufleet's own policy is in gpufleet_policy.cc.
//
// Evaluations are cached per (request shape, node) and invalidated by the
// node's version, since a placement changes one node and the trace has only
// about a hundred distinct shapes.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/strings.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

class FragPolicyBase : public PlacementPolicy {
 public:
  explicit FragPolicyBase(TargetWorkload target) : target_(std::move(target)) {}

  void BeginRequest(const Cluster& cluster, const WorkloadRequest& req, Rng&) override {
    if (bound_ != &cluster || static_cast<int>(frag_.size()) != cluster.size()) Bind(cluster);
    std::string models;
    for (const std::string& m : req.gpu_models) models += m + "|";
    auto key = std::make_tuple(req.cpu_milli, req.gpu_milli, req.gpu_count, models);
    auto [it, inserted] = shape_ids_.emplace(key, static_cast<int>(evals_.size()));
    if (inserted) evals_.emplace_back(cluster.size());
    shape_ = it->second;
  }

  double Score(const Cluster& cluster, int node, const WorkloadRequest& req) override {
    return Evaluate(cluster, node, req).score;
  }

  GpuMask ChooseGpus(const Cluster& cluster, int node, const WorkloadRequest& req,
                     Rng&) override {
    return Evaluate(cluster, node, req).gpus;
  }

 protected:
  // Score for one candidate placement, given the node's fragmentation
  // before and after it. `gpu_free_after` is the device's free share after
  // placement for a GPU share (-1 otherwise).
  virtual double CandidateScore(const Cluster& cluster, int node, const WorkloadRequest& req,
                                double before, double after, int64_t gpu_free_after) const = 0;

  const TargetWorkload& target() const { return target_; }

 private:
  struct Eval {
    uint64_t version_plus1 = 0;
    double score = 0;
    GpuMask gpus = 0;
  };
  struct FragEntry {
    uint64_t version_plus1 = 0;
    double frag = 0;
  };

  void Bind(const Cluster& cluster) {
    bound_ = &cluster;
    target_.BindModels(cluster);
    frag_.assign(cluster.size(), FragEntry{});
    shape_ids_.clear();
    evals_.clear();
  }

  double FragNow(const Cluster& cluster, int node) {
    FragEntry& e = frag_[node];
    const NodeState& st = cluster.state(node);
    if (e.version_plus1 != st.version + 1) {
      e.frag = target_.NodeFrag(cluster, node);
      e.version_plus1 = st.version + 1;
    }
    return e.frag;
  }

  const Eval& Evaluate(const Cluster& cluster, int node, const WorkloadRequest& req) {
    Eval& e = evals_[shape_][node];
    const NodeState& st = cluster.state(node);
    if (e.version_plus1 == st.version + 1) return e;
    e.version_plus1 = st.version + 1;
    const double before = FragNow(cluster, node);
    const int gpus = static_cast<int>(st.gpu_free_milli.size());
    int64_t free[kMaxGpusPerNode];
    std::copy(st.gpu_free_milli.begin(), st.gpu_free_milli.end(), free);
    const int64_t cpu_after = st.cpu_free_milli - req.cpu_milli;
    if (req.is_gpu_share()) {
      bool found = false;
      for (int g = 0; g < gpus; ++g) {
        if (free[g] < req.gpu_milli) continue;
        // Devices with the same free share give the same node state; the
        // first (lowest index) one wins ties anyway.
        bool dup = false;
        for (int h = 0; h < g && !dup; ++h) dup = st.gpu_free_milli[h] == free[g];
        if (dup) continue;
        free[g] -= req.gpu_milli;
        double after = target_.NodeFrag(node, cpu_after, free, gpus);
        double s = CandidateScore(cluster, node, req, before, after, free[g]);
        free[g] += req.gpu_milli;
        if (!found || s > e.score) {
          e.score = s;
          e.gpus = GpuMask{1} << g;
          found = true;
        }
      }
      if (!found) e.score = 0, e.gpus = 0;
      return e;
    }
    GpuMask m = req.needs_gpu() ? st.LowestFullyFreeGpus(req.gpu_count) : 0;
    for (int g = 0; g < gpus; ++g) {
      if (m & (GpuMask{1} << g)) free[g] -= req.gpu_milli;
    }
    double after = target_.NodeFrag(node, cpu_after, free, gpus);
    e.score = CandidateScore(cluster, node, req, before, after, -1);
    e.gpus = m;
    return e;
  }

  TargetWorkload target_;
  const Cluster* bound_ = nullptr;
  std::vector<FragEntry> frag_;
  std::map<std::tuple<int64_t, int64_t, int, std::string>, int> shape_ids_;
  std::vector<std::vector<Eval>> evals_;
  int shape_ = 0;
};

class FgdPolicy : public FragPolicyBase {
 public:
  using FragPolicyBase::FragPolicyBase;
  std::string_view name() const override { return "fgd"; }

 protected:
  double CandidateScore(const Cluster&, int, const WorkloadRequest&, double before, double after,
                        int64_t) const override {
    return static_cast<double>(FgdScoreFromFrag(before, after));
  }
};

class WeightedPolicy : public PlacementPolicy {
 public:
  explicit WeightedPolicy(std::vector<std::pair<double, std::unique_ptr<PlacementPolicy>>> parts)
      : parts_(std::move(parts)) {
    for (size_t i = 0; i < parts_.size(); ++i) {
      if (parts_[i].first > parts_[heaviest_].first) heaviest_ = i;
      name_ += (i ? "," : "") + std::string(parts_[i].second->name()) + ":" +
               FormatDouble(parts_[i].first);
    }
  }
  std::string_view name() const override { return name_; }
  void BeginRequest(const Cluster& c, const WorkloadRequest& r, Rng& rng) override {
    for (auto& [w, p] : parts_) p->BeginRequest(c, r, rng);
  }
  double Score(const Cluster& c, int node, const WorkloadRequest& r) override {
    double s = 0;
    for (auto& [w, p] : parts_) s += w * p->Score(c, node, r);
    return s;
  }
  GpuMask ChooseGpus(const Cluster& c, int node, const WorkloadRequest& r, Rng& rng) override {
    return parts_[heaviest_].second->ChooseGpus(c, node, r, rng);
  }

 private:
  std::vector<std::pair<double, std::unique_ptr<PlacementPolicy>>> parts_;
  size_t heaviest_ = 0;
  std::string name_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdPolicy(TargetWorkload target) {
  return std::make_unique<FgdPolicy>(std::move(target));
}
std::unique_ptr<PlacementPolicy> NewWeightedPolicy(
    std::vector<std::pair<double, std::unique_ptr<PlacementPolicy>>> parts) {
  return std::make_unique<WeightedPolicy>(std::move(parts));
}

}  // namespace gpufleet::place
