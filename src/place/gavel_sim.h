// Gavel-style round-based cluster simulator (OSDI'20, `scheduler/scheduler.py`
// `simulate`), on Gavel's measured throughputs.
//
// Job generator as published (`utils.py::generate_job`): job type uniform over
// the 26 single-GPU job templates; duration 60*10^U(1.5,3) s with p 0.8, else
// 60*10^U(3,4) s; continuous-multiple draws the scale factor 1 / 2 / 4 / 8 with
// p 0.7 / 0.1 / 0.15 / 0.05 and re-draws the type until it has that scale
// factor; steps = duration x the job's isolated V100 throughput; Poisson
// arrivals at `jobs_per_hour`. Our random streams are not Python's, so a run
// has the same distributions as Gavel's seed 0, not the same jobs.
//
// Mechanism: rounds of 360 s. Before each round the allocation is recomputed
// when jobs arrived or left and at least 1920 s passed since the last reset
// (Gavel's minimum_time_between_allocation_resets); then per GPU type jobs are
// ranked by priority = X_mj / (share of that type's time the job got since the
// reset), ties by deficit and X, and taken greedily while GPUs remain. A job
// runs min(remaining, T*360) steps; the round ends when the last one does.
// Packed policies: the allocation's rows past the jobs are pairs of jobs
// (same scale factor, co-located throughputs measured in the table); a pair
// is ranked like a job, by its allocation over the time share it got, and
// runs on one GPU (sf GPUs) only if neither job was placed this round. Each
// paired job runs at its co-located throughput and pays half the GPU. When
// one finishes mid-round the other keeps its co-located pace until the end of
// the round.
// Metrics are over jobs [measure_begin, measure_end) by arrival order, and the
// run ends when all of those finished (Gavel's jobs 4000-5000).
// Thread safety: independent runs may go in parallel.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "place/gavel_data.h"
#include "place/gavel_policy.h"

namespace gpufleet::place {

struct GavelTraceOptions {
  double jobs_per_hour = 1;  // 0: every job arrives at t=0 (Gavel's static traces)
  bool multi_gpu = false;  // false: continuous-single; true: continuous-multiple
  uint64_t seed = 0;
  int num_jobs = 5000;
  // true: Gavel's own draws (utils.generate_job with Python's random, job
  // generator seeded seed + 2, arrivals seed + 3, templates in job_table.py's
  // order), so `seed` gives the very jobs Gavel's run with that seed had;
  // false: the same distributions drawn with std::mt19937_64.
  bool gavel_draws = true;
};

struct GavelSimJob {
  int64_t id = 0;
  int job_type = 0;  // index in GavelThroughputs::job_types()
  int scale_factor = 1;
  double total_steps = 0;
  double arrival_s = 0;
  double duration_v100_s = 0;
};

// Jobs in arrival order. Errors when the table lacks a V100 worker or job types.
StatusOr<std::vector<GavelSimJob>> GenerateGavelJobs(const GavelThroughputs& table,
                                                     const GavelTraceOptions& options);

struct GavelSimOptions {
  std::vector<int> workers;  // per table worker; Gavel's evaluation: 36 each
  std::vector<double> price_usd_per_hour;  // per table worker; cost metric
  double round_s = 360;
  double min_reset_interval_s = 1920;
  int64_t measure_begin = 4000;
  int64_t measure_end = 5000;
  double max_sim_hours = 1e5;  // guard against a saturated run never ending
  uint64_t seed = 0;           // the agnostic policies' worker-type shuffle
  // Packed policies: decide with this table's pair throughputs (for example
  // WithPredictedPairs, gavel_colocation_model.h) while the jobs run at the
  // simulated table's measured ones. A pair decided feasible that the
  // measured table has out of memory holds its GPU for the round without
  // progress and is then known infeasible for the rest of the run (on that
  // GPU type). nullptr: decide with the measured table. Same shape as it.
  const GavelThroughputs* decision_pairs = nullptr;
  // With decision_pairs: a pair of job types that ran together on a GPU type
  // is known from then on at its measured throughputs (what the agent's step
  // times would show); false: the predictions stay, only out-of-memory is learnt.
  bool learn_pairs = true;
  // Start-up cost (image pull, JIT, checkpoint restore) a job pays from its
  // round's time whenever it runs on a GPU type other than in the round
  // before, or after a round without GPUs (including its first). A job kept
  // on its type round after round keeps its lease and pays nothing, as in
  // Gavel's physical scheduler; it still holds and pays for the GPUs while
  // it starts. 0: Gavel's simulator, which charges nothing.
  double startup_s = 0;
};

struct GavelSimResult {
  std::string policy;
  double jobs_per_hour = 0;
  double avg_jct_hours = 0;       // over the measured jobs
  double avg_cost_usd = 0;        // GPU-hours x price, per measured job
  double makespan_hours = 0;      // last completion among the measured jobs
  // Mean over the measured jobs of JCT / the time the job would have taken
  // on its isolated share (1/n of the cluster, n the active jobs of each
  // round; gavel_policy.h), Gavel's finish-time-fairness figure.
  double avg_ftf_rho = 0;
  // (job id, JCT in seconds) of each completed measured job, in completion
  // order: a figure against another run of the same jobs (Gavel's notebook
  // divides by the `isolated` policy's run) pairs them by id.
  std::vector<std::pair<int64_t, double>> measured_jct_s;
  int measured_jobs = 0;
  int completed_measured = 0;     // < measured_jobs when the run hit max_sim_hours
  bool saturated = false;         // max_sim_hours reached first
  int64_t rounds = 0;
  int64_t pair_rounds = 0;        // (pair, round)s run space-shared (packed policies)
  int64_t pair_oom_rounds = 0;    // of those, pairs out of memory (decision_pairs wrong)
  int64_t allocations = 0;        // policy solves
  // Jobs left only on GPU types they cannot run on when everything else had
  // ended (never completed; `fifo:code` can do this). Measured ones among
  // them make completed_measured < measured_jobs: the averages are then
  // over the completed jobs only.
  int64_t stranded_jobs = 0;
  double solve_seconds = 0;       // wall time spent in the policy
  int64_t startups = 0;           // (job, round)s that paid startup_s
};

StatusOr<GavelSimResult> SimulateGavel(const GavelThroughputs& table,
                                       const std::vector<GavelSimJob>& jobs, GavelPolicy& policy,
                                       const GavelSimOptions& options);

}  // namespace gpufleet::place
