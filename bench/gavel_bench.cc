// Speed of the Gavel-style scheduler (docs/scheduling.md):
//  1. one max_min_fairness_perf allocation (two GLPK LPs) for 1,000 active jobs
//     on 2,048 GPUs, against the anchor of the same solve at Gavel's evaluated
//     scale (108 GPUs) with 100 jobs, measured in the same run; Gavel's round is 360 s.
//  2. one policy's whole Fig. 8 curve (15 rates, jobs 4000-5000 measured),
//     against the anchor of its lowest-rate point, in the same run.
// Usage: gavel_bench [path to simulation_throughputs.json] [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "place/gavel_data.h"
#include "place/gavel_policy.h"
#include "place/gavel_report.h"
#include "place/gavel_sim.h"

namespace {

using gpufleet::place::GavelAllocationInput;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

GavelAllocationInput Input(const gpufleet::place::GavelThroughputs& table, int jobs, std::vector<int> workers) {
  gpufleet::place::GavelTraceOptions to;
  to.multi_gpu = true;
  to.num_jobs = jobs;
  auto generated = gpufleet::place::GenerateGavelJobs(table, to);
  GavelAllocationInput in;
  in.workers = std::move(workers);
  for (const auto& j : *generated) {
    gpufleet::place::GavelActiveJob a;
    a.id = j.id;
    a.scale_factor = j.scale_factor;
    for (int w = 0; w < table.num_workers(); ++w) a.steps_per_s.push_back(table.Isolated(j.job_type, w));
    in.jobs.push_back(a);
  }
  return in;
}

double SolveSeconds(const GavelAllocationInput& in, int repeats) {
  auto policy = gpufleet::place::MakeGavelPolicy("max_min_fairness_perf", 0);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    auto x = (*policy)->Allocate(in);
    const double s = Seconds(t0);
    if (!x.ok()) {
      std::fprintf(stderr, "%s\n", x.status().ToString().c_str());
      std::exit(1);
    }
    best = std::min(best, s);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1]
                                    : std::string(GPUFLEET_SOURCE_DIR) +
                                          "/../shared/traces/gavel/simulation_throughputs.json";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  auto table = gpufleet::place::LoadGavelThroughputs(path);
  if (!table.ok()) {
    std::fprintf(stderr, "%s\n", table.status().ToString().c_str());
    return 1;
  }
  const double anchor = SolveSeconds(Input(*table, 100, {36, 36, 36}), 5);
  const double big = SolveSeconds(Input(*table, 1000, {683, 683, 682}), 3);
  std::printf("allocation solve, max_min_fairness_perf: 100 jobs / 108 GPUs %.4f s (anchor); "
              "1000 jobs / 2048 GPUs %.3f s = %.1fx the anchor, %.4f of Gavel's 360 s round\n",
              anchor, big, big / anchor, big / 360);

  gpufleet::place::GavelCurveOptions o;
  o.trace = "continuous-single";
  o.policy = "max_min_fairness_perf";
  o.threads = threads;
  o.sim.workers = {36, 36, 36};
  o.sim.price_usd_per_hour = {0.52, 1.68, 2.85};
  o.rates_per_hour = {0.4};
  auto t0 = Clock::now();
  if (!gpufleet::place::RunGavelCurve(*table, o, nullptr).ok()) return 1;
  const double one = Seconds(t0);
  o.rates_per_hour.clear();
  for (int i = 1; i <= 15; ++i) o.rates_per_hour.push_back(0.4 * i);
  t0 = Clock::now();
  auto curve = gpufleet::place::RunGavelCurve(*table, o, nullptr);
  if (!curve.ok()) return 1;
  const double all = Seconds(t0);
  std::printf("whole curve, max_min_fairness_perf continuous-single 0.4..6.0 jobs/h (15 rates, jobs "
              "4000-5000, %d threads): %.1f s = %.1fx the 0.4 jobs/h point alone (%.1f s)\n",
              threads, all, all / one, one);
  return 0;
}
