#include "place/gavel_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>

#include "place/gavel_allox.h"
#include "place/python_random.h"

namespace gpufleet::place {
namespace {

// Gavel's space-sharing variables, one per measured pair and GPU type,
// `scale[m]` multiplying job m's throughputs into its objective term. With
// `prune`, a pair on type j that gives its jobs normalized throughputs
// n_a + n_b <= 1 is dropped: time-slicing the two alone on the same type for
// n_a and n_b of the time gives the same throughputs with no more GPU time
// and no more of either job's time, so no optimum's value changes. Gavel
// keeps them, and where the optimum is degenerate (light load: the minimum
// is pinned by jobs that cannot go faster) its interior-point solution gives
// such pairs time, which slows the jobs with slack (docs/scheduling.md).
// What a pair's two jobs get together on type t, each as a share of what it
// gets alone there (> 1: sharing the GPU beats time-slicing it). The caller
// checks that both jobs run alone on t.
double PairNormalizedSum(const GavelAllocationInput& in, const GavelPairThroughput& p, size_t t) {
  return p.a_steps_per_s[t] / in.jobs[p.a].steps_per_s[t] +
         p.b_steps_per_s[t] / in.jobs[p.b].steps_per_s[t];
}

// Each job's throughputs times its objective scale: the single-job
// coefficients of a per-job LP.
std::vector<std::vector<double>> ScaledThroughputs(const GavelAllocationInput& in,
                                                   const std::vector<double>& scale) {
  std::vector<std::vector<double>> coeff(in.jobs.size());
  for (size_t i = 0; i < in.jobs.size(); ++i) {
    for (double v : in.jobs[i].steps_per_s) coeff[i].push_back(v * scale[i]);
  }
  return coeff;
}

std::vector<GavelPairCoeff> PackablePairs(const GavelAllocationInput& in,
                                          const std::vector<double>& scale, bool prune = true) {
  std::vector<GavelPairCoeff> out;
  out.reserve(in.pairs.size());
  const size_t nt = in.workers.size();
  for (const GavelPairThroughput& p : in.pairs) {
    GavelPairCoeff c;
    c.a = p.a, c.b = p.b;
    c.a_coeff.assign(nt, 0.0), c.b_coeff.assign(nt, 0.0);
    const GavelActiveJob &ja = in.jobs[p.a], &jb = in.jobs[p.b];
    for (size_t t = 0; t < nt; ++t) {
      const double ta = ja.steps_per_s[t], tb = jb.steps_per_s[t];
      if (ta <= 0 || tb <= 0 || p.a_steps_per_s[t] <= 0 || p.b_steps_per_s[t] <= 0) continue;
      if (prune && PairNormalizedSum(in, p, t) <= 1.0) continue;
      c.a_coeff[t] = p.a_steps_per_s[t] * scale[p.a];
      c.b_coeff[t] = p.b_steps_per_s[t] * scale[p.b];
    }
    out.push_back(std::move(c));
  }
  return out;
}

// The packed max-min LP over classes of interchangeable jobs (gavel_lp.h):
// with a hundred active jobs the per-job LP has ~10^4 pair columns and takes
// seconds; over Gavel's 26 job types it has at most ~10^3 whatever the load.
// Each job gets its class's share, each job pair its class pair's. Falls
// back to one class per job when the job types are unknown or the pairs of
// two classes are not all given. With `cheapest_keep` > 0 the allocation is
// the cheapest one keeping that share of each class's max-min term
// (SolveCheapestFairClassLp, at the input's prices).
StatusOr<GavelAllocation> SolvePackedByClass(const GavelAllocationInput& in,
                                             const std::vector<double>& scale, bool by_class,
                                             bool prune, double cheapest_keep = 0) {
  const size_t m = in.jobs.size();
  std::vector<GavelPairCoeff> pairs = PackablePairs(in, scale, prune);
  std::map<std::tuple<int, int, double>, size_t> class_index;
  std::vector<size_t> cls(m);
  std::vector<GavelJobClass> classes;
  std::vector<double> scale_sum;
  for (size_t i = 0; i < m; ++i) {
    const GavelActiveJob& j = in.jobs[i];
    const int key_type = j.job_type >= 0 ? j.job_type : -1 - static_cast<int>(i);
    const auto [it, fresh] =
        class_index.try_emplace({key_type, j.scale_factor, j.priority_weight}, classes.size());
    if (fresh) {
      classes.push_back({0, j.scale_factor, std::vector<double>(in.workers.size(), 0.0)});
      scale_sum.push_back(0);
    }
    cls[i] = it->second;
    ++classes[cls[i]].count;
    scale_sum[cls[i]] += scale[i];
  }
  for (size_t c = 0; c < classes.size(); ++c) {
    const size_t rep = std::find(cls.begin(), cls.end(), c) - cls.begin();
    for (size_t t = 0; t < in.workers.size(); ++t) {
      classes[c].coeff[t] = in.jobs[rep].steps_per_s[t] * scale_sum[c] / classes[c].count;
    }
  }
  std::map<std::pair<size_t, size_t>, size_t> pair_index;
  std::vector<GavelClassPair> class_pairs;
  std::vector<double> pair_count;
  std::vector<size_t> pair_of(pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    size_t c = cls[pairs[p].a], d = cls[pairs[p].b];
    const bool swap = c > d;
    if (swap) std::swap(c, d);
    const auto [it, fresh] = pair_index.try_emplace({c, d}, class_pairs.size());
    if (fresh) {
      // Coefficients per job of each class, without the per-job scale (the
      // class's mean scale instead, as for the single-job columns).
      GavelClassPair cp{c, d, swap ? pairs[p].b_coeff : pairs[p].a_coeff,
                        swap ? pairs[p].a_coeff : pairs[p].b_coeff};
      const size_t jc = swap ? pairs[p].b : pairs[p].a, jd = swap ? pairs[p].a : pairs[p].b;
      for (double& v : cp.c_coeff) v *= scale_sum[c] / classes[c].count / scale[jc];
      for (double& v : cp.d_coeff) v *= scale_sum[d] / classes[d].count / scale[jd];
      class_pairs.push_back(std::move(cp));
      pair_count.push_back(0);
    }
    pair_of[p] = it->second;
    ++pair_count[it->second];
  }
  bool complete = true;
  for (size_t q = 0; q < class_pairs.size(); ++q) {
    const double nc = classes[class_pairs[q].c].count, nd = classes[class_pairs[q].d].count;
    complete = complete && pair_count[q] ==
                               (class_pairs[q].c == class_pairs[q].d ? nc * (nc - 1) / 2 : nc * nd);
  }
  std::vector<int> sf(m);
  for (size_t i = 0; i < m; ++i) sf[i] = in.jobs[i].scale_factor;
  if (!complete || !by_class) {
    const std::vector<std::vector<double>> coeff = ScaledThroughputs(in, scale);
    if (cheapest_keep <= 0) return SolveMaxMinPackedLp(coeff, pairs, sf, in.workers, /*interior=*/true);
    // One class per job.
    classes.assign(m, GavelJobClass{});
    for (size_t i = 0; i < m; ++i) classes[i] = {1, sf[i], coeff[i]};
    class_pairs.clear();
    for (const GavelPairCoeff& p : pairs) class_pairs.push_back({p.a, p.b, p.a_coeff, p.b_coeff});
    return SolveCheapestFairClassLp(classes, class_pairs, in.workers, in.price_usd_per_hour,
                                    cheapest_keep);
  }
  ASSIGN_OR_RETURN(GavelAllocation y,
                   cheapest_keep > 0
                       ? SolveCheapestFairClassLp(classes, class_pairs, in.workers,
                                                  in.price_usd_per_hour, cheapest_keep)
                       : SolveMaxMinClassLp(classes, class_pairs, in.workers, /*interior=*/true));
  GavelAllocation x(m + pairs.size());
  for (size_t i = 0; i < m; ++i) x[i] = y[cls[i]];
  for (size_t p = 0; p < pairs.size(); ++p) x[m + p] = y[classes.size() + pair_of[p]];
  return x;
}

}  // namespace

double GavelIsolatedSteps(const GavelActiveJob& job, const std::vector<int>& workers,
                          size_t active_jobs) {
  double total = 0, weighted = 0;
  for (size_t t = 0; t < workers.size(); ++t) {
    total += workers[t];
    if (t < job.steps_per_s.size()) weighted += workers[t] * job.steps_per_s[t];
  }
  if (total <= 0) return 0;
  const double n = static_cast<double>(std::max<size_t>(active_jobs, 1));
  const double share = std::min(1.0, total / (n * std::max(job.scale_factor, 1)));
  return share * weighted / total;
}

namespace {

enum class Form { kAgnostic, kPerf, kPacked };

std::string FormName(const std::string& base, Form form) {
  return base + (form == Form::kPerf ? "_perf" : form == Form::kPacked ? "_packed" : "");
}

// FIFO (`scheduler/policies/fifo.py`): jobs in arrival order each get one GPU
// type with enough free GPUs for the whole of their time. Agnostic: a random
// such type, kept until the job ends. `_perf`: recomputed each time, the
// fastest type with room.
// `_packed` (Gavel's FIFO with packing): as `_perf`, and once no GPU is
// free, each waiting job in arrival order joins the running job (alone on its
// GPU) with which its pair's normalized throughputs on that job's type sum
// highest, if above 1.5 (Gavel's threshold for a gain worth packing for); the
// pair keeps that GPU until one of them ends, and the other then queues again.
class FifoPolicy : public GavelPolicy {
 public:
  FifoPolicy(Form form, uint64_t seed, bool raw_steps = false)
      : perf_(form != Form::kAgnostic),
        packed_(form == Form::kPacked),
        raw_steps_(raw_steps),
        rng_(seed),
        name_(FormName("fifo", form) + (raw_steps ? ":raw" : "")) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }
  bool strict_allocation() const override { return true; }
  bool packed() const override { return packed_; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t nt = in.workers.size(), m = in.jobs.size();
    std::vector<int> free = in.workers;
    std::map<int64_t, size_t> index;
    for (size_t i = 0; i < m; ++i) index[in.jobs[i].id] = i;
    std::vector<PackedPair> kept_pairs;
    std::map<int64_t, bool> paired;
    for (const PackedPair& p : pairs_) {
      if (!index.count(p.a) || !index.count(p.b)) continue;
      kept_pairs.push_back(p);
      paired[p.a] = paired[p.b] = true;
      free[p.type] -= in.jobs[index[p.a]].scale_factor;
    }
    pairs_ = std::move(kept_pairs);
    std::map<int64_t, int> kept;
    if (!perf_) {
      for (const GavelActiveJob& j : in.jobs) {
        auto it = assigned_.find(j.id);
        if (it != assigned_.end()) kept.emplace(j.id, it->second);
      }
    }
    assigned_ = kept;
    for (const GavelActiveJob& j : in.jobs) {
      auto it = assigned_.find(j.id);
      if (it != assigned_.end()) free[it->second] -= j.scale_factor;
    }
    std::vector<size_t> order(m);
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return in.jobs[a].id < in.jobs[b].id; });
    bool queue = false;
    for (size_t i : order) {
      const GavelActiveJob& j = in.jobs[i];
      if (assigned_.count(j.id) || paired.count(j.id)) continue;
      std::vector<int> fits;
      for (size_t t = 0; t < nt; ++t) {
        if (free[t] >= j.scale_factor) fits.push_back(static_cast<int>(t));
      }
      if (fits.empty()) {
        queue = true;
        break;  // FIFO: nobody jumps the queue
      }
      int type = fits[0];
      if (perf_) {
        for (int t : fits) {
          if (j.steps_per_s[t] > j.steps_per_s[type]) type = t;
        }
      } else {
        type = fits[std::uniform_int_distribution<size_t>(0, fits.size() - 1)(rng_)];
      }
      assigned_[j.id] = type;
      free[type] -= j.scale_factor;
    }
    std::map<std::pair<size_t, size_t>, size_t> pair_row;
    for (size_t p = 0; p < in.pairs.size(); ++p) {
      pair_row[{std::min(in.pairs[p].a, in.pairs[p].b), std::max(in.pairs[p].a, in.pairs[p].b)}] =
          p;
    }
    // Normalized throughputs of jobs ia and ib together on type t (0: not measured).
    const auto packed_norm = [&](size_t ia, size_t ib, int t) {
      const auto it = pair_row.find({std::min(ia, ib), std::max(ia, ib)});
      if (it == pair_row.end()) return 0.0;
      const GavelPairThroughput& p = in.pairs[it->second];
      const GavelActiveJob &ja = in.jobs[p.a], &jb = in.jobs[p.b];
      if (ja.steps_per_s[t] <= 0 || jb.steps_per_s[t] <= 0) return 0.0;
      if (raw_steps_) return p.a_steps_per_s[t] + p.b_steps_per_s[t];
      return PairNormalizedSum(in, p, t);
    };
    for (size_t i : order) {
      if (!packed_ || !queue) break;
      const GavelActiveJob& j = in.jobs[i];
      if (assigned_.count(j.id) || paired.count(j.id)) continue;
      double best = kFifoPackingThreshold;
      int64_t partner = -1;
      for (const auto& [id, type] : assigned_) {
        const size_t k = index[id];
        if (in.jobs[k].scale_factor != j.scale_factor) continue;
        const double norm = packed_norm(k, i, type);
        if (norm > best) best = norm, partner = id;
      }
      if (partner < 0) continue;
      pairs_.push_back({partner, j.id, assigned_[partner]});
      paired[partner] = paired[j.id] = true;
      assigned_.erase(partner);
    }
    GavelAllocation x(m + (packed_ ? in.pairs.size() : 0), std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      auto it = assigned_.find(in.jobs[i].id);
      if (it != assigned_.end()) x[i][it->second] = 1.0;
    }
    for (const PackedPair& p : pairs_) {
      const size_t ia = index[p.a], ib = index[p.b];
      x[m + pair_row.at({std::min(ia, ib), std::max(ia, ib)})][p.type] = 1.0;
    }
    return x;
  }

 private:
  static constexpr double kFifoPackingThreshold = 1.5;
  struct PackedPair {
    int64_t a = 0, b = 0;  // job ids
    int type = 0;
  };
  bool perf_, packed_, raw_steps_;
  std::mt19937_64 rng_;
  std::string name_;
  std::map<int64_t, int> assigned_;  // job id -> GPU type, jobs running alone
  std::vector<PackedPair> pairs_;
};

// Gavel's agnostic FIFO as its code runs it (`fifo.py`, base mode, read at
// commit 3e3acf6), where it differs from what `fifo` above does:
// - the type a job gets is not the random draw: the draw only chooses which
//   type leaves the list of types with free GPUs when the assigned one's
//   count reaches exactly 0, and the job gets the last type of that list in
//   name order (the variable left from scanning it) whether or not it has
//   room for the job's GPUs. With k80, p100, v100 that is the V100 until the
//   draw removes it, so V100s are over-subscribed and the round mechanism
//   time-slices them while other types may idle;
// - a finished job's GPUs go first to the head of the queue if its scale
//   factor fits the free count at that point of the walk (in job id order);
//   a head that does not fit waits for the next allocation.
// Types and allocations are kept until a job ends, as in `fifo`. Strict: a
// job runs only on the type it was given.
class FifoAsCodedPolicy : public GavelPolicy {
 public:
  explicit FifoAsCodedPolicy(uint64_t seed) : rng_(seed) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return false; }
  bool strict_allocation() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t nt = in.workers.size(), m = in.jobs.size();
    std::vector<int> by_name(nt);
    for (size_t t = 0; t < nt; ++t) by_name[t] = static_cast<int>(t);
    if (in.worker_names.size() == nt) {
      std::sort(by_name.begin(), by_name.end(),
                [&](int a, int b) { return in.worker_names[a] < in.worker_names[b]; });
    }
    std::map<int64_t, size_t> index;
    for (size_t i = 0; i < m; ++i) index[in.jobs[i].id] = i;
    std::vector<int64_t> queue;  // arrival order (index is sorted by id)
    for (const auto& [id, i] : index) {
      if (!assigned_.count(id)) queue.push_back(id);
    }
    size_t head = 0;
    std::vector<int> free = in.workers;
    std::map<int64_t, int> next;
    for (const auto& [id, type] : assigned_) {
      auto it = index.find(id);
      if (it != index.end()) {
        free[type] -= in.jobs[it->second].scale_factor;
        next[id] = type;
        continue;
      }
      // Ended: its type goes to the head of the queue if it fits now.
      if (head < queue.size()) {
        const int64_t h = queue[head++];
        const int sf = in.jobs[index[h]].scale_factor;
        if (sf <= free[type]) {
          next[h] = type;
          free[type] -= sf;
        }
      }
    }
    std::vector<int> types;  // with free GPUs, in name order
    for (int t : by_name) {
      if (free[t] > 0) types.push_back(t);
    }
    while (head < queue.size() && !types.empty()) {
      const int64_t id = queue[head++];
      const int sf = in.jobs[index[id]].scale_factor;
      std::vector<size_t> with_room;  // positions in `types`
      for (size_t k = 0; k < types.size(); ++k) {
        if (free[types[k]] >= sf) with_room.push_back(k);
      }
      if (with_room.empty()) break;
      // fifo.py: self._rng.randrange(len(...)), its random.Random(seed).
      const size_t drawn = with_room[rng_.RandBelow(with_room.size())];
      const int type = types.back();
      next[id] = type;
      free[type] -= sf;
      if (free[type] == 0) types.erase(types.begin() + static_cast<ptrdiff_t>(drawn));
    }
    assigned_ = std::move(next);
    GavelAllocation x(m, std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      auto it = assigned_.find(in.jobs[i].id);
      if (it != assigned_.end()) x[i][it->second] = 1.0;
    }
    return x;
  }

 private:
  PythonRandom rng_;
  std::string name_ = "fifo:code";
  std::map<int64_t, int> assigned_;  // job id -> GPU type
};

// Gandiva as Gavel's `gandiva.py` models it: every job (or pair) gets an
// equal share of each GPU type, in proportion to the type's count. While
// the jobs ask for no more GPUs than there are, jobs run alone; beyond
// that, jobs not yet paired are paired at random (same scale factor) and a
// pair lasts until one of its jobs ends, the other then waiting to be
// paired again. Pair quality is not looked at. A pair that cannot share a
// GPU on any type (out of memory in the table) is not formed; both stay
// alone (Gavel would schedule the pair and never run it). Agnostic of
// throughputs, but GPU types are visited fastest first, not shuffled: Gavel's
// Gandiva runs every job on a V100 at light load (17.58 h at 0.4 jobs/h, the
// same as its `max_min_fairness_perf`).
class GandivaPolicy : public GavelPolicy {
 public:
  explicit GandivaPolicy(uint64_t seed) : rng_(seed) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return false; }
  bool shuffles_types() const override { return false; }
  bool packed() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t m = in.jobs.size(), nt = in.workers.size();
    std::map<int64_t, size_t> index;
    for (size_t i = 0; i < m; ++i) index[in.jobs[i].id] = i;
    for (auto it = partner_.begin(); it != partner_.end();) {
      const bool gone = !index.count(it->first) || !index.count(it->second);
      it = gone ? partner_.erase(it) : std::next(it);
    }
    std::map<std::pair<size_t, size_t>, size_t> pair_row;
    for (size_t p = 0; p < in.pairs.size(); ++p) {
      pair_row[{std::min(in.pairs[p].a, in.pairs[p].b), std::max(in.pairs[p].a, in.pairs[p].b)}] =
          p;
    }
    double total = 0, wanted = 0;
    for (int w : in.workers) total += w;
    for (const GavelActiveJob& j : in.jobs) wanted += j.scale_factor;
    const bool pack = wanted > total;
    if (pack) {
      std::vector<size_t> single;
      for (size_t i = 0; i < m; ++i) {
        if (!partner_.count(in.jobs[i].id)) single.push_back(i);
      }
      std::shuffle(single.begin(), single.end(), rng_);
      for (size_t k = 0; k + 1 < single.size(); k += 2) {
        const size_t a = single[k], b = single[k + 1];
        if (in.jobs[a].scale_factor != in.jobs[b].scale_factor) continue;
        if (!pair_row.count({std::min(a, b), std::max(a, b)})) continue;
        partner_[in.jobs[a].id] = in.jobs[b].id;
        partner_[in.jobs[b].id] = in.jobs[a].id;
      }
    }
    // Equal shares: type t's workers over the GPUs all combinations ask for
    // (at least all of them), so the allocation fits.
    double asked = 0;
    for (size_t i = 0; i < m; ++i) {
      const auto it = partner_.find(in.jobs[i].id);
      if (!pack || it == partner_.end() || index[it->second] > i) asked += in.jobs[i].scale_factor;
    }
    const double denominator = std::max(total, asked);
    GavelAllocation x(m + in.pairs.size(), std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      const auto it = partner_.find(in.jobs[i].id);
      size_t row = i;
      if (pack && it != partner_.end()) {
        const size_t k = index[it->second];
        const auto r = pair_row.find({std::min(i, k), std::max(i, k)});
        if (r != pair_row.end()) {
          if (k < i) continue;  // the pair's row is written once
          row = m + r->second;
        }
      }
      for (size_t t = 0; t < nt; ++t) {
        x[row][t] = denominator > 0 ? in.workers[t] / denominator : 0.0;
      }
    }
    return x;
  }

 private:
  std::mt19937_64 rng_;
  std::string name_ = "gandiva";
  std::map<int64_t, int64_t> partner_;  // job id -> its partner's, both ways
};

// The isolated share as a policy (`scheduler/policies/isolated.py`), the
// baseline Gavel's notebooks divide each job's JCT by for their
// finish-time-fairness figure: every job X_mj = workers_j / (m sf_m),
// scaled so that the largest row sums to 1 (Gavel scales unconditionally:
// up as well as down, so with more jobs than GPUs the rows still sum to 1
// and the round mechanism time-shares them). Heterogeneity-agnostic.
class IsolatedPolicy : public GavelPolicy {
 public:
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return false; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t m = in.jobs.size(), nt = in.workers.size();
    GavelAllocation x(m, std::vector<double>(nt, 0.0));
    double largest = 0;
    for (size_t i = 0; i < m; ++i) {
      double row = 0;
      for (size_t t = 0; t < nt; ++t) {
        x[i][t] = in.workers[t] / (static_cast<double>(m) * std::max(in.jobs[i].scale_factor, 1));
        row += x[i][t];
      }
      largest = std::max(largest, row);
    }
    if (largest > 0) {
      for (std::vector<double>& row : x) {
        for (double& v : row) v /= largest;
      }
    }
    return x;
  }

 private:
  std::string name_ = "isolated";
};

// Max-min fairness / LAS (`scheduler/policies/max_min_fairness.py`); the
// packed form adds the pairs of input.pairs (PackablePairs) to the `_perf`
// LP, with the same normalization.
class MaxMinFairnessPolicy : public GavelPolicy {
 public:
  // Packed variants: `suffix` "" = the class LP with every measured pair;
  // ":pruned" = the class LP without pairs that time-slicing dominates;
  // ":per_job" = one row per job, every pair, as Gavel writes the LP
  // (seconds per solve at 100 jobs; to check what the class LP changes).
  // `cheapest_keep` > 0 (packed only): gpufleet's cost-aware packed form,
  // the cheapest allocation keeping that share of each job's max-min term
  // (see CostAwarePolicy).
  explicit MaxMinFairnessPolicy(Form form, const std::string& suffix = "", double cheapest_keep = 0)
      : perf_(form != Form::kAgnostic),
        packed_(form == Form::kPacked),
        by_class_(suffix != ":per_job"),
        prune_(suffix == ":pruned" || cheapest_keep > 0),
        cheapest_keep_(cheapest_keep),
        name_(FormName("max_min_fairness", form) + suffix) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }
  bool packed() const override { return packed_; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t m = in.jobs.size(), nt = in.workers.size();
    std::vector<int> sf(m);
    std::vector<std::vector<double>> coeff(m, std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      sf[i] = in.jobs[i].scale_factor;
      for (size_t t = 0; t < nt; ++t) {
        // The agnostic form sees every type as equal, but never runs a job
        // where it cannot run.
        coeff[i][t] = in.jobs[i].steps_per_s[t] > 0 ? sf[i] / in.jobs[i].priority_weight : 0.0;
      }
    }
    ASSIGN_OR_RETURN(GavelAllocation iso, SolveMaxMinLp(coeff, sf, in.workers));
    if (!perf_) return iso;
    std::vector<double> scale(m);
    for (size_t i = 0; i < m; ++i) {
      double iso_tput = 0;
      for (size_t t = 0; t < nt; ++t) iso_tput += in.jobs[i].steps_per_s[t] * iso[i][t];
      if (iso_tput <= 0) iso_tput = 1;  // no share at all: normalize by 1
      scale[i] = sf[i] / (in.jobs[i].priority_weight * iso_tput);
      for (size_t t = 0; t < nt; ++t) coeff[i][t] = in.jobs[i].steps_per_s[t] * scale[i];
    }
    if (!packed_) return SolveMaxMinLp(coeff, sf, in.workers);
    return SolvePackedByClass(in, scale, by_class_, prune_, cheapest_keep_);
  }

 private:
  bool perf_, packed_, by_class_, prune_;
  double cheapest_keep_;
  std::string name_;
};

// Finish-time fairness (Themis, as Gavel's `finish_time_fairness.py`
// formulates it; see the header). For a target rho, job m finishes in time
// iff tput_m(X) >= R_m / (rho D_m - t_m), D_m = I_m + R_m / iso_m; scaling
// each job's throughputs by (rho D_m - t_m) / R_m turns "every job finishes
// in time" into "the max-min LP's value is >= 1", which is monotone in rho.
// Bisection on rho between a lower bound (each job alone on its fastest
// type) and the rho of the isolated allocation (feasible by construction),
// to 0.1%, with simplex LPs; then the interior-point solution at the upper
// end, as Gavel's convex solver lands inside the optimal face.
class FinishTimeFairnessPolicy : public GavelPolicy {
 public:
  explicit FinishTimeFairnessPolicy(Form form)
      : perf_(form != Form::kAgnostic),
        packed_(form == Form::kPacked),
        name_(FormName("finish_time_fairness", form)) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }
  bool packed() const override { return packed_; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& raw) override {
    const GavelAllocationInput in = perf_ ? raw : Agnostic(raw);
    const size_t m = in.jobs.size(), nt = in.workers.size();
    if (m == 0) return GavelAllocation{};
    std::vector<int> sf(m);
    std::vector<double> t(m), left(m), d(m);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < m; ++i) {
      const GavelActiveJob& j = in.jobs[i];
      sf[i] = j.scale_factor;
      t[i] = j.seconds_since_arrival;
      left[i] = std::max(j.steps_remaining, 1.0);
      const double iso = GavelIsolatedSteps(j, in.workers, m);
      const double best = *std::max_element(j.steps_per_s.begin(), j.steps_per_s.end());
      if (iso <= 0 || best <= 0) {
        return InvalidArgumentError("finish-time fairness: job " + std::to_string(j.id) +
                                    " can run on no GPU type");
      }
      d[i] = j.isolated_seconds + left[i] / iso;
      lo = std::max(lo, (t[i] + left[i] / best) / d[i]);
      hi = std::max(hi, (t[i] + left[i] / iso) / d[i]);
    }
    // Coefficients at rho: throughput over the throughput needed by rho.
    const auto scale_at = [&](double rho) {
      std::vector<double> s(m);
      for (size_t i = 0; i < m; ++i) s[i] = std::max(rho * d[i] - t[i], 0.0) / left[i];
      return s;
    };
    const auto solve_at = [&](double rho, bool interior, double* value) {
      const std::vector<double> s = scale_at(rho);
      std::vector<std::vector<double>> coeff(m, std::vector<double>(nt, 0.0));
      for (size_t i = 0; i < m; ++i) {
        for (size_t k = 0; k < nt; ++k) coeff[i][k] = in.jobs[i].steps_per_s[k] * s[i];
      }
      std::vector<GavelPairCoeff> pairs;
      if (packed_) pairs = PackablePairs(in, s);
      return SolveMaxMinPackedLp(coeff, pairs, sf, in.workers, interior, value);
    };
    hi = std::max(hi, lo);
    for (int iter = 0; iter < 40 && hi - lo > 1e-3 * hi; ++iter) {
      const double mid = (lo + hi) / 2;
      double value = 0;
      RETURN_IF_ERROR(solve_at(mid, /*interior=*/false, &value).status());
      if (value >= 1 - 1e-9) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return solve_at(hi, /*interior=*/true, nullptr);
  }

 private:
  static GavelAllocationInput Agnostic(const GavelAllocationInput& raw) {
    GavelAllocationInput in = raw;
    for (GavelActiveJob& j : in.jobs) {
      double sum = 0;
      int n = 0;
      for (double v : j.steps_per_s) sum += v, n += v > 0;
      const size_t ref = static_cast<size_t>(in.reference_type);
      const double belief =
          in.reference_type >= 0 && ref < j.steps_per_s.size() && j.steps_per_s[ref] > 0
              ? j.steps_per_s[ref]
              : (n > 0 ? sum / n : 0.0);
      for (double& v : j.steps_per_s) v = v > 0 ? belief : 0.0;
    }
    in.pairs.clear();
    return in;
  }

  bool perf_, packed_;
  std::string name_;
};

// Makespan minimisation (`scheduler/policies/min_total_duration.py`): the
// smallest T with steps_remaining_m <= T * sum_j T_mj X_mj for every job,
// which is the max-min LP on coefficients T_mj / steps_remaining_m (the
// maximum of the minimum is 1/T). Agnostic form: every type counts as 1.
class MinTotalDurationPolicy : public GavelPolicy {
 public:
  explicit MinTotalDurationPolicy(Form form)
      : perf_(form != Form::kAgnostic),
        packed_(form == Form::kPacked),
        name_(FormName("min_total_duration", form)) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }
  bool packed() const override { return packed_; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t m = in.jobs.size(), nt = in.workers.size();
    if (packed_) return AllocatePacked(in);
    std::vector<int> sf(m);
    std::vector<std::vector<double>> coeff(m, std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      sf[i] = in.jobs[i].scale_factor;
      const double left = std::max(in.jobs[i].steps_remaining, 1.0);
      for (size_t t = 0; t < nt; ++t) {
        const double tput = in.jobs[i].steps_per_s[t];
        coeff[i][t] = tput > 0 ? (perf_ ? tput : 1.0) / left : 0.0;
      }
    }
    return SolveMaxMinLp(coeff, sf, in.workers);
  }

 private:
  // Per job (steps left differ, so no two jobs are interchangeable), over
  // the pairs that time-slicing does not dominate, each job keeping its
  // kPartners best partners (by the pair's best summed normalized
  // throughput on a type): Gavel's LP has every pair, ~m^2/2 columns, which
  // takes minutes per solve from a few hundred jobs; a job's makespan term
  // is raised by its best partners, not by its hundredth.
  StatusOr<GavelAllocation> AllocatePacked(const GavelAllocationInput& in) {
    static constexpr size_t kPartners = 16;
    const size_t m = in.jobs.size(), nt = in.workers.size();
    std::vector<double> scale(m);
    for (size_t i = 0; i < m; ++i) scale[i] = 1.0 / std::max(in.jobs[i].steps_remaining, 1.0);
    const std::vector<GavelPairCoeff> all = PackablePairs(in, scale, /*prune=*/true);
    std::vector<double> gain(all.size(), 0.0);
    std::vector<std::vector<size_t>> of_job(m);
    for (size_t p = 0; p < all.size(); ++p) {
      for (size_t t = 0; t < nt; ++t) {
        if (all[p].a_coeff[t] <= 0 || all[p].b_coeff[t] <= 0) continue;
        gain[p] = std::max(gain[p], PairNormalizedSum(in, in.pairs[p], t));
      }
      if (gain[p] <= 0) continue;
      of_job[all[p].a].push_back(p);
      of_job[all[p].b].push_back(p);
    }
    std::vector<bool> keep(all.size(), false);
    for (std::vector<size_t>& list : of_job) {
      const size_t k = std::min(kPartners, list.size());
      // Equal gains (jobs of the same types) are spread by a hash of the
      // pair, so that the jobs of one type do not all pick the same few
      // partners and leave the others none.
      const auto spread = [&](size_t p) {
        return (static_cast<uint64_t>(all[p].a) * 0x9E3779B97F4A7C15ULL) ^
               (static_cast<uint64_t>(all[p].b) * 0xC2B2AE3D27D4EB4FULL);
      };
      std::partial_sort(list.begin(), list.begin() + static_cast<long>(k), list.end(),
                        [&](size_t x, size_t y) {
                          if (gain[x] != gain[y]) return gain[x] > gain[y];
                          return spread(x) < spread(y);
                        });
      for (size_t i = 0; i < k; ++i) keep[list[i]] = true;
    }
    std::vector<GavelPairCoeff> kept;
    std::vector<size_t> row_of;
    for (size_t p = 0; p < all.size(); ++p) {
      if (!keep[p]) continue;
      kept.push_back(all[p]);
      row_of.push_back(p);
    }
    std::vector<int> sf(m);
    for (size_t i = 0; i < m; ++i) sf[i] = in.jobs[i].scale_factor;
    ASSIGN_OR_RETURN(GavelAllocation y, SolveMaxMinPackedLp(ScaledThroughputs(in, scale), kept, sf,
                                                            in.workers, /*interior=*/true));
    GavelAllocation x(m + in.pairs.size(), std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) x[i] = y[i];
    for (size_t k = 0; k < kept.size(); ++k) x[m + row_of[k]] = y[m + k];
    return x;
  }

  bool perf_, packed_;
  std::string name_;
};

// gpufleet's cost-aware form: first Gavel's max_min_fairness_perf allocation
// X*, then the cheapest allocation (sum of sf_m * price_j * X_mj, the dollars
// per hour the cluster bills while jobs run) that gives every job at least
// `keep` of the normalized throughput X* gives it. Jobs keep their pace, but
// work moves to the GPU types where it costs least for what it gains: a job
// that barely gains on a V100 runs on a P100, and the V100 goes to one that
// gains most. Only allocated types are used (strict), so no job drifts onto
// an idle expensive GPU.
//
// `gpufleet_cost_packed`: the same over Gavel's space-sharing LP (pairs that
// time-slicing dominates dropped, as `max_min_fairness_packed:pruned`), over
// classes of interchangeable jobs; a pair pays for one GPU, so two jobs that
// keep their pace sharing a GPU halve its bill.
class CostAwarePolicy : public GavelPolicy {
 public:
  CostAwarePolicy(double keep, bool packed)
      : keep_(keep),
        packed_(packed),
        name_(std::string(packed ? "gpufleet_cost_packed" : "gpufleet_cost") +
              (keep == 1.0 ? "" : ":" + std::to_string(keep).substr(0, 4))) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return true; }
  bool strict_allocation() const override { return true; }
  bool packed() const override { return packed_; }
  bool startup_aware() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    if (packed_) return MaxMinFairnessPolicy(Form::kPacked, "", keep_).Allocate(in);
    MaxMinFairnessPolicy perf(Form::kPerf);
    ASSIGN_OR_RETURN(GavelAllocation x, perf.Allocate(in));
    const size_t m = in.jobs.size(), nt = in.workers.size();
    if (m == 0) return x;
    std::vector<double> floor_steps(m, 0.0);
    std::vector<std::vector<double>> cost(m, std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < m; ++i) {
      for (size_t t = 0; t < nt; ++t) {
        floor_steps[i] += keep_ * in.jobs[i].steps_per_s[t] * x[i][t];
        const double price = t < in.price_usd_per_hour.size() ? in.price_usd_per_hour[t] : 0.0;
        cost[i][t] = in.jobs[i].scale_factor * price;
      }
    }
    std::vector<int> sf(m);
    std::vector<std::vector<double>> tput(m);
    for (size_t i = 0; i < m; ++i) {
      sf[i] = in.jobs[i].scale_factor;
      tput[i] = in.jobs[i].steps_per_s;
    }
    auto cheaper = SolveMinCostLp(tput, floor_steps, cost, sf, in.workers);
    if (!cheaper.ok()) return x;  // numerically infeasible floor: keep the fair allocation
    return cheaper;
  }

 private:
  double keep_;
  bool packed_;
  std::string name_;
};

}  // namespace

std::vector<std::string> GavelPolicyNames() {
  return {"fifo",
          "fifo_perf",
          "fifo_packed",
          "gandiva",
          "max_min_fairness",
          "max_min_fairness_perf",
          "max_min_fairness_packed",
          "finish_time_fairness",
          "finish_time_fairness_perf",
          "finish_time_fairness_packed",
          "min_total_duration",
          "min_total_duration_perf",
          "min_total_duration_packed",
          "allox",
          "isolated",
          "gpufleet_cost",
          "gpufleet_cost_packed"};
}

StatusOr<std::unique_ptr<GavelPolicy>> MakeGavelPolicy(const std::string& name, uint64_t seed) {
  for (Form form : {Form::kAgnostic, Form::kPerf, Form::kPacked}) {
    if (name == FormName("fifo", form))
      return std::unique_ptr<GavelPolicy>(new FifoPolicy(form, seed));
    if (form == Form::kAgnostic && name == "fifo:code") {
      return std::unique_ptr<GavelPolicy>(new FifoAsCodedPolicy(seed));
    }
    if (form == Form::kPacked && name == "fifo_packed:raw") {
      return std::unique_ptr<GavelPolicy>(new FifoPolicy(form, seed, /*raw_steps=*/true));
    }
  }
  for (Form form : {Form::kAgnostic, Form::kPerf, Form::kPacked}) {
    if (name == FormName("max_min_fairness", form)) {
      return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(form));
    }
    if (name == FormName("finish_time_fairness", form)) {
      return std::unique_ptr<GavelPolicy>(new FinishTimeFairnessPolicy(form));
    }
  }
  for (Form form : {Form::kAgnostic, Form::kPerf, Form::kPacked}) {
    if (name == FormName("min_total_duration", form)) {
      return std::unique_ptr<GavelPolicy>(new MinTotalDurationPolicy(form));
    }
  }
  for (const char* suffix : {":per_job", ":pruned"}) {
    if (name == std::string("max_min_fairness_packed") + suffix) {
      return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(Form::kPacked, suffix));
    }
  }
  if (name == "gandiva") return std::unique_ptr<GavelPolicy>(new GandivaPolicy(seed));
  if (name == "isolated") return std::unique_ptr<GavelPolicy>(new IsolatedPolicy());
  if (name == "allox") return MakeAlloxPolicy();
  // "gpufleet_cost:0.8": keep at least 80% of each job's fair throughput.
  for (const std::string base : {"gpufleet_cost", "gpufleet_cost_packed"}) {
    const bool packed = base == "gpufleet_cost_packed";
    if (name == base) return std::unique_ptr<GavelPolicy>(new CostAwarePolicy(1.0, packed));
    if (name.rfind(base + ":", 0) != 0) continue;
    char* end = nullptr;
    const double keep = std::strtod(name.c_str() + base.size() + 1, &end);
    if (end != nullptr && *end == '\0' && keep > 0 && keep <= 1) {
      return std::unique_ptr<GavelPolicy>(new CostAwarePolicy(keep, packed));
    }
    return InvalidArgumentError("policy \"" + name + "\": the kept share must be in (0, 1]");
  }
  std::string known;
  for (const std::string& n : GavelPolicyNames()) known += (known.empty() ? "" : ", ") + n;
  return NotFoundError("unknown Gavel policy \"" + name + "\" (known: " + known + ")");
}

}  // namespace gpufleet::place
