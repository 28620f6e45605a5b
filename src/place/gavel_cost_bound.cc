#include "place/gavel_cost_bound.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "place/gavel_lp.h"

namespace gpufleet::place {
namespace {

// The jobs of one type, merged: every option's hours and dollars scale with a
// job's steps, so any mix of the type's jobs is one mix of their summed steps
// with the same hours and cost, and back (each job takes the type's mix).
struct TypeWork {
  int job_type = 0;
  int scale_factor = 1;
  double steps = 0;
};

enum class Sharing { kNone, kBalanced, kFreePartners };

// Ways to run all of a type's work: alone on each GPU type and, with
// sharing, next to each partner type on each GPU type (kBalanced: pair rows
// balance the hours a with b against b with a; a type paired with itself
// needs no row).
std::vector<std::vector<JobOption>> Options(const GavelThroughputs& table,
                                            const std::vector<TypeWork>& types,
                                            const std::vector<double>& price, Sharing sharing) {
  std::vector<int> present(table.num_job_types(), -1);
  for (size_t t = 0; t < types.size(); ++t) present[types[t].job_type] = static_cast<int>(t);
  std::map<std::tuple<int, int, int>, int> rows;  // (worker, lower type, higher type) -> row
  std::vector<std::vector<JobOption>> options(types.size());
  for (size_t t = 0; t < types.size(); ++t) {
    const TypeWork& a = types[t];
    for (int w = 0; w < table.num_workers(); ++w) {
      const double usd_per_hour = price[w] * a.scale_factor;
      const double iso = table.Isolated(a.job_type, w);
      if (iso > 0) {
        const double hours = a.steps / (iso * 3600);
        options[t].push_back({hours, hours * usd_per_hour});
      }
      if (sharing == Sharing::kNone) continue;
      for (int b = 0; b < table.num_job_types(); ++b) {
        if (present[b] < 0 || types[present[b]].scale_factor != a.scale_factor) continue;
        const GavelColocation& c = table.Colocated(w, a.job_type, b);
        const GavelColocation& back = table.Colocated(w, b, a.job_type);
        if (!c.measured || !(c.self_steps_per_s > 0) || !(c.other_steps_per_s > 0) ||
            !back.measured || !(back.self_steps_per_s > 0)) {
          continue;
        }
        const double hours = a.steps / (c.self_steps_per_s * 3600);
        JobOption o{hours, hours * usd_per_hour / 2};
        if (sharing == Sharing::kBalanced && b != a.job_type) {
          const auto key = std::make_tuple(w, std::min(a.job_type, b), std::max(a.job_type, b));
          o.balance_row = rows.try_emplace(key, static_cast<int>(rows.size())).first->second;
          o.balance_side = a.job_type < b ? 1 : -1;
        }
        options[t].push_back(o);
      }
    }
  }
  return options;
}

struct Frontier {
  double cheapest_usd = 0;
  std::vector<CostBoundPoint> points;
};

// Budgets are factors of `reference_hours`, the mean with every job alone
// on its fastest type.
StatusOr<Frontier> Solve(const GavelThroughputs& table, const std::vector<TypeWork>& types,
                         int jobs, const std::vector<double>& price,
                         const std::vector<double>& factors, Sharing sharing,
                         double reference_hours) {
  const std::vector<std::vector<JobOption>> options = Options(table, types, price, sharing);
  Frontier f;
  const double n = jobs;
  std::vector<double> budgets = factors;
  budgets.push_back(1e9);  // the cheapest mix at any duration
  for (double factor : budgets) {
    double usd = 0;
    ASSIGN_OR_RETURN(std::vector<std::vector<double>> mix,
                     SolveCheapestWithinHoursLp(options, factor * reference_hours * n, &usd));
    double hours = 0;
    for (size_t t = 0; t < mix.size(); ++t) {
      for (size_t o = 0; o < mix[t].size(); ++o) hours += mix[t][o] * options[t][o].hours;
    }
    f.points.push_back({factor, hours / n, usd / n});
  }
  f.cheapest_usd = f.points.back().avg_usd;
  f.points.pop_back();
  return f;
}

}  // namespace

StatusOr<double> GavelFastestMeanHours(const GavelThroughputs& table,
                                       const std::vector<GavelSimJob>& jobs) {
  if (jobs.empty()) return InvalidArgumentError("cost bound: no jobs");
  double hours = 0;
  for (const GavelSimJob& job : jobs) {
    if (job.job_type < 0 || job.job_type >= table.num_job_types()) {
      return InvalidArgumentError("cost bound: job " + std::to_string(job.id) +
                                  " has no job type in the table");
    }
    double iso = 0;
    for (int w = 0; w < table.num_workers(); ++w) iso = std::max(iso, table.Isolated(job.job_type, w));
    if (!(iso > 0)) {
      return InvalidArgumentError("cost bound: no GPU type runs job type " +
                                  table.job_types()[job.job_type].name);
    }
    hours += job.total_steps / (iso * 3600);
  }
  return hours / static_cast<double>(jobs.size());
}

StatusOr<GavelCostBound> ComputeGavelCostBound(const GavelThroughputs& table,
                                               const std::vector<GavelSimJob>& jobs,
                                               const std::vector<double>& price_usd_per_hour,
                                               const std::vector<double>& jct_factors) {
  if (price_usd_per_hour.size() != static_cast<size_t>(table.num_workers())) {
    return InvalidArgumentError("cost bound: " + std::to_string(price_usd_per_hour.size()) +
                                " prices for " + std::to_string(table.num_workers()) +
                                " GPU types");
  }
  for (double f : jct_factors) {
    if (!(f >= 1)) {
      return InvalidArgumentError("cost bound: JCT factor " + std::to_string(f) +
                                  " is below 1 (no policy is faster than every job on its "
                                  "fastest type)");
    }
  }
  ASSIGN_OR_RETURN(const double fastest_hours, GavelFastestMeanHours(table, jobs));
  std::vector<TypeWork> types;
  std::vector<int> index(table.num_job_types(), -1);
  for (const GavelSimJob& job : jobs) {
    if (index[job.job_type] < 0) {
      index[job.job_type] = static_cast<int>(types.size());
      types.push_back({job.job_type, table.job_types()[job.job_type].scale_factor, 0});
    }
    types[index[job.job_type]].steps += job.total_steps;
  }
  std::vector<double> factors = jct_factors;
  factors.insert(factors.begin(), 1.0);  // the fastest mix's own cost
  const int n = static_cast<int>(jobs.size());
  ASSIGN_OR_RETURN(Frontier alone, Solve(table, types, n, price_usd_per_hour, factors,
                                         Sharing::kNone, fastest_hours));
  // A pair measured faster than alone only lowers the shared bounds below
  // this common reference, which keeps them lower bounds.
  ASSIGN_OR_RETURN(Frontier shared, Solve(table, types, n, price_usd_per_hour, factors,
                                          Sharing::kBalanced, fastest_hours));
  ASSIGN_OR_RETURN(Frontier free, Solve(table, types, n, price_usd_per_hour, factors,
                                        Sharing::kFreePartners, fastest_hours));
  GavelCostBound b;
  b.jobs = n;
  b.fastest_hours = fastest_hours;
  b.fastest_usd = alone.points.front().avg_usd;
  b.cheapest_alone_usd = alone.cheapest_usd;
  b.cheapest_shared_usd = shared.cheapest_usd;
  b.cheapest_free_partners_usd = free.cheapest_usd;
  b.alone.assign(alone.points.begin() + 1, alone.points.end());
  b.shared.assign(shared.points.begin() + 1, shared.points.end());
  b.free_partners.assign(free.points.begin() + 1, free.points.end());
  return b;
}

}  // namespace gpufleet::place
