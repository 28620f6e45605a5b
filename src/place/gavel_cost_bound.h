// How cheap can jobs be at a given average JCT? Lower bounds on the average
// cost per job of any policy, for a budget on the average job duration, over
// a set of jobs of a Gavel trace.
//
// Each job type's work may be split over ways to run: alone on one GPU type
// (scale factor x the type's price for steps / isolated throughput), or,
// with sharing, next to a partner job type on one GPU type (its co-located
// throughput from the table, paying half the GPUs). The LP (GLPK;
// SolveCheapestWithinHoursLp) minimizes the mean cost subject to mean
// duration <= factor x the mean duration of every job alone on its fastest
// type. Jobs of one type are merged: hours and dollars scale with steps.
//
// Three bounds: `alone` (one job per GPU); `shared`, where the hours type a
// spends beside type b on a GPU type equal the hours b spends beside a there,
// which holds for any closed set of jobs (partners come from the set and pay
// their own way); and `free_partners`, where partners are not required to be
// in the set: valid when the metric is over a window of a longer trace (Gavel
// measures jobs 4000-4999, whose partners may be jobs outside it).
// Why they bound every policy: a job's running time is at most its JCT, and
// any schedule splits each job's work over these ways and pays these
// dollars. Left out: that sharing jobs must be present together, waiting,
// round granularity, start-up costs (each only raises a policy's cost or
// JCT), so the bounds are tight only at light load.
// Thread safety: pure function of its inputs.
#pragma once

#include <vector>

#include "core/status.h"
#include "place/gavel_data.h"
#include "place/gavel_sim.h"

namespace gpufleet::place {

struct CostBoundPoint {
  double jct_factor = 1;  // budget: mean duration <= jct_factor x fastest_hours
  double avg_hours = 0;   // mean duration at the optimum (<= the budget)
  double avg_usd = 0;     // lower bound on the mean cost per job
};

struct GavelCostBound {
  int jobs = 0;
  double fastest_hours = 0;                   // mean, every job alone on its fastest type
  double fastest_usd = 0;                     // mean $/job then (cheapest among equally fast types)
  double cheapest_alone_usd = 0;              // mean $/job, every job alone on its cheapest type
  double cheapest_shared_usd = 0;             // the same with sharing, any duration
  double cheapest_free_partners_usd = 0;      // the same, partners from outside the set
  // One per factor, in the order given.
  std::vector<CostBoundPoint> alone, shared, free_partners;
};

// Mean hours of `jobs` with every job alone on its fastest GPU type: the
// reference the budgets' factors multiply. Errors on no jobs, a job type
// outside the table or one no GPU type runs.
StatusOr<double> GavelFastestMeanHours(const GavelThroughputs& table,
                                       const std::vector<GavelSimJob>& jobs);

// `jobs`: the jobs to bound (e.g. a trace's measured ones); `price_usd_per_hour`
// per table worker; factors >= 1. Errors on a job type no GPU type runs, a
// price list of the wrong size or a factor below 1.
StatusOr<GavelCostBound> ComputeGavelCostBound(const GavelThroughputs& table,
                                               const std::vector<GavelSimJob>& jobs,
                                               const std::vector<double>& price_usd_per_hour,
                                               const std::vector<double>& jct_factors);

}  // namespace gpufleet::place
