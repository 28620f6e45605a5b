// Gavel's allocation policies (OSDI'20, `scheduler/policies/`): given the
// active jobs and their throughput on each GPU type, the fraction of wall
// time X[m][j] each job m should run on type j. The round-based mechanism in
// gavel_sim.h turns X into per-round assignments.
//
// LPs are solved with GLPK (gavel_lp.h). Max-min fairness maximizes
// min_m (sf_m / w_m) * sum_j T'_mj X_mj, where T' is 1 for the
// heterogeneity-agnostic form and T_mj / (sum_j T_mj X_iso_mj) for `_perf`
// (X_iso is the agnostic allocation), subject to sum_j X_mj <= 1 and
// sum_m sf_m X_mj <= workers_j. Gavel solves it with cvxpy's interior-point
// solver; the optimum is degenerate (only the minimum is pinned), so GLPK's
// interior-point method is used too, to land near the centre of the optimal
// face as cvxpy does rather than on a simplex vertex.
// `max_min_fairness_packed` is the same objective (normalized as `_perf`)
// with space sharing: X ranges over single jobs and pairs of jobs of one
// scale factor sharing a GPU, each running at its measured co-located
// throughput (input.pairs); solved over classes of interchangeable jobs
// (gavel_lp.h). `max_min_fairness_packed:pruned` drops the pairs that
// time-slicing dominates; `:per_job` solves Gavel's per-job LP (slow).
// Finish-time fairness (`finish_time_fairness`, `_perf`, `_packed`; Themis
// as Gavel formulates it) minimizes the largest
// rho_m = (t_m + R_m / tput_m(X)) / (I_m + R_m / iso_m), where t_m is the
// time since arrival, R_m the steps left, I_m the time the steps done so far
// would have taken on the job's isolated share and iso_m its throughput
// there (the isolated share: 1/n of the cluster, min(1, W / (n sf_m)) of the
// time, spread over GPU types in proportion to their counts). Gavel solves
// this convex program directly; here it is a bisection on rho, each step a
// max-min LP of tput_m(X) / tput_m needed to finish by rho (see the .cc).
// Its agnostic form believes every type runs a job as fast as the
// reference type (Gavel: the V100) does.
// `gandiva` (Gandiva as Gavel models it): equal time shares; when the jobs
// ask for more GPUs than there are, jobs are paired at random and the pairs
// share GPUs, heterogeneity-agnostic.
// `fifo:code` is Gavel's agnostic FIFO as its code runs (see the .cc), not
// as it describes itself.
// `isolated`: every job its equal share of each type (Gavel's Isolated
// policy), the baseline of Gavel's notebook finish-time-fairness figure.
// Also: FIFO (`fifo`, `fifo_perf`, `fifo_packed`), makespan minimisation
// (`min_total_duration[_perf]`, the same LP on T_mj / steps_remaining_m;
// `_packed` with space sharing, each job keeping its 16 best partners) and
// gpufleet's `gpufleet_cost` (the fair allocation, then the cheapest one that
// keeps every job's throughput; see docs/scheduling.md).
// Thread safety: a policy object is used by one simulation at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "place/gavel_lp.h"

namespace gpufleet::place {

struct GavelActiveJob {
  int64_t id = 0;                     // arrival order
  // Index of its job type (GavelThroughputs); jobs of one type, scale factor
  // and weight are interchangeable, which the packed LP uses. -1: unknown.
  int job_type = -1;
  int scale_factor = 1;               // GPUs per job
  double priority_weight = 1;         // w_m
  std::vector<double> steps_per_s;    // per GPU type, isolated; 0 = cannot run there
  double steps_remaining = 0;
  double seconds_since_arrival = 0;
  // Time the steps done so far would have taken on the job's isolated share
  // (see above); finish-time fairness's I_m.
  double isolated_seconds = 0;
};

// Two active jobs that can share one GPU: each one's steps/s while they do,
// per GPU type (0 = not measured there or infeasible, e.g. out of memory).
struct GavelPairThroughput {
  size_t a = 0, b = 0;  // indices in GavelAllocationInput::jobs
  std::vector<double> a_steps_per_s, b_steps_per_s;
};

struct GavelAllocationInput {
  std::vector<GavelActiveJob> jobs;
  std::vector<int> workers;              // GPUs per type
  std::vector<std::string> worker_names;   // per type ("k80", ...); may be empty
  std::vector<double> price_usd_per_hour;  // per GPU type; used by cost-aware policies
  // The GPU type agnostic finish-time fairness believes every type runs as
  // fast as (Gavel: V100); -1: the mean over the types a job can run on.
  int reference_type = -1;
  // Filled for packed policies only: the pairs of jobs (same scale factor)
  // whose co-located throughputs are known on some type.
  std::vector<GavelPairThroughput> pairs;
};

// The isolated share's throughput of `job` (steps/s) with `active_jobs` jobs
// in the cluster: min(1, W / (n sf)) x sum_j workers_j T_j / W.
double GavelIsolatedSteps(const GavelActiveJob& job, const std::vector<int>& workers,
                          size_t active_jobs);

// allocation[k][j] (gavel_lp.h): rows 0..m-1 the jobs of input.jobs, then,
// for packed policies, one row per entry of input.pairs.

class GavelPolicy {
 public:
  virtual ~GavelPolicy() = default;
  virtual const std::string& name() const = 0;
  // Agnostic policies visit GPU types in a shuffled order each round (Gavel
  // shuffles unless the policy is `_perf` or `_packed`).
  virtual bool heterogeneity_aware() const = 0;
  // Whether the simulator visits GPU types in a shuffled order each round
  // (default: the agnostic policies).
  virtual bool shuffles_types() const { return !heterogeneity_aware(); }
  // FIFO forms never run a job on a type with allocation 0.
  virtual bool strict_allocation() const { return false; }
  // Space sharing: the simulator fills input.pairs and runs allocated pairs
  // on one GPU each.
  virtual bool packed() const { return false; }
  // With a start-up cost (GavelSimOptions::startup_s), the round ranks a
  // job that would have to start (new type, or idle last round) by the part
  // of the round it would work, so a job already running keeps its GPU
  // unless a job in more need of it is waiting. Gavel's policies ignore it.
  virtual bool startup_aware() const { return false; }
  virtual StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& input) = 0;
};

// By Gavel's name (GavelPolicyNames()); NotFound for other names.
StatusOr<std::unique_ptr<GavelPolicy>> MakeGavelPolicy(const std::string& name, uint64_t seed);
std::vector<std::string> GavelPolicyNames();

}  // namespace gpufleet::place
