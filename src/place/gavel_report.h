// Gavel reproduction: runs one policy's curve (average JCT and cost per job
// against input job rate) and compares it with the numbers cached in Gavel's
// evaluation notebooks (../shared/traces/gavel/gavel_notebook_results.csv).
//
// "Below saturation" is where Gavel's own JCT is at most 1.5x its value at
// the lowest rate; past the knee a few jobs more or less in the window move
// the average by tens of hours, so points there are reported, not judged.
// Thread safety: RunGavelCurve uses `threads` workers internally.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "place/gavel_data.h"
#include "place/gavel_sim.h"

namespace gpufleet::place {

// (trace, policy, rate) -> average JCT in hours. trace: "continuous-single"
// or "continuous-multiple" (the CSV's "(Fig.N)" suffix is dropped); and
// ("static-multiple", policy, number of jobs) -> makespan in hours, with the
// notebook's labels mapped to policy names ("FIFO" -> fifo, "Gavel
// (min_total_duration_perf)" -> min_total_duration_perf, ...).
using GavelNotebookJct = std::map<std::tuple<std::string, std::string, double>, double>;

// Parses the CSV (trace,metric,input_job_rate_per_hour_or_jobs,policy,value);
// keeps avg_JCT_hours and makespan_hours rows, and, when `ftf_rho` is given,
// puts the avg_FTF_rho_vs_isolated rows there (same keys). Errors name
// origin:line.
StatusOr<GavelNotebookJct> ParseGavelNotebookCsv(std::string_view text, std::string_view origin,
                                                 GavelNotebookJct* ftf_rho = nullptr);
StatusOr<GavelNotebookJct> LoadGavelNotebookCsv(const std::string& path,
                                                GavelNotebookJct* ftf_rho = nullptr);

struct GavelCurveOptions {
  // "continuous-single", "continuous-multiple", or "static-multiple" (all jobs
  // at t=0, every job measured, makespan compared; rates_per_hour then holds
  // numbers of jobs).
  std::string trace = "continuous-single";
  std::string policy = "max_min_fairness_perf";
  std::vector<double> rates_per_hour;
  uint64_t seed = 0;
  bool gavel_draws = true;  // GavelTraceOptions::gavel_draws
  int threads = 2;
  GavelSimOptions sim;  // workers, prices, window
  // Draw the jobs with this table (nullptr: the simulated one), so a table
  // with runs taken out (WithoutRuns) simulates the very same jobs.
  const GavelThroughputs* jobs_table = nullptr;
  // Multi-GPU jobs run at this share of their table throughput on every GPU
  // type while their steps are still drawn from the table (in (0, 1]; 1 =
  // Gavel's code as published). Gavel's published continuous-multiple runs
  // behave as if it were about 1 / 1.16 (docs/scheduling.md); the cause is
  // not known.
  double multi_gpu_execution_factor = 1;
};

struct GavelCurvePoint {
  GavelSimResult result;
  bool has_gavel = false;
  double gavel_jct_hours = 0;
  bool below_saturation = false;  // by Gavel's curve, see above
  bool makespan = false;          // static trace: gavel_jct_hours holds Gavel's makespan
  bool has_gavel_ftf = false;
  double gavel_ftf_rho = 0;  // Gavel's average finish-time fairness at this rate
  // The figure as Gavel's notebooks compute it: the mean over the measured
  // jobs of JCT / the same job's JCT in a run of the `isolated` policy on
  // the same jobs (jobs that completed in both runs). Computed where Gavel's
  // figure is compared (has_gavel_ftf), continuous traces only.
  bool has_isolated_run_ftf = false;
  double isolated_run_ftf_rho = 0;
  int isolated_run_jobs = 0;  // the jobs it averages over
  // The least any policy could pay per job at this point's average JCT
  // (gavel_cost_bound.h: one job per GPU; sharing with balanced pairs; with
  // partners from outside the measured jobs). Continuous traces with prices
  // whose measured jobs all completed.
  bool has_cost_bound = false;
  double cost_bound_alone_usd = 0, cost_bound_shared_usd = 0, cost_bound_free_partners_usd = 0;
  double Ours() const { return makespan ? result.makespan_hours : result.avg_jct_hours; }
  double RelativeError() const {
    return has_gavel ? (Ours() - gavel_jct_hours) / gavel_jct_hours : 0;
  }
};

// The Gavel policy whose published numbers a policy is compared with: a
// variant (`fifo:code`, `max_min_fairness_packed:pruned`, ...) with the one
// it is a form of.
std::string GavelComparedPolicy(const std::string& policy);

StatusOr<std::vector<GavelCurvePoint>> RunGavelCurve(
    const GavelThroughputs& table, const GavelCurveOptions& options,
    const GavelNotebookJct* expected, const GavelNotebookJct* expected_ftf = nullptr);

// CSV: trace,policy,rate_per_hour,avg_jct_hours,gavel_avg_jct_hours,rel_error,
// avg_cost_usd,makespan_hours,completed,measured,saturated,allocations,solve_s,
// avg_ftf_rho,gavel_avg_ftf_rho,pair_rounds,pair_oom_rounds,cost_bound_alone_usd,
// cost_bound_shared_usd,cost_bound_free_partners_usd,startups,
// ftf_rho_vs_isolated_run (gavel_avg_jct_hours is Gavel's makespan for the
// static trace; the bounds and the last figure are empty where not computed).
std::string GavelCurvesToCsv(const std::string& trace, const std::vector<GavelCurvePoint>& points);
// Two panels (JCT, cost per job) against rate; ours solid, Gavel's dashed.
std::string GavelCurvesToSvg(const std::string& title, const std::vector<GavelCurvePoint>& points);

}  // namespace gpufleet::place
