// The candidate loop shared by the policies that score a node by a measure of
// the node before and after a hypothetical placement (FGD's fragmentation,
// gpufleet's waste), the per (request shape, node) cache of its results, and
// CandidatePolicy, the base that ties them to PlacementPolicy.
// Private to src/place (frag_policies.cc, gpufleet_policy.cc).
//
// Thread safety: none; each policy owns its cache.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "place/model.h"
#include "place/policy.h"

namespace gpufleet::place {

// Best candidate placement of a request on one node, valid while the node's
// version is version_plus1 - 1.
struct CandidateEval {
  uint64_t version_plus1 = 0;
  double score = 0;
  GpuMask gpus = 0;
};

// Evaluations per (request shape, node). A placement changes one node (its
// version), and a trace has about a hundred distinct shapes, so most
// evaluations are reused.
class CandidateEvalCache {
 public:
  // Forgets every shape; `nodes` is the cluster's size.
  void Reset(int nodes) {
    nodes_ = nodes;
    shape_ids_.clear();
    evals_.clear();
  }

  // Makes `req`'s shape the current one. Memory is part of the shape only
  // when `memory_matters` (the policy's measure depends on it).
  void Select(const WorkloadRequest& req, bool memory_matters) {
    std::string models;
    for (const std::string& m : req.gpu_models) models += m + "|";
    auto key = std::make_tuple(req.cpu_milli, memory_matters ? req.memory_mib : 0, req.gpu_milli,
                               req.gpu_count, std::move(models));
    auto [it, inserted] = shape_ids_.emplace(std::move(key), static_cast<int>(evals_.size()));
    if (inserted) evals_.emplace_back(nodes_);
    shape_ = it->second;
  }

  // The current shape's entry for `node`. REQUIRES: Select was called.
  CandidateEval& at(int node) { return evals_[shape_][node]; }

 private:
  int nodes_ = 0;
  std::map<std::tuple<int64_t, int64_t, int64_t, int, std::string>, int> shape_ids_;
  std::vector<std::vector<CandidateEval>> evals_;
  int shape_ = 0;
};

// Fills `out` with the best placement of `req` on a node in state `st` and
// marks it current (st.version).
//
// Candidates: for a GPU share, each device with room, one per distinct free
// share (devices with the same free share give the same node state; the
// lowest index wins ties, and the first best is kept); otherwise the lowest
// fully free devices (none for a CPU-only request). A share that fits no
// device scores 0 with no GPUs.
//
// `score_after(gpu_free, gpu_count, device_free_after)` scores one
// candidate: `gpu_free` holds every device's free milli after the placement,
// `device_free_after` is the chosen device's free milli after it for a GPU
// share and -1 otherwise. It must not keep `gpu_free`.
template <typename ScoreAfter>
void EvaluateCandidates(const NodeState& st, const WorkloadRequest& req,
                        const ScoreAfter& score_after, CandidateEval& out) {
  out.version_plus1 = st.version + 1;
  const int gpus = static_cast<int>(st.gpu_free_milli.size());
  int64_t free[kMaxGpusPerNode];
  std::copy(st.gpu_free_milli.begin(), st.gpu_free_milli.end(), free);
  if (req.is_gpu_share()) {
    bool found = false;
    for (int g = 0; g < gpus; ++g) {
      if (free[g] < req.gpu_milli) continue;
      bool dup = false;
      for (int h = 0; h < g && !dup; ++h) dup = st.gpu_free_milli[h] == free[g];
      if (dup) continue;
      free[g] -= req.gpu_milli;
      const double s = score_after(static_cast<const int64_t*>(free), gpus, free[g]);
      free[g] += req.gpu_milli;
      if (!found || s > out.score) {
        out.score = s;
        out.gpus = GpuMask{1} << g;
        found = true;
      }
    }
    if (!found) out.score = 0, out.gpus = 0;
    return;
  }
  const GpuMask m = req.needs_gpu() ? st.LowestFullyFreeGpus(req.gpu_count) : 0;
  for (int g = 0; g < gpus; ++g) {
    if (m & (GpuMask{1} << g)) free[g] -= req.gpu_milli;
  }
  out.score = score_after(static_cast<const int64_t*>(free), gpus, int64_t{-1});
  out.gpus = m;
}

// Base of FGD's and gpufleet's policies: Score and ChooseGpus read the node's
// cached CandidateEval for the current request shape, and a policy computes
// one (EvaluateNode, normally EvaluateCandidates with its measure) only when
// the node changed since.
class CandidatePolicy : public PlacementPolicy {
 public:
  // `memory_matters`: the policy's measure depends on the request's memory
  // (part of the cache's shape key).
  explicit CandidatePolicy(bool memory_matters) : memory_matters_(memory_matters) {}

  void BeginRequest(const Cluster& cluster, const WorkloadRequest& req, Rng&) final {
    if (bound_ != &cluster || nodes_ != cluster.size()) {
      bound_ = &cluster;
      nodes_ = cluster.size();
      evals_.Reset(nodes_);
      Bind(cluster);
    }
    evals_.Select(req, memory_matters_);
  }
  double Score(const Cluster& cluster, int node, const WorkloadRequest& req) final {
    return Evaluate(cluster, node, req).score;
  }
  GpuMask ChooseGpus(const Cluster& cluster, int node, const WorkloadRequest& req, Rng&) final {
    return Evaluate(cluster, node, req).gpus;
  }

 protected:
  // A new cluster: the policy drops its per-node state.
  virtual void Bind(const Cluster& cluster) = 0;
  // Fills `out` with the best placement of `req` on `node` and marks it
  // current (EvaluateCandidates does both).
  virtual void EvaluateNode(const Cluster& cluster, int node, const WorkloadRequest& req,
                            CandidateEval& out) = 0;

 private:
  const CandidateEval& Evaluate(const Cluster& cluster, int node, const WorkloadRequest& req) {
    CandidateEval& e = evals_.at(node);
    if (e.version_plus1 != cluster.state(node).version + 1) EvaluateNode(cluster, node, req, e);
    return e;
  }

  const bool memory_matters_;  // set at construction
  const Cluster* bound_ = nullptr;
  int nodes_ = 0;
  CandidateEvalCache evals_;
};

}  // namespace gpufleet::place
