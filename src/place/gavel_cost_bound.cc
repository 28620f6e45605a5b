#include "place/gavel_cost_bound.h"

#include <algorithm>
#include <string>

#include "place/gavel_lp.h"

namespace gpufleet::place {
namespace {

// Hours and dollars per step of each way to run a job type, without those
// that another way beats on both (they never help the LP).
std::vector<JobOption> PerStepOptions(const GavelThroughputs& table, int job_type, int scale_factor,
                                      const std::vector<double>& price, bool shared) {
  std::vector<JobOption> all;
  for (int w = 0; w < table.num_workers(); ++w) {
    const double gpu_usd_per_hour = price[w] * scale_factor;
    const double iso = table.Isolated(job_type, w);
    if (iso > 0) all.push_back({1 / (iso * 3600), gpu_usd_per_hour / (iso * 3600)});
    if (!shared) continue;
    for (int b = 0; b < table.num_job_types(); ++b) {
      if (table.job_types()[b].scale_factor != scale_factor) continue;
      const GavelColocation& c = table.Colocated(w, job_type, b);
      if (!c.measured || !(c.self_steps_per_s > 0) || !(c.other_steps_per_s > 0)) continue;
      all.push_back(
          {1 / (c.self_steps_per_s * 3600), gpu_usd_per_hour / 2 / (c.self_steps_per_s * 3600)});
    }
  }
  std::vector<JobOption> kept;
  for (const JobOption& o : all) {
    const bool dominated = std::any_of(all.begin(), all.end(), [&](const JobOption& p) {
      return p.hours <= o.hours && p.usd <= o.usd && (p.hours < o.hours || p.usd < o.usd);
    });
    const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const JobOption& p) {
      return p.hours == o.hours && p.usd == o.usd;
    });
    if (!dominated && !duplicate) kept.push_back(o);
  }
  return kept;
}

struct Frontier {
  double fastest_hours = 0, cheapest_usd = 0;
  std::vector<CostBoundPoint> points;
};

StatusOr<Frontier> Solve(const GavelThroughputs& table, const std::vector<GavelSimJob>& jobs,
                         const std::vector<double>& price, const std::vector<double>& factors,
                         bool shared, double reference_hours) {
  std::vector<std::vector<JobOption>> per_type(table.num_job_types());
  std::vector<char> built(table.num_job_types(), 0);
  std::vector<std::vector<JobOption>> options;
  Frontier f;
  for (const GavelSimJob& job : jobs) {
    if (job.job_type < 0 || job.job_type >= table.num_job_types()) {
      return InvalidArgumentError("cost bound: job " + std::to_string(job.id) +
                                  " has no job type in the table");
    }
    if (!built[job.job_type]) {
      per_type[job.job_type] = PerStepOptions(table, job.job_type, job.scale_factor, price, shared);
      built[job.job_type] = 1;
    }
    if (per_type[job.job_type].empty()) {
      return InvalidArgumentError("cost bound: no GPU type runs job " + std::to_string(job.id) +
                                  " (" + table.job_types()[job.job_type].name + ")");
    }
    std::vector<JobOption>& o = options.emplace_back(per_type[job.job_type]);
    for (JobOption& x : o) x.hours *= job.total_steps, x.usd *= job.total_steps;
    double fastest = o[0].hours, cheapest = o[0].usd;
    for (const JobOption& x : o) {
      fastest = std::min(fastest, x.hours), cheapest = std::min(cheapest, x.usd);
    }
    f.fastest_hours += fastest;
    f.cheapest_usd += cheapest;
  }
  const double n = static_cast<double>(jobs.size());
  f.fastest_hours /= n, f.cheapest_usd /= n;
  if (reference_hours <= 0) reference_hours = f.fastest_hours;
  for (double factor : factors) {
    double usd = 0;
    ASSIGN_OR_RETURN(std::vector<std::vector<double>> mix,
                     SolveCheapestWithinHoursLp(options, factor * reference_hours * n, &usd));
    double hours = 0;
    for (size_t j = 0; j < mix.size(); ++j) {
      for (size_t o = 0; o < mix[j].size(); ++o) hours += mix[j][o] * options[j][o].hours;
    }
    f.points.push_back({factor, hours / n, usd / n});
  }
  return f;
}

}  // namespace

StatusOr<LightLoadCostBound> ComputeLightLoadCostBound(
    const GavelThroughputs& table, const std::vector<GavelSimJob>& jobs,
    const std::vector<double>& price_usd_per_hour, const std::vector<double>& jct_factors) {
  if (price_usd_per_hour.size() != static_cast<size_t>(table.num_workers())) {
    return InvalidArgumentError("cost bound: " + std::to_string(price_usd_per_hour.size()) +
                                " prices for " + std::to_string(table.num_workers()) +
                                " GPU types");
  }
  if (jobs.empty()) return InvalidArgumentError("cost bound: no jobs");
  for (double f : jct_factors) {
    if (!(f >= 1)) {
      return InvalidArgumentError("cost bound: JCT factor " + std::to_string(f) +
                                  " is below 1 (no policy is faster than every job on its "
                                  "fastest type)");
    }
  }
  std::vector<double> factors = jct_factors;
  factors.insert(factors.begin(), 1.0);  // the fastest mix's own cost
  ASSIGN_OR_RETURN(Frontier alone, Solve(table, jobs, price_usd_per_hour, factors, false, 0));
  // Both frontiers' budgets are factors of one reference, every job alone on
  // its fastest type (a pair measured faster than alone only lowers the
  // shared bound further, which keeps it a lower bound).
  ASSIGN_OR_RETURN(Frontier shared,
                   Solve(table, jobs, price_usd_per_hour, factors, true, alone.fastest_hours));
  LightLoadCostBound b;
  b.jobs = static_cast<int>(jobs.size());
  b.fastest_hours = alone.fastest_hours;
  b.fastest_usd = alone.points.front().avg_usd;
  b.cheapest_alone_usd = alone.cheapest_usd;
  b.cheapest_shared_usd = shared.cheapest_usd;
  b.alone.assign(alone.points.begin() + 1, alone.points.end());
  b.shared.assign(shared.points.begin() + 1, shared.points.end());
  return b;
}

}  // namespace gpufleet::place
