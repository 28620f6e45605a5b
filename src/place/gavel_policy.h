// Gavel's allocation policies (OSDI'20, `scheduler/policies/`): given the
// active jobs and their throughput on each GPU type, the fraction of wall
// time X[m][j] each job m should run on type j. The round-based mechanism in
// gavel_sim.h turns X into per-round assignments.
//
// LPs are solved with GLPK (Debian libglpk-dev). Max-min fairness maximizes
// min_m (sf_m / w_m) * sum_j T'_mj X_mj, where T' is 1 for the
// heterogeneity-agnostic form and T_mj / (sum_j T_mj X_iso_mj) for `_perf`
// (X_iso is the agnostic allocation), subject to sum_j X_mj <= 1 and
// sum_m sf_m X_mj <= workers_j. Gavel solves it with cvxpy's interior-point
// solver; the optimum is degenerate (only the minimum is pinned), so GLPK's
// interior-point method is used too, to land near the centre of the optimal
// face as cvxpy does rather than on a simplex vertex.
// Also: FIFO (`fifo`, `fifo_perf`), makespan minimisation
// (`min_total_duration[_perf]`, the same LP on T_mj / steps_remaining_m) and
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

namespace gpufleet::place {

struct GavelActiveJob {
  int64_t id = 0;                     // arrival order
  int scale_factor = 1;               // GPUs per job
  double priority_weight = 1;         // w_m
  std::vector<double> steps_per_s;    // per GPU type, isolated; 0 = cannot run there
  double steps_remaining = 0;
  double seconds_since_arrival = 0;
};

struct GavelAllocationInput {
  std::vector<GavelActiveJob> jobs;
  std::vector<int> workers;              // GPUs per type
  std::vector<double> price_usd_per_hour;  // per GPU type; used by cost-aware policies
};

// allocation[m][j]: fraction of time job m (index in input.jobs) runs on type j.
using GavelAllocation = std::vector<std::vector<double>>;

class GavelPolicy {
 public:
  virtual ~GavelPolicy() = default;
  virtual const std::string& name() const = 0;
  // Agnostic policies visit GPU types in a shuffled order each round (Gavel
  // shuffles unless the policy is `_perf` or `_packed`).
  virtual bool heterogeneity_aware() const = 0;
  // FIFO forms never run a job on a type with allocation 0.
  virtual bool strict_allocation() const { return false; }
  virtual StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& input) = 0;
};

// By Gavel's name (GavelPolicyNames()); NotFound for other names.
StatusOr<std::unique_ptr<GavelPolicy>> MakeGavelPolicy(const std::string& name, uint64_t seed);
std::vector<std::string> GavelPolicyNames();

// Max-min LP on explicit coefficients: maximize min_m sum_j coeff[m][j] X_mj
// with the base constraints. Exposed for tests and the benchmark.
StatusOr<GavelAllocation> SolveMaxMinLp(const std::vector<std::vector<double>>& coeff,
                                        const std::vector<int>& scale_factors,
                                        const std::vector<int>& workers);

// Min-cost LP: minimize sum cost_mj X_mj subject to sum_j T_mj X_mj >= floor_m
// and the base constraints. Used by gpufleet's cost-aware policy.
StatusOr<GavelAllocation> SolveMinCostLp(const std::vector<std::vector<double>>& steps_per_s,
                                         const std::vector<double>& floor_steps_per_s,
                                         const std::vector<std::vector<double>>& cost_per_hour,
                                         const std::vector<int>& scale_factors,
                                         const std::vector<int>& workers);

}  // namespace gpufleet::place
