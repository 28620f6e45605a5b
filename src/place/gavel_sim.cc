#include "place/gavel_sim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "place/python_random.h"

namespace gpufleet::place {
namespace {

// Gavel's job_table.py, in its order: the template names, and whether a
// template has multi-GPU (distributed) forms.
struct GavelTemplate {
  const char* name;
  bool distributed;
};
constexpr GavelTemplate kGavelJobTable[] = {
    {"ResNet-18 (batch size 16)", true},
    {"ResNet-18 (batch size 32)", true},
    {"ResNet-18 (batch size 64)", true},
    {"ResNet-18 (batch size 128)", true},
    {"ResNet-18 (batch size 256)", true},
    {"ResNet-50 (batch size 16)", true},
    {"ResNet-50 (batch size 32)", true},
    {"ResNet-50 (batch size 64)", true},
    {"ResNet-50 (batch size 128)", true},
    {"Transformer (batch size 16)", true},
    {"Transformer (batch size 32)", true},
    {"Transformer (batch size 64)", true},
    {"Transformer (batch size 128)", true},
    {"Transformer (batch size 256)", true},
    {"LM (batch size 5)", true},
    {"LM (batch size 10)", true},
    {"LM (batch size 20)", true},
    {"LM (batch size 40)", true},
    {"LM (batch size 80)", true},
    {"Recommendation (batch size 512)", false},
    {"Recommendation (batch size 1024)", false},
    {"Recommendation (batch size 2048)", false},
    {"Recommendation (batch size 4096)", false},
    {"Recommendation (batch size 8192)", false},
    {"A3C", false},
    {"CycleGAN", false},
};

// Gavel's Philly-derived scale factor for r uniform in [0, 1): 2 on
// [0.7, 0.8], 4 on (0.8, 0.95], 8 above (its boundaries, utils.py).
int ScaleFactorFor(double r) {
  if (r >= 0.7 && r <= 0.8) return 2;
  if (r > 0.8 && r <= 0.95) return 4;
  if (r > 0.95) return 8;
  return 1;
}

// Gavel's Philly-derived V100 duration: 60 x 10^U(3, 4) s with p 0.2, else
// 60 x 10^U(1.5, 3) s; `u` draws uniform [0, 1) (the branch first).
template <class U>
double DurationSeconds(U&& u) {
  if (u() >= 0.8) return 60 * std::pow(10.0, 3 + u());
  return 60 * std::pow(10.0, 1.5 + 1.5 * u());
}

// Jobs in arrival order: `draw(job)` sets a job's scale factor, V100
// duration and type; `gap()` is the time to the next arrival, drawn after
// each job.
template <class Draw, class Gap>
StatusOr<std::vector<GavelSimJob>> DrawJobs(const GavelThroughputs& table,
                                            const GavelTraceOptions& options, int v100, Draw&& draw,
                                            Gap&& gap) {
  std::vector<GavelSimJob> out;
  double t = 0;
  for (int i = 0; i < options.num_jobs; ++i) {
    GavelSimJob job;
    job.id = i;
    job.arrival_s = t;
    RETURN_IF_ERROR(draw(job));
    job.total_steps = job.duration_v100_s * table.Isolated(job.job_type, v100);
    out.push_back(job);
    if (options.jobs_per_hour > 0) t += gap();
  }
  return out;
}

// Gavel's utils.generate_job as its simulator calls it (one generator for
// everything, drawn in this order): the scale factor (drawn even for
// single-GPU traces, then set to 1), the duration, then templates until one
// fits the scale factor; arrivals from their own generator,
// -log(1 - random()) x 3600 / rate after each job.
StatusOr<std::vector<GavelSimJob>> GenerateWithGavelDraws(const GavelThroughputs& table,
                                                          const GavelTraceOptions& options,
                                                          int v100) {
  PythonRandom rng(options.seed + 2), arrivals(options.seed + 3);
  constexpr size_t kTemplates = std::size(kGavelJobTable);
  auto draw = [&](GavelSimJob& job) -> Status {
    const int sf = ScaleFactorFor(rng.Random());
    job.duration_v100_s = DurationSeconds([&] { return rng.Random(); });
    job.scale_factor = options.multi_gpu ? sf : 1;
    const GavelTemplate* tmpl = nullptr;
    do {
      tmpl = &kGavelJobTable[rng.RandBelow(kTemplates)];
    } while (job.scale_factor > 1 && !tmpl->distributed);
    job.job_type = table.FindJobType(tmpl->name, job.scale_factor);
    if (job.job_type < 0 || !(table.Isolated(job.job_type, v100) > 0)) {
      return InvalidArgumentError(
          std::string("throughput table has no V100 throughput for \"") + tmpl->name +
          "\" at scale factor " + std::to_string(job.scale_factor) +
          " (Gavel's draws need Gavel's job table; --trace-draws std does not)");
    }
    return OkStatus();
  };
  return DrawJobs(table, options, v100, draw, [&] {
    return -std::log(1.0 - arrivals.Random()) * 3600 / options.jobs_per_hour;
  });
}

struct JobState {
  const GavelSimJob* job = nullptr;
  double steps_done = 0;
  double cost_usd = 0;
  double isolated_s = 0;      // time its steps done would have taken on its isolated share
  double iso_full_steps = 0;  // its isolated-share throughput with a whole share
  std::vector<double> time_since_reset;  // per type, Gavel's _job_time_so_far
  std::vector<double> deficit;           // per type
  int alloc_index = -1;                  // row in the current allocation; -1 = none
  int last_type = -1;                    // GPU type of the last round it ran
  int64_t last_round = -2;               // that round's index
};

// A pair of jobs the allocation gives GPU time together (packed policies).
struct PairUnit {
  int64_t a = 0, b = 0;                              // job ids
  int row = 0;                                       // row in the current allocation
  std::vector<double> a_steps_per_s, b_steps_per_s;  // co-located as measured, per type
  std::vector<char> decided_ok;                      // per type: the decision believed it feasible
};

// Scheduling state of one pair, kept across resets like a job's.
struct PairState {
  std::vector<double> time_since_reset, deficit;
};

// Allocations below this are interior-point residue, not a decision to pack.
constexpr double kMinPairShare = 1e-4;

}  // namespace

StatusOr<std::vector<GavelSimJob>> GenerateGavelJobs(const GavelThroughputs& table,
                                                     const GavelTraceOptions& options) {
  const int v100 = table.FindWorker("v100");
  if (v100 < 0) return InvalidArgumentError("throughput table has no v100 worker (the reference)");
  if (options.jobs_per_hour < 0) return InvalidArgumentError("jobs_per_hour must be >= 0");
  if (options.gavel_draws) return GenerateWithGavelDraws(table, options, v100);
  // Templates: the single-GPU job types; "distributed" when the table has the
  // same name at a larger scale factor.
  std::vector<int> templates;
  for (int j = 0; j < table.num_job_types(); ++j) {
    if (table.job_types()[j].scale_factor == 1) templates.push_back(j);
  }
  if (templates.empty()) return InvalidArgumentError("throughput table has no single-GPU job types");
  if (options.multi_gpu) {
    for (int sf : {2, 4, 8}) {
      bool any = false;
      for (int tmpl : templates) any = any || table.FindJobType(table.job_types()[tmpl].name, sf) >= 0;
      if (!any) return InvalidArgumentError("throughput table has no job type at scale factor " + std::to_string(sf));
    }
  }
  std::mt19937_64 type_rng(options.seed * 4 + 2), arrival_rng(options.seed * 4 + 3);
  std::exponential_distribution<double> gap(options.jobs_per_hour > 0 ? options.jobs_per_hour / 3600.0 : 1.0);
  std::uniform_real_distribution<double> u01(0, 1);
  auto draw = [&](GavelSimJob& job) -> Status {
    job.scale_factor = options.multi_gpu ? ScaleFactorFor(u01(type_rng)) : 1;
    job.duration_v100_s = DurationSeconds([&] { return u01(type_rng); });
    for (int tries = 0;; ++tries) {
      const int tmpl = templates[std::uniform_int_distribution<size_t>(0, templates.size() - 1)(type_rng)];
      const int k = table.FindJobType(table.job_types()[tmpl].name, job.scale_factor);
      if (k >= 0 && table.Isolated(k, v100) > 0) {
        job.job_type = k;
        return OkStatus();
      }
      if (tries > 10000)
        return InternalError("no job type with scale factor " + std::to_string(job.scale_factor));
    }
  };
  return DrawJobs(table, options, v100, draw, [&] { return gap(arrival_rng); });
}

StatusOr<GavelSimResult> SimulateGavel(const GavelThroughputs& table,
                                       const std::vector<GavelSimJob>& jobs, GavelPolicy& policy,
                                       const GavelSimOptions& options) {
  const int nt = table.num_workers();
  if (static_cast<int>(options.workers.size()) != nt) {
    return InvalidArgumentError("workers: expected one count per GPU type of the table");
  }
  if (!(options.startup_s >= 0 && options.startup_s < options.round_s)) {
    return InvalidArgumentError("startup_s: expected from 0 to less than a round (" +
                                std::to_string(options.round_s) + " s)");
  }
  std::vector<double> price = options.price_usd_per_hour;
  price.resize(nt, 0.0);
  double total_workers = 0;
  for (int w : options.workers) total_workers += w;
  // Gavel walks types in the order v100, p100, k80 (fastest first).
  std::vector<int> type_order;
  for (const char* n : {"v100", "p100", "k80"}) {
    if (table.FindWorker(n) >= 0) type_order.push_back(table.FindWorker(n));
  }
  for (int w = 0; w < nt; ++w) {
    if (std::find(type_order.begin(), type_order.end(), w) == type_order.end()) type_order.push_back(w);
  }
  std::mt19937_64 shuffle_rng(options.seed * 4 + 5);

  GavelSimResult res;
  res.policy = policy.name();
  std::vector<JobState> active;
  GavelAllocation alloc;
  std::vector<PairUnit> pair_units;  // pairs of the current allocation
  std::map<std::pair<int64_t, int64_t>, PairState> pair_state;
  std::vector<double> worker_time(nt, 0.0);
  size_t next = 0;
  double now = 0, last_reset = 0;
  bool ever_reset = false, need_update = false;
  double jct_sum = 0, cost_sum = 0, rho_sum = 0;
  int measured_total = 0;
  for (const GavelSimJob& j : jobs) {
    if (j.id >= options.measure_begin && j.id < options.measure_end) ++measured_total;
  }
  res.measured_jobs = measured_total;
  const double half_round = options.round_s / 2;
  if (options.decision_pairs != nullptr && (options.decision_pairs->num_workers() != nt ||
                                            options.decision_pairs->num_job_types() != table.num_job_types())) {
    return InvalidArgumentError("decision_pairs: not the shape of the simulated table");
  }
  // The pair throughputs decisions are made with (without decision_pairs,
  // the measured table), updated from what pairs show when they run.
  GavelThroughputs decide = options.decision_pairs ? *options.decision_pairs : table;

  while (res.completed_measured < measured_total) {
    if (now > options.max_sim_hours * 3600) {
      res.saturated = true;
      break;
    }
    // Arrivals up to now.
    while (next < jobs.size() && jobs[next].arrival_s <= now) {
      JobState s;
      s.job = &jobs[next];
      s.time_since_reset.assign(nt, half_round);
      s.deficit.assign(nt, 0.0);
      GavelActiveJob probe;
      probe.scale_factor = s.job->scale_factor;
      for (int w = 0; w < nt; ++w) probe.steps_per_s.push_back(table.Isolated(s.job->job_type, w));
      s.iso_full_steps = GavelIsolatedSteps(probe, options.workers, 0);
      active.push_back(std::move(s));
      need_update = true;
      ++next;
    }
    if (active.empty()) {
      if (next >= jobs.size()) break;
      now = jobs[next].arrival_s;
      continue;
    }
    // Reset and reallocate (Gavel's _update_priorities in simulation).
    if (need_update && (!ever_reset || now - last_reset >= options.min_reset_interval_s)) {
      const double elapsed = now - last_reset;
      std::fill(worker_time.begin(), worker_time.end(), 0.0);
      const auto settle = [&](std::vector<double>& time_since_reset, std::vector<double>& deficit,
                              const std::vector<double>* row) {
        for (int w = 0; w < nt; ++w) {
          const double got = time_since_reset[w] - half_round;
          const double should = row != nullptr ? (*row)[w] * elapsed : 0.0;
          deficit[w] += should - got;
          time_since_reset[w] = half_round;
          worker_time[w] += half_round;
        }
      };
      for (JobState& s : active)
        settle(s.time_since_reset, s.deficit, s.alloc_index >= 0 ? &alloc[s.alloc_index] : nullptr);
      std::map<std::pair<int64_t, int64_t>, PairState> kept_pairs;
      for (const PairUnit& u : pair_units) {
        auto it = pair_state.find({u.a, u.b});
        if (it == pair_state.end()) continue;
        PairState st = std::move(it->second);
        std::fill(st.time_since_reset.begin(), st.time_since_reset.end(), half_round);
        kept_pairs[{u.a, u.b}] = std::move(st);
      }
      last_reset = now;
      ever_reset = true;
      GavelAllocationInput in;
      in.workers = options.workers;
      in.worker_names = table.workers();
      in.price_usd_per_hour = price;
      in.reference_type = table.FindWorker("v100");
      for (size_t i = 0; i < active.size(); ++i) {
        const GavelSimJob& j = *active[i].job;
        GavelActiveJob a;
        a.id = j.id;
        a.job_type = j.job_type;
        a.scale_factor = j.scale_factor;
        a.steps_remaining = j.total_steps - active[i].steps_done;
        a.seconds_since_arrival = now - j.arrival_s;
        a.isolated_seconds = active[i].isolated_s;
        for (int w = 0; w < nt; ++w) a.steps_per_s.push_back(table.Isolated(j.job_type, w));
        in.jobs.push_back(std::move(a));
        active[i].alloc_index = static_cast<int>(i);
      }
      std::vector<std::pair<std::vector<double>, std::vector<double>>> measured_pairs;
      if (policy.packed()) {
        for (size_t a = 0; a < active.size(); ++a) {
          for (size_t b = a + 1; b < active.size(); ++b) {
            const GavelSimJob &ja = *active[a].job, &jb = *active[b].job;
            if (ja.scale_factor != jb.scale_factor) continue;
            GavelPairThroughput p;
            p.a = a, p.b = b;
            std::vector<double> real_a, real_b;
            bool any = false;
            for (int w = 0; w < nt; ++w) {
              // Decided with decide's values, run at the measured ones.
              auto put = [&](const GavelThroughputs& t, std::vector<double>& sa, std::vector<double>& sb) {
                const GavelColocation& c = t.Colocated(w, ja.job_type, jb.job_type);
                const bool ok = c.measured && c.self_steps_per_s > 0 && c.other_steps_per_s > 0;
                sa.push_back(ok ? c.self_steps_per_s : 0.0);
                sb.push_back(ok ? c.other_steps_per_s : 0.0);
              };
              put(decide, p.a_steps_per_s, p.b_steps_per_s);
              put(table, real_a, real_b);
              any = any || p.a_steps_per_s.back() > 0;
            }
            if (!any) continue;
            in.pairs.push_back(std::move(p));
            measured_pairs.emplace_back(std::move(real_a), std::move(real_b));
          }
        }
      }
      const auto t0 = std::chrono::steady_clock::now();
      auto x = policy.Allocate(in);
      res.solve_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!x.ok()) return x.status().WithContext("policy " + policy.name() + " at t=" + std::to_string(now) + " s");
      alloc = std::move(*x);
      if (alloc.size() < in.jobs.size() + (policy.packed() ? in.pairs.size() : 0)) {
        return InternalError("policy " + policy.name() + " returned too few allocation rows");
      }
      pair_units.clear();
      for (size_t p = 0; policy.packed() && p < in.pairs.size(); ++p) {
        const int row = static_cast<int>(in.jobs.size() + p);
        if (*std::max_element(alloc[row].begin(), alloc[row].end()) < kMinPairShare) continue;
        PairUnit u;
        u.a = in.jobs[in.pairs[p].a].id, u.b = in.jobs[in.pairs[p].b].id;
        u.row = row;
        u.a_steps_per_s = measured_pairs[p].first, u.b_steps_per_s = measured_pairs[p].second;
        for (int w = 0; w < nt; ++w) {
          u.decided_ok.push_back(in.pairs[p].a_steps_per_s[w] > 0 && in.pairs[p].b_steps_per_s[w] > 0);
        }
        PairState& st = kept_pairs[{u.a, u.b}];
        if (st.deficit.empty())
          st.deficit.assign(nt, 0.0), st.time_since_reset.assign(nt, half_round);
        for (int w = 0; w < nt; ++w) worker_time[w] += half_round;
        pair_units.push_back(std::move(u));
      }
      pair_state = std::move(kept_pairs);
      ++res.allocations;
      need_update = false;
    }
    // Priorities and the greedy per-type pass over jobs and pairs.
    std::unordered_map<int64_t, size_t> index_of;
    for (size_t i = 0; i < active.size(); ++i) index_of[active[i].job->id] = i;
    std::vector<int> order = type_order;
    if (policy.shuffles_types()) std::shuffle(order.begin(), order.end(), shuffle_rng);
    std::vector<int> free = options.workers;
    std::vector<int> placed_type(active.size(), -1);
    std::vector<double> placed_tput(active.size(), 0.0);
    std::vector<int> placed_pair(active.size(), -1);  // index in pair_units, -1 = alone
    const double startup_s = options.startup_s;
    // Whether job i keeps running on type w from the round before.
    const auto warm = [&](size_t i, int w) {
      return active[i].last_round == res.rounds - 1 && active[i].last_type == w;
    };
    // What a start-up-aware round makes of a priority: the part of the round
    // the unit would work.
    const double cold_share = policy.startup_aware() ? 1 - startup_s / options.round_s : 1;
    // Gavel's priority of job i on type w: its allocation over the share of
    // that type's time it got since the reset.
    const auto job_priority = [&](size_t i, int w) {
      const JobState& s = active[i];
      const double x = s.alloc_index >= 0 ? alloc[s.alloc_index][w] : 0.0;
      if (x <= 0) return 0.0;
      const double fraction = worker_time[w] > 0 ? s.time_since_reset[w] / worker_time[w] : 0.0;
      return fraction > 0 ? x / fraction : x * 1e9;
    };
    for (int w : order) {
      // (priority, deficit, x, unit): unit < active.size() is a job, else a pair.
      std::vector<std::tuple<double, double, double, size_t>> queue;
      for (size_t i = 0; i < active.size(); ++i) {
        if (placed_type[i] >= 0) continue;
        const JobState& s = active[i];
        const double x = s.alloc_index >= 0 ? alloc[s.alloc_index][w] : 0.0;
        const double tput = table.Isolated(s.job->job_type, w);
        if (tput <= 0) continue;
        double priority = job_priority(i, w);
        if (policy.strict_allocation() && priority <= 0) continue;
        if (!warm(i, w)) priority *= cold_share;
        queue.emplace_back(priority, s.deficit[w], x, i);
      }
      for (size_t p = 0; p < pair_units.size(); ++p) {
        const PairUnit& u = pair_units[p];
        const double x = alloc[u.row][w];
        if (x < kMinPairShare || !u.decided_ok[w]) continue;
        if (!index_of.count(u.a) || !index_of.count(u.b)) continue;  // one of them finished
        const PairState& st = pair_state[{u.a, u.b}];
        const double fraction = worker_time[w] > 0 ? st.time_since_reset[w] / worker_time[w] : 0.0;
        const bool both_warm = warm(index_of[u.a], w) && warm(index_of[u.b], w);
        queue.emplace_back((fraction > 0 ? x / fraction : x * 1e9) * (both_warm ? 1 : cold_share),
                           st.deficit[w], x, active.size() + p);
      }
      std::sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
        if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
        if (std::get<2>(a) != std::get<2>(b)) return std::get<2>(a) > std::get<2>(b);
        return std::get<3>(a) < std::get<3>(b);
      });
      for (const auto& q : queue) {
        if (free[w] == 0) break;
        const size_t unit = std::get<3>(q);
        if (unit < active.size()) {
          const int sf = active[unit].job->scale_factor;
          if (placed_type[unit] >= 0 || sf > free[w]) continue;
          free[w] -= sf;
          placed_type[unit] = w;
          placed_tput[unit] = table.Isolated(active[unit].job->job_type, w);
          continue;
        }
        const size_t p = unit - active.size();
        const size_t ia = index_of[pair_units[p].a], ib = index_of[pair_units[p].b];
        const int sf = active[ia].job->scale_factor;
        if (placed_type[ia] >= 0 || placed_type[ib] >= 0 || sf > free[w]) continue;
        free[w] -= sf;
        placed_type[ia] = placed_type[ib] = w;
        placed_tput[ia] = pair_units[p].a_steps_per_s[w];
        placed_tput[ib] = pair_units[p].b_steps_per_s[w];
        placed_pair[ia] = placed_pair[ib] = static_cast<int>(p);
      }
    }
    // Run the round. A job alone runs at its isolated throughput; a pair's
    // jobs at their co-located ones, the GPU's time and price split between them.
    double round_end = now;
    bool any = false;
    std::vector<double> finish(active.size(), -1);
    std::vector<double> pair_exec(pair_units.size(), 0.0);
    const double workers_per_job = total_workers / static_cast<double>(active.size());
    for (size_t i = 0; i < active.size(); ++i) {
      const int w = placed_type[i];
      if (w < 0) continue;
      JobState& s = active[i];
      const double tput = placed_tput[i];
      // A job that starts spends the start-up first, on its GPUs.
      const double startup = warm(i, w) ? 0.0 : startup_s;
      if (startup > 0) ++res.startups;
      s.last_type = w;
      s.last_round = res.rounds;
      // Zero: a pair the decision wrongly thought feasible, out of memory; it
      // holds the GPU for the round.
      const double steps = tput > 0 ? std::min(std::floor(tput * (options.round_s - startup)),
                                               s.job->total_steps - s.steps_done)
                                    : 0.0;
      const double exec = tput > 0 ? startup + steps / tput : options.round_s;
      s.steps_done += steps;
      const double iso = s.iso_full_steps * std::min(1.0, workers_per_job / s.job->scale_factor);
      if (iso > 0) s.isolated_s += steps / iso;
      if (placed_pair[i] < 0) {
        s.time_since_reset[w] += exec;
        worker_time[w] += exec;
        s.cost_usd += exec / 3600 * s.job->scale_factor * price[w];
      } else {
        pair_exec[placed_pair[i]] = std::max(pair_exec[placed_pair[i]], exec);
        s.cost_usd += exec / 3600 * s.job->scale_factor * price[w] / 2;
      }
      finish[i] = now + exec;
      round_end = std::max(round_end, now + exec);
      any = true;
    }
    for (size_t p = 0; p < pair_units.size(); ++p) {
      if (pair_exec[p] <= 0) continue;
      const int w = placed_type[index_of[pair_units[p].a]];
      const double ra = pair_units[p].a_steps_per_s[w], rb = pair_units[p].b_steps_per_s[w];
      const bool oom = ra <= 0 || rb <= 0;
      if (oom) {
        ++res.pair_oom_rounds;
        pair_units[p].decided_ok[w] = 0;
      }
      // Only a decision table learns: writing the measured table back would
      // make (b, a) the mirror of (a, b), which Gavel measured separately.
      if (options.decision_pairs != nullptr && (oom || options.learn_pairs)) {
        const int ta = active[index_of[pair_units[p].a]].job->job_type;
        const int tb = active[index_of[pair_units[p].b]].job->job_type;
        decide.SetColocated(w, ta, tb, oom ? 0 : ra, oom ? 0 : rb);
        decide.SetColocated(w, tb, ta, oom ? 0 : rb, oom ? 0 : ra);
      }
      pair_state[{pair_units[p].a, pair_units[p].b}].time_since_reset[w] += pair_exec[p];
      worker_time[w] += pair_exec[p];
      ++res.pair_rounds;
    }
    ++res.rounds;
    if (!any) {
      // Nothing could run (all GPUs unusable for the active jobs): wait for the next arrival.
      if (next >= jobs.size()) {
        // What is left can never run: a policy gave them only types they
        // cannot run on (as `fifo:code` can; Gavel's simulator would wait
        // forever). They stay uncompleted: completed_measured says whether
        // any of them was measured.
        res.stranded_jobs = static_cast<int64_t>(active.size());
        break;
      }
      now = std::max(now + options.round_s, jobs[next].arrival_s);
      continue;
    }
    // Completions.
    std::vector<JobState> still;
    still.reserve(active.size());
    for (size_t i = 0; i < active.size(); ++i) {
      JobState& s = active[i];
      if (finish[i] >= 0 && s.steps_done >= s.job->total_steps - 1e-9) {
        if (s.job->id >= options.measure_begin && s.job->id < options.measure_end) {
          jct_sum += finish[i] - s.job->arrival_s;
          res.measured_jct_s.emplace_back(s.job->id, finish[i] - s.job->arrival_s);
          if (s.isolated_s > 0) rho_sum += (finish[i] - s.job->arrival_s) / s.isolated_s;
          res.makespan_hours = std::max(res.makespan_hours, finish[i] / 3600);
          cost_sum += s.cost_usd;
          ++res.completed_measured;
        }
        need_update = true;
        continue;
      }
      still.push_back(std::move(s));
    }
    active = std::move(still);
    now = round_end;
  }
  if (res.completed_measured > 0) {
    res.avg_jct_hours = jct_sum / res.completed_measured / 3600;
    res.avg_cost_usd = cost_sum / res.completed_measured;
    res.avg_ftf_rho = rho_sum / res.completed_measured;
  }
  return res;
}

}  // namespace gpufleet::place
