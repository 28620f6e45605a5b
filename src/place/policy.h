// Placement policies: one interface, each scoring feasible nodes and choosing
// the GPU indices on the winner. The selector (placer.h) filters nodes, asks
// the policy for scores and takes the highest (tie-breaking: see placer.h).
// A Kubernetes extender's prioritize verb or a Slurm adapter can call the
// same Score/ChooseGpus on their candidate nodes.
//
// The paper baselines and FGD follow the FGD simulator
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/*.go):
// integer scores in [0, 100] (truncated like Go's int64()), and the same
// GPU choice per policy ("best": the tightest device for a share, the
// lowest-index fully free devices for whole GPUs; "random" for Random; FGD
// its own per-device choice).
//
// Thread safety: a policy instance belongs to one placement loop; policies
// with caches (FGD, gpufleet) keep them per instance.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "place/fragmentation.h"
#include "place/model.h"

namespace gpufleet::place {

// Deterministic random source (mt19937_64): the same seed gives the same run
// on every platform (no std::*_distribution, whose output is unspecified).
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t Next() { return gen_(); }
  // Uniform in [0, n); REQUIRES n > 0.
  uint64_t Uniform(uint64_t n) { return gen_() % n; }

 private:
  std::mt19937_64 gen_;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // Called once per request before its nodes are scored.
  virtual void BeginRequest(const Cluster& cluster, const WorkloadRequest& req, Rng& rng) {
    (void)cluster, (void)req, (void)rng;
  }
  // Score of a feasible node for `req`; higher wins.
  virtual double Score(const Cluster& cluster, int node, const WorkloadRequest& req) = 0;
  // GPUs to use on the chosen node; 0 for a request without GPUs.
  // REQUIRES: the node is feasible for `req`.
  virtual GpuMask ChooseGpus(const Cluster& cluster, int node, const WorkloadRequest& req,
                             Rng& rng) = 0;
};

// Names accepted by MakePolicy: random, dotprod, gpuclustering, gpupacking,
// bestfit, fgd, gpufleet, and weighted combinations "fgd:0.7,bestfit:0.3"
// (weights multiply scores; the GPU choice is the heaviest policy's).
// `target` is the workload FGD and gpufleet measure fragmentation against.
StatusOr<std::unique_ptr<PlacementPolicy>> MakePolicy(std::string_view spec,
                                                      const TargetWorkload& target);
const std::vector<std::string>& PolicyNames();

// Individual constructors (also used by tests).
std::unique_ptr<PlacementPolicy> NewRandomPolicy();
std::unique_ptr<PlacementPolicy> NewDotProdPolicy();
std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy();
std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy();
std::unique_ptr<PlacementPolicy> NewBestFitPolicy();
std::unique_ptr<PlacementPolicy> NewFgdPolicy(TargetWorkload target);
// gpufleet's own policy: the decrease of a CPU- and memory-aware waste
// measure (GpufleetWasteModel, gpufleet_policy.h: FGD's fragmentation with
// each target shape's usable GPUs capped by the copies the node's free CPU
// and memory allow), in 100-milli steps, packing tie-breaks, and for GPU
// requests a dominant penalty per GPU the node's CPU could no longer feed
// (CpuStarvedGpus). Fewer unallocated GPUs than FGD on all 9 Alibaba traces
// (docs/placement-reproduction.md); short of the 20% cut on default.
std::unique_ptr<PlacementPolicy> NewGpufleetPolicy(TargetWorkload target);
std::unique_ptr<PlacementPolicy> NewWeightedPolicy(
    std::vector<std::pair<double, std::unique_ptr<PlacementPolicy>>> parts);

// Score functions of the paper policies on one node, exposed for tests.
// MaxSpec normalisers are 128 cores and 8 GPUs, as in the FGD simulator.
inline constexpr double kMaxSpecCpuMilli = 128000;
inline constexpr double kMaxSpecGpuMilli = 8000;
int64_t DotProdScore(const NodeState& node, const WorkloadRequest& req);
int64_t GpuClusteringScore(const NodeState& node, const WorkloadRequest& req);
int64_t GpuPackingScore(const NodeState& node, const WorkloadRequest& req);
int64_t BestFitScore(const NodeState& node, const WorkloadRequest& req);
// FGD's score from a node's fragmentation before and after placement.
int64_t FgdScoreFromFrag(double frag_before, double frag_after);
// "best" GPU choice: the device with the least free share that still fits
// (lowest index on ties) for a share; the lowest-index fully free devices
// for whole GPUs.
GpuMask BestFitGpus(const NodeState& node, const WorkloadRequest& req);

}  // namespace gpufleet::place
