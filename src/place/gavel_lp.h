// The linear programs behind Gavel's policies (gavel_policy.h), solved with
// GLPK (Debian libglpk-dev). Allocation variables X range over single jobs
// and, for the space-sharing (`_packed`) forms, over pairs of jobs sharing
// one GPU (Gavel's "job combinations"); X_kj is the fraction of wall time
// combination k runs on GPU type j.
//
// Base constraints, for every job m and GPU type j:
//   0 <= X_kj <= 1;
//   sum over the combinations k that contain m, over j, of X_kj <= 1
//     (a job runs in at most one combination at a time);
//   sum over combinations k of sf_k X_kj <= workers_j
//     (a pair of sf-GPU jobs occupies sf GPUs, not 2 sf).
// Thread safety: the functions may run concurrently on different threads
// (GLPK's environment is per thread in Debian's build).
#pragma once

#include <cstddef>
#include <vector>

#include "core/status.h"

namespace gpufleet::place {

// allocation[k][j]: rows 0..m-1 are the single jobs; rows m..m+P-1, when a
// policy packs, the pairs in the order they were given.
using GavelAllocation = std::vector<std::vector<double>>;

// One pair of jobs sharing a GPU: what each contributes to its own objective
// term per unit of X on each GPU type. A (pair, type) whose a_coeff or
// b_coeff is <= 0 is not a variable (never allocated).
struct GavelPairCoeff {
  size_t a = 0, b = 0;                   // job indices, a != b
  std::vector<double> a_coeff, b_coeff;  // per GPU type
};

// Max-min LP: maximize min_m (sum_j coeff[m][j] X_mj + sum over pairs p with
// m in p of sum_j coeff_p,m,j X_pj) with the base constraints. `interior`:
// GLPK's interior-point method (lands near the centre of a degenerate optimal
// face, as Gavel's cvxpy solvers do), falling back to the simplex; false: the
// simplex only (a vertex; faster, for feasibility checks). The optimum value
// (the min) is written to *value when given. Returns m + pairs.size() rows.
StatusOr<GavelAllocation> SolveMaxMinPackedLp(const std::vector<std::vector<double>>& coeff,
                                              const std::vector<GavelPairCoeff>& pairs,
                                              const std::vector<int>& scale_factors,
                                              const std::vector<int>& workers, bool interior,
                                              double* value = nullptr);

// Jobs grouped into classes of interchangeable jobs (same throughputs alone
// and next to any other class, same objective scale, same scale factor).
// One variable per (class, type) is the share each job of the class runs
// alone there, one per (class pair, type) the share each of its job pairs
// runs shared; c == d pairs two jobs of one class (count >= 2; each side
// gets the mean of c_coeff and d_coeff). Solving this instead of the per-job
// LP is exact for the max-min value: the LP is unchanged by swapping two
// jobs of a class, so the average of any optimum over those swaps is an
// optimum in which all jobs (and job pairs) of a class get equal shares; and
// the interior point's centre of a symmetric optimal face is symmetric too.
// Returns classes.size() + pairs.size() rows of per-job / per-job-pair shares.
struct GavelJobClass {
  int count = 1;  // jobs in the class
  int scale_factor = 1;
  std::vector<double> coeff;  // per GPU type
};
struct GavelClassPair {
  size_t c = 0, d = 0;                   // class indices
  std::vector<double> c_coeff, d_coeff;  // per GPU type, for a job of c / of d
};
StatusOr<GavelAllocation> SolveMaxMinClassLp(const std::vector<GavelJobClass>& classes,
                                             const std::vector<GavelClassPair>& pairs,
                                             const std::vector<int>& workers, bool interior,
                                             double* value = nullptr);

// gpufleet's cost-aware form of the class LP: its max-min allocation first
// (interior point), then the cheapest allocation (simplex) that gives every
// class at least `keep` of its objective term there. Cost = sum over columns
// of price_j x the GPUs the column holds (dollars per hour of busy GPUs): two
// jobs sharing one GPU pay for one. Falls back to the max-min allocation when
// the floors are numerically infeasible.
StatusOr<GavelAllocation> SolveCheapestFairClassLp(const std::vector<GavelJobClass>& classes,
                                                   const std::vector<GavelClassPair>& pairs,
                                                   const std::vector<int>& workers,
                                                   const std::vector<double>& price_usd_per_hour,
                                                   double keep);

// The same without pairs (interior point first).
StatusOr<GavelAllocation> SolveMaxMinLp(const std::vector<std::vector<double>>& coeff,
                                        const std::vector<int>& scale_factors,
                                        const std::vector<int>& workers);

// Min-cost LP: minimize sum cost_mj X_mj subject to sum_j T_mj X_mj >= floor_m
// and the base constraints (no pairs). Used by gpufleet's cost-aware policy.
StatusOr<GavelAllocation> SolveMinCostLp(const std::vector<std::vector<double>>& steps_per_s,
                                         const std::vector<double>& floor_steps_per_s,
                                         const std::vector<std::vector<double>>& cost_per_hour,
                                         const std::vector<int>& scale_factors,
                                         const std::vector<int>& workers);

// One way to run a whole job: its duration and its cost done that way. An
// option that shares a GPU names its balance row (>= 0) and side (+1 or -1):
// per row, the hours spent on +1 options equal those on -1 options (the two
// sides of a pair run together).
struct JobOption {
  double hours = 0;
  double usd = 0;
  int balance_row = -1;
  int balance_side = 0;
};

// The cheapest mix when each job may split its work over its options (a
// fraction f_o of its work done by option o takes f_o hours_o and costs
// f_o usd_o): minimizes sum_jobs sum_o f_o usd_o subject to sum_o f_o = 1
// per job, sum_jobs sum_o f_o hours_o <= total_hours and the balance rows.
// Returns the fractions per job and option; *total_usd gets the optimum.
// Errors when a job has no option, total_hours is below the fastest mix's
// or no mix meets the constraints.
StatusOr<std::vector<std::vector<double>>> SolveCheapestWithinHoursLp(
    const std::vector<std::vector<JobOption>>& options, double total_hours, double* total_usd);

}  // namespace gpufleet::place
