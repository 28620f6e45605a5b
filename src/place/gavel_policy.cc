#include "place/gavel_policy.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace gpufleet::place {
namespace {

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
  explicit CostAwarePolicy(double keep) : keep_(keep), name_("gpufleet_cost") {}
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
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  glp_add_cols(lp, m * nt);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) {
      const int c = i * nt + j + 1;
      if (steps_per_s[i][j] > 0) {
        glp_set_col_bnds(lp, c, GLP_DB, 0.0, 1.0);
      } else {
        glp_set_col_bnds(lp, c, GLP_FX, 0.0, 0.0);
      }
      glp_set_obj_coef(lp, c, cost_per_hour[i][j]);
    }
  }
  // Rows 1..m: sum_j T_mj X_mj >= floor_m (relaxed by 1e-6 relative for
  // rounding); rows m+1..2m: sum_j X_mj <= 1; then sum_m sf_m X_mj <= workers_j.
  glp_add_rows(lp, 2 * m + nt);
  std::vector<int> ia = {0}, ja = {0};
  std::vector<double> ar = {0};
  for (int i = 0; i < m; ++i) {
    glp_set_row_bnds(lp, i + 1, GLP_LO, floor_steps_per_s[i] * (1 - 1e-6), 0.0);
    glp_set_row_bnds(lp, m + i + 1, GLP_UP, 0.0, 1.0);
    for (int j = 0; j < nt; ++j) {
      if (steps_per_s[i][j] <= 0) continue;
      ia.push_back(i + 1), ja.push_back(i * nt + j + 1), ar.push_back(steps_per_s[i][j]);
      ia.push_back(m + i + 1), ja.push_back(i * nt + j + 1), ar.push_back(1.0);
      ia.push_back(2 * m + j + 1), ja.push_back(i * nt + j + 1), ar.push_back(scale_factors[i]);
    }
  }
  for (int j = 0; j < nt; ++j) glp_set_row_bnds(lp, 2 * m + j + 1, GLP_UP, 0.0, workers[j]);
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_smcp sm;
  glp_init_smcp(&sm);
  sm.msg_lev = GLP_MSG_OFF;
  sm.presolve = GLP_ON;
  const int rc = glp_simplex(lp, &sm);
  const bool ok = rc == 0 && glp_get_status(lp) == GLP_OPT;
  if (ok) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < nt; ++j) x[i][j] = std::clamp(glp_get_col_prim(lp, i * nt + j + 1), 0.0, 1.0);
    }
  }
  glp_delete_prob(lp);
  if (!ok) return InternalError("GLPK found no optimum for the min-cost LP (rc " + std::to_string(rc) + ")");
  return x;
}

StatusOr<GavelAllocation> SolveMaxMinLp(const std::vector<std::vector<double>>& coeff,
                                        const std::vector<int>& scale_factors,
                                        const std::vector<int>& workers) {
  const int m = static_cast<int>(coeff.size()), nt = static_cast<int>(workers.size());
  GavelAllocation x(m, std::vector<double>(nt, 0.0));
  if (m == 0) return x;
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MAX);
  // Columns: X_mj (m*nt), then t. Rows: m fairness rows, m job rows, nt type rows.
  const int ncols = m * nt + 1, t_col = ncols;
  glp_add_cols(lp, ncols);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) {
      const int c = i * nt + j + 1;
      if (coeff[i][j] > 0) {
        glp_set_col_bnds(lp, c, GLP_DB, 0.0, 1.0);
      } else {
        glp_set_col_bnds(lp, c, GLP_FX, 0.0, 0.0);
      }
    }
  }
  glp_set_col_bnds(lp, t_col, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp, t_col, 1.0);
  glp_add_rows(lp, 2 * m + nt);
  std::vector<int> ia = {0}, ja = {0};
  std::vector<double> ar = {0};
  const auto put = [&](int r, int c, double v) {
    ia.push_back(r);
    ja.push_back(c);
    ar.push_back(v);
  };
  // Rows 1..m: sum_j coeff_mj X_mj - t >= 0; rows m+1..2m: sum_j X_mj <= 1;
  // rows 2m+1..2m+nt: sum_m sf_m X_mj <= workers_j.
  for (int i = 0; i < m; ++i) {
    const int r = i + 1;
    glp_set_row_bnds(lp, r, GLP_LO, 0.0, 0.0);
    for (int j = 0; j < nt; ++j) {
      if (coeff[i][j] > 0) put(r, i * nt + j + 1, coeff[i][j]);
    }
    put(r, t_col, -1.0);
    const int r2 = m + i + 1;
    glp_set_row_bnds(lp, r2, GLP_UP, 0.0, 1.0);
    for (int j = 0; j < nt; ++j) {
      if (coeff[i][j] > 0) put(r2, i * nt + j + 1, 1.0);
    }
  }
  for (int j = 0; j < nt; ++j) {
    const int r = 2 * m + j + 1;
    glp_set_row_bnds(lp, r, GLP_UP, 0.0, workers[j]);
    for (int i = 0; i < m; ++i) {
      if (coeff[i][j] > 0) put(r, i * nt + j + 1, scale_factors[i]);
    }
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_iptcp parm;
  glp_init_iptcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  int rc = glp_interior(lp, &parm);
  bool ok = rc == 0 && glp_ipt_status(lp) == GLP_OPT;
  if (ok) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < nt; ++j) {
        x[i][j] = std::clamp(glp_ipt_col_prim(lp, i * nt + j + 1), 0.0, 1.0);
      }
    }
  } else {
    // Interior point can stall on tiny or degenerate problems; simplex is exact.
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.presolve = GLP_ON;
    rc = glp_simplex(lp, &sm);
    ok = rc == 0 && glp_get_status(lp) == GLP_OPT;
    if (ok) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < nt; ++j) {
          x[i][j] = std::clamp(glp_get_col_prim(lp, i * nt + j + 1), 0.0, 1.0);
        }
      }
    }
  }
  glp_delete_prob(lp);
  if (!ok) {
    return InternalError("GLPK found no optimum for the max-min LP (" + std::to_string(m) +
                         " jobs, rc " + std::to_string(rc) + ")");
  }
  return x;
}

std::vector<std::string> GavelPolicyNames() {
  return {"fifo", "fifo_perf", "max_min_fairness", "max_min_fairness_perf", "gpufleet_cost"};
}

StatusOr<std::unique_ptr<GavelPolicy>> MakeGavelPolicy(const std::string& name, uint64_t seed) {
  if (name == "fifo") return std::unique_ptr<GavelPolicy>(new FifoPolicy(false, seed));
  if (name == "fifo_perf") return std::unique_ptr<GavelPolicy>(new FifoPolicy(true, seed));
  if (name == "max_min_fairness") return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(false));
  if (name == "max_min_fairness_perf") {
    return std::unique_ptr<GavelPolicy>(new MaxMinFairnessPolicy(true));
  }
  if (name == "gpufleet_cost") return std::unique_ptr<GavelPolicy>(new CostAwarePolicy(1.0));
  std::string known;
  for (const std::string& n : GavelPolicyNames()) known += (known.empty() ? "" : ", ") + n;
  return NotFoundError("unknown Gavel policy \"" + name + "\" (known: " + known + ")");
}

}  // namespace gpufleet::place
