// Fragmentation-aware policies: FGD as its authors' simulator scores it, and
// weighted combinations of policies. FGD scores a node by how much placing
// the request there changes the node's fragmentation against the target
// workload; for a GPU share it tries every device and keeps the best.
// gpufleet's own policy is in gpufleet_policy.cc.
//
// The candidate loop and its cache per (request shape, node) are shared with
// gpufleet's policy (CandidatePolicy, candidate_eval.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "place/candidate_eval.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

class FragPolicyBase : public CandidatePolicy {
 public:
  explicit FragPolicyBase(TargetWorkload target)
      : CandidatePolicy(/*memory_matters=*/false), target_(std::move(target)) {}

 protected:
  // Score for one candidate placement, given the node's fragmentation
  // before and after it. `gpu_free_after` is the device's free share after
  // placement for a GPU share (-1 otherwise).
  virtual double CandidateScore(const Cluster& cluster, int node, const WorkloadRequest& req,
                                double before, double after, int64_t gpu_free_after) const = 0;

  const TargetWorkload& target() const { return target_; }

 private:
  struct FragEntry {
    uint64_t version_plus1 = 0;
    double frag = 0;
  };

  void Bind(const Cluster& cluster) override {
    target_.BindModels(cluster);
    frag_.assign(cluster.size(), FragEntry{});
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

  void EvaluateNode(const Cluster& cluster, int node, const WorkloadRequest& req,
                    CandidateEval& e) override {
    const NodeState& st = cluster.state(node);
    const double before = FragNow(cluster, node);
    const int64_t cpu_after = st.cpu_free_milli - req.cpu_milli;
    EvaluateCandidates(
        st, req,
        [&](const int64_t* free, int gpus, int64_t device_free_after) {
          const double after = target_.NodeFrag(node, cpu_after, free, gpus);
          return CandidateScore(cluster, node, req, before, after, device_free_after);
        },
        e);
  }

  TargetWorkload target_;
  std::vector<FragEntry> frag_;
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
