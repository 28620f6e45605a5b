#include "place/gavel_policy.h"

#include <glpk.h>

#include <csetjmp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

namespace gpufleet::place {
namespace {

// One LP as plain arrays (GLPK's 1-based layout), so it can be rebuilt after
// GLPK hits an internal error.
struct LpData {
  bool maximize = true;
  std::vector<int> col_type, row_type;
  std::vector<double> col_lb, col_ub, obj, row_lb, row_ub;
  std::vector<int> ia = {0}, ja = {0};
  std::vector<double> ar = {0.0};
  void AddCol(int type, double lb, double ub, double objective) {
    col_type.push_back(type), col_lb.push_back(lb), col_ub.push_back(ub), obj.push_back(objective);
  }
  int AddRow(int type, double lb, double ub) {
    row_type.push_back(type), row_lb.push_back(lb), row_ub.push_back(ub);
    return static_cast<int>(row_type.size());
  }
  void Put(int row, int col, double v) { ia.push_back(row), ja.push_back(col), ar.push_back(v); }
};

thread_local std::jmp_buf* t_glpk_jump = nullptr;
void GlpkErrorHook(void*) {
  if (t_glpk_jump != nullptr) std::longjmp(*t_glpk_jump, 1);
}

glp_prob* LoadLp(const LpData& d) {
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, d.maximize ? GLP_MAX : GLP_MIN);
  glp_add_cols(lp, static_cast<int>(d.col_type.size()));
  for (size_t c = 0; c < d.col_type.size(); ++c) {
    glp_set_col_bnds(lp, static_cast<int>(c + 1), d.col_type[c], d.col_lb[c], d.col_ub[c]);
    glp_set_obj_coef(lp, static_cast<int>(c + 1), d.obj[c]);
  }
  glp_add_rows(lp, static_cast<int>(d.row_type.size()));
  for (size_t r = 0; r < d.row_type.size(); ++r) {
    glp_set_row_bnds(lp, static_cast<int>(r + 1), d.row_type[r], d.row_lb[r], d.row_ub[r]);
  }
  glp_load_matrix(lp, static_cast<int>(d.ia.size()) - 1, d.ia.data(), d.ja.data(), d.ar.data());
  return lp;
}

// Solves with GLPK's interior-point method or its simplex; false when there
// is no optimum. GLPK reports internal trouble (e.g. a failed assertion in
// the interior-point code on a degenerate problem) through its error hook,
// which would abort the process; here it jumps back, and the thread's GLPK
// environment, now unusable, is freed (Debian's GLPK keeps it in
// thread-local storage, so other threads' problems are untouched). No C++ object lives inside the jump
// region. `cols` must already hold one slot per column.
bool SolveLp(const LpData& d, bool interior, std::vector<double>* cols) {
  std::jmp_buf env;
  volatile bool ok = false;
  if (setjmp(env) == 0) {
    t_glpk_jump = &env;
    glp_term_out(GLP_OFF);  // GLPK's own messages, including the assertion it recovers from
    glp_error_hook(GlpkErrorHook, nullptr);
    glp_prob* lp = LoadLp(d);
    if (interior) {
      glp_iptcp parm;
      glp_init_iptcp(&parm);
      parm.msg_lev = GLP_MSG_OFF;
      if (glp_interior(lp, &parm) == 0 && glp_ipt_status(lp) == GLP_OPT) {
        for (size_t c = 0; c < cols->size(); ++c) (*cols)[c] = glp_ipt_col_prim(lp, static_cast<int>(c + 1));
        ok = true;
      }
    } else {
      glp_smcp sm;
      glp_init_smcp(&sm);
      sm.msg_lev = GLP_MSG_OFF;
      sm.presolve = GLP_ON;
      if (glp_simplex(lp, &sm) == 0 && glp_get_status(lp) == GLP_OPT) {
        for (size_t c = 0; c < cols->size(); ++c) (*cols)[c] = glp_get_col_prim(lp, static_cast<int>(c + 1));
        ok = true;
      }
    }
    glp_delete_prob(lp);
  } else {
    glp_free_env();
    ok = false;
  }
  glp_error_hook(nullptr, nullptr);
  t_glpk_jump = nullptr;
  return ok;
}

// FIFO (`scheduler/policies/fifo.py`): jobs in arrival order each get one GPU
// type with enough free GPUs for the whole of their time. Agnostic: a random
// such type, kept until the job ends. `_perf`: recomputed each time, the
// fastest type with room.
class FifoPolicy : public GavelPolicy {
 public:
  FifoPolicy(bool perf, uint64_t seed) : perf_(perf), rng_(seed), name_(perf ? "fifo_perf" : "fifo") {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }
  bool strict_allocation() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t nt = in.workers.size();
    std::vector<int> free = in.workers;
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
    std::vector<size_t> order(in.jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return in.jobs[a].id < in.jobs[b].id; });
    for (size_t i : order) {
      const GavelActiveJob& j = in.jobs[i];
      if (assigned_.count(j.id)) continue;
      std::vector<int> fits;
      for (size_t t = 0; t < nt; ++t) {
        if (free[t] >= j.scale_factor) fits.push_back(static_cast<int>(t));
      }
      if (fits.empty()) break;  // FIFO: nobody jumps the queue
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
    GavelAllocation x(in.jobs.size(), std::vector<double>(nt, 0.0));
    for (size_t i = 0; i < in.jobs.size(); ++i) {
      auto it = assigned_.find(in.jobs[i].id);
      if (it != assigned_.end()) x[i][it->second] = 1.0;
    }
    return x;
  }

 private:
  bool perf_;
  std::mt19937_64 rng_;
  std::string name_;
  std::map<int64_t, int> assigned_;  // job id -> GPU type
};

// Max-min fairness / LAS (`scheduler/policies/max_min_fairness.py`).
class MaxMinFairnessPolicy : public GavelPolicy {
 public:
  explicit MaxMinFairnessPolicy(bool perf)
      : perf_(perf), name_(perf ? "max_min_fairness_perf" : "max_min_fairness") {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }

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
    for (size_t i = 0; i < m; ++i) {
      double iso_tput = 0;
      for (size_t t = 0; t < nt; ++t) iso_tput += in.jobs[i].steps_per_s[t] * iso[i][t];
      if (iso_tput <= 0) iso_tput = 1;  // no share at all: normalize by 1
      for (size_t t = 0; t < nt; ++t) {
        coeff[i][t] = in.jobs[i].steps_per_s[t] * sf[i] / (in.jobs[i].priority_weight * iso_tput);
      }
    }
    return SolveMaxMinLp(coeff, sf, in.workers);
  }

 private:
  bool perf_;
  std::string name_;
};

// Makespan minimisation (`scheduler/policies/min_total_duration.py`): the
// smallest T with steps_remaining_m <= T * sum_j T_mj X_mj for every job,
// which is the max-min LP on coefficients T_mj / steps_remaining_m (the
// maximum of the minimum is 1/T). Agnostic form: every type counts as 1.
class MinTotalDurationPolicy : public GavelPolicy {
 public:
  explicit MinTotalDurationPolicy(bool perf)
      : perf_(perf), name_(perf ? "min_total_duration_perf" : "min_total_duration") {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return perf_; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    const size_t m = in.jobs.size(), nt = in.workers.size();
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
  bool perf_;
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
class CostAwarePolicy : public GavelPolicy {
 public:
  explicit CostAwarePolicy(double keep)
      : keep_(keep), name_(keep == 1.0 ? "gpufleet_cost" : "gpufleet_cost:" + std::to_string(keep).substr(0, 4)) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return true; }
  bool strict_allocation() const override { return true; }

  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    MaxMinFairnessPolicy perf(true);
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
  std::string name_;
};

}  // namespace

StatusOr<GavelAllocation> SolveMinCostLp(const std::vector<std::vector<double>>& steps_per_s,
                                         const std::vector<double>& floor_steps_per_s,
                                         const std::vector<std::vector<double>>& cost_per_hour,
                                         const std::vector<int>& scale_factors,
                                         const std::vector<int>& workers) {
  const int m = static_cast<int>(steps_per_s.size()), nt = static_cast<int>(workers.size());
  GavelAllocation x(m, std::vector<double>(nt, 0.0));
  if (m == 0) return x;
  // Rows 1..m: sum_j T_mj X_mj >= floor_m (relaxed by 1e-6 relative for
  // rounding); rows m+1..2m: sum_j X_mj <= 1; then sum_m sf_m X_mj <= workers_j.
  LpData d;
  d.maximize = false;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) {
      const bool usable = steps_per_s[i][j] > 0;
      d.AddCol(usable ? GLP_DB : GLP_FX, 0.0, usable ? 1.0 : 0.0, cost_per_hour[i][j]);
    }
  }
  for (int i = 0; i < m; ++i) {
    const int r = d.AddRow(GLP_LO, floor_steps_per_s[i] * (1 - 1e-6), 0.0);
    for (int j = 0; j < nt; ++j) {
      if (steps_per_s[i][j] > 0) d.Put(r, i * nt + j + 1, steps_per_s[i][j]);
    }
  }
  for (int i = 0; i < m; ++i) {
    const int r = d.AddRow(GLP_UP, 0.0, 1.0);
    for (int j = 0; j < nt; ++j) {
      if (steps_per_s[i][j] > 0) d.Put(r, i * nt + j + 1, 1.0);
    }
  }
  for (int j = 0; j < nt; ++j) {
    const int r = d.AddRow(GLP_UP, 0.0, workers[j]);
    for (int i = 0; i < m; ++i) {
      if (steps_per_s[i][j] > 0) d.Put(r, i * nt + j + 1, scale_factors[i]);
    }
  }
  std::vector<double> cols(m * nt, 0.0);
  if (!SolveLp(d, /*interior=*/false, &cols)) {
    return InternalError("GLPK found no optimum for the min-cost LP (" + std::to_string(m) + " jobs)");
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) x[i][j] = std::clamp(cols[i * nt + j], 0.0, 1.0);
  }
  return x;
}

StatusOr<GavelAllocation> SolveMaxMinLp(const std::vector<std::vector<double>>& coeff,
                                        const std::vector<int>& scale_factors,
                                        const std::vector<int>& workers) {
  const int m = static_cast<int>(coeff.size()), nt = static_cast<int>(workers.size());
  GavelAllocation x(m, std::vector<double>(nt, 0.0));
  if (m == 0) return x;
  // Columns: X_mj (m*nt), then t. Rows 1..m: sum_j coeff_mj X_mj - t >= 0;
  // rows m+1..2m: sum_j X_mj <= 1; rows 2m+1..2m+nt: sum_m sf_m X_mj <= workers_j.
  LpData d;
  d.maximize = true;
  const int ncols = m * nt + 1, t_col = ncols;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) d.AddCol(coeff[i][j] > 0 ? GLP_DB : GLP_FX, 0.0, coeff[i][j] > 0 ? 1.0 : 0.0, 0.0);
  }
  d.AddCol(GLP_LO, 0.0, 0.0, 1.0);
  for (int i = 0; i < m; ++i) {
    const int r = d.AddRow(GLP_LO, 0.0, 0.0);
    for (int j = 0; j < nt; ++j) {
      if (coeff[i][j] > 0) d.Put(r, i * nt + j + 1, coeff[i][j]);
    }
    d.Put(r, t_col, -1.0);
  }
  for (int i = 0; i < m; ++i) {
    const int r = d.AddRow(GLP_UP, 0.0, 1.0);
    for (int j = 0; j < nt; ++j) {
      if (coeff[i][j] > 0) d.Put(r, i * nt + j + 1, 1.0);
    }
  }
  for (int j = 0; j < nt; ++j) {
    const int r = d.AddRow(GLP_UP, 0.0, workers[j]);
    for (int i = 0; i < m; ++i) {
      if (coeff[i][j] > 0) d.Put(r, i * nt + j + 1, scale_factors[i]);
    }
  }
  std::vector<double> cols(ncols, 0.0);
  // Interior point first (see the header); GLPK's can fail on degenerate
  // problems, and then the simplex's exact vertex is used.
  if (!SolveLp(d, /*interior=*/true, &cols) && !SolveLp(d, /*interior=*/false, &cols)) {
    return InternalError("GLPK found no optimum for the max-min LP (" + std::to_string(m) + " jobs)");
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) x[i][j] = std::clamp(cols[i * nt + j], 0.0, 1.0);
  }
  return x;
}

std::vector<std::string> GavelPolicyNames() {
  return {"fifo", "fifo_perf", "max_min_fairness", "max_min_fairness_perf",
          "min_total_duration", "min_total_duration_perf", "gpufleet_cost"};
}

StatusOr<std::unique_ptr<GavelPolicy>> MakeGavelPolicy(const std::string& name, uint64_t seed) {
  if (name == "fifo") return std::unique_ptr<GavelPolicy>(new FifoPolicy(false, seed));
  if (name == "fifo_perf") return std::unique_ptr<GavelPolicy>(new FifoPolicy(true, seed));
  if (name == "max_min_fairness") return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(false));
  if (name == "max_min_fairness_perf") {
    return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(true));
  }
  if (name == "min_total_duration") return std::unique_ptr<GavelPolicy>(new MinTotalDurationPolicy(false));
  if (name == "min_total_duration_perf") {
    return std::unique_ptr<GavelPolicy>(new MinTotalDurationPolicy(true));
  }
  if (name == "gpufleet_cost") return std::unique_ptr<GavelPolicy>(new CostAwarePolicy(1.0));
  // "gpufleet_cost:0.8": keep at least 80% of each job's fair throughput.
  if (name.rfind("gpufleet_cost:", 0) == 0) {
    char* end = nullptr;
    const double keep = std::strtod(name.c_str() + 14, &end);
    if (end != nullptr && *end == '\0' && keep > 0 && keep <= 1) {
      return std::unique_ptr<GavelPolicy>(new CostAwarePolicy(keep));
    }
    return InvalidArgumentError("policy \"" + name + "\": the kept share must be in (0, 1]");
  }
  std::string known;
  for (const std::string& n : GavelPolicyNames()) known += (known.empty() ? "" : ", ") + n;
  return NotFoundError("unknown Gavel policy \"" + name + "\" (known: " + known + ")");
}

}  // namespace gpufleet::place
