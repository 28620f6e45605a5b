#include "place/gavel_lp.h"

#include <glpk.h>

#include <algorithm>
#include <csetjmp>
#include <string>

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
// Swallows GLPK's terminal output: its error path turns terminal output back
// on to print "Assertion failed ... Error detected in file ..." before the
// error hook runs, which the caller recovers from.
int GlpkQuietHook(void*, const char*) { return 1; }

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

// GLPK allocates an environment per thread on first use (Debian builds it
// thread-local) that only glp_free_env releases: a thread that solved frees
// its own when it ends (curve points run on worker threads).
struct GlpkThreadEnv {
  ~GlpkThreadEnv() { glp_free_env(); }
};

// Solves with GLPK's interior-point method or its simplex; false when there
// is no optimum. GLPK reports internal trouble (e.g. a failed assertion in
// the interior-point code on a degenerate problem) through its error hook,
// which would abort the process; here it jumps back, and the thread's GLPK
// environment, now unusable, is freed (Debian's GLPK keeps it in
// thread-local storage, so other threads' problems are untouched). No C++ object lives inside the
// jump region. `cols` must already hold one slot per column.
bool SolveLp(const LpData& d, bool interior, std::vector<double>* cols) {
  thread_local GlpkThreadEnv free_at_thread_exit;
  (void)free_at_thread_exit;
  std::jmp_buf env;
  volatile bool ok = false;
  if (setjmp(env) == 0) {
    t_glpk_jump = &env;
    glp_term_out(GLP_OFF);  // GLPK's own messages, including the assertion it recovers from
    glp_term_hook(GlpkQuietHook, nullptr);
    glp_error_hook(GlpkErrorHook, nullptr);
    glp_prob* lp = LoadLp(d);
    if (interior) {
      glp_iptcp parm;
      glp_init_iptcp(&parm);
      parm.msg_lev = GLP_MSG_OFF;
      if (glp_interior(lp, &parm) == 0 && glp_ipt_status(lp) == GLP_OPT) {
        for (size_t c = 0; c < cols->size(); ++c)
          (*cols)[c] = glp_ipt_col_prim(lp, static_cast<int>(c + 1));
        ok = true;
      }
    } else {
      glp_smcp sm;
      glp_init_smcp(&sm);
      sm.msg_lev = GLP_MSG_OFF;
      sm.presolve = GLP_ON;
      if (glp_simplex(lp, &sm) == 0 && glp_get_status(lp) == GLP_OPT) {
        for (size_t c = 0; c < cols->size(); ++c)
          (*cols)[c] = glp_get_col_prim(lp, static_cast<int>(c + 1));
        ok = true;
      }
    }
    glp_delete_prob(lp);
  } else {
    glp_free_env();
    ok = false;
  }
  glp_error_hook(nullptr, nullptr);
  glp_term_hook(nullptr, nullptr);
  t_glpk_jump = nullptr;
  return ok;
}

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
    return InternalError("GLPK found no optimum for the min-cost LP (" + std::to_string(m) +
                         " jobs)");
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < nt; ++j) x[i][j] = std::clamp(cols[i * nt + j], 0.0, 1.0);
  }
  return x;
}

StatusOr<std::vector<std::vector<double>>> SolveCheapestWithinHoursLp(
    const std::vector<std::vector<JobOption>>& options, double total_hours, double* total_usd) {
  // Rows 1..m: sum_o f_o = 1 per job; row m+1: the hours budget.
  LpData d;
  d.maximize = false;
  const int m = static_cast<int>(options.size());
  for (int i = 0; i < m; ++i) d.AddRow(GLP_FX, 1.0, 1.0);
  const int budget = d.AddRow(GLP_UP, 0.0, total_hours);
  std::vector<int> balance;  // LP row per balance row
  double fastest = 0;
  for (int i = 0; i < m; ++i) {
    if (options[i].empty()) {
      return InvalidArgumentError("cheapest-within-hours LP: job " + std::to_string(i) +
                                  " has no option");
    }
    double job_fastest = options[i][0].hours;
    for (const JobOption& o : options[i]) {
      if (!(o.hours > 0) || !(o.usd >= 0) ||
          (o.balance_row >= 0 && o.balance_side != 1 && o.balance_side != -1)) {
        return InvalidArgumentError("cheapest-within-hours LP: job " + std::to_string(i) +
                                    " has an option without positive hours, with a negative "
                                    "cost or with a balance side other than +1 / -1");
      }
      d.AddCol(GLP_DB, 0.0, 1.0, o.usd);
      const int col = static_cast<int>(d.col_type.size());
      d.Put(i + 1, col, 1.0);
      d.Put(budget, col, o.hours);
      if (o.balance_row >= 0) {
        while (static_cast<int>(balance.size()) <= o.balance_row) {
          balance.push_back(d.AddRow(GLP_FX, 0.0, 0.0));
        }
        d.Put(balance[o.balance_row], col, o.balance_side * o.hours);
      }
      job_fastest = std::min(job_fastest, o.hours);
    }
    fastest += job_fastest;
  }
  if (total_hours < fastest * (1 - 1e-12)) {
    return InvalidArgumentError("cheapest-within-hours LP: " + std::to_string(total_hours) +
                                " hours is below the fastest mix's " + std::to_string(fastest));
  }
  // The fastest mix itself: no slack at all is numerically fragile.
  d.row_ub[budget - 1] = std::max(total_hours, fastest * (1 + 1e-12));
  std::vector<double> cols(d.col_type.size(), 0.0);
  if (!SolveLp(d, /*interior=*/false, &cols)) {
    return InternalError("GLPK found no optimum for the cheapest-within-hours LP (" +
                         std::to_string(m) + " jobs)");
  }
  std::vector<std::vector<double>> f(m);
  double usd = 0;
  size_t c = 0;
  for (int i = 0; i < m; ++i) {
    for (const JobOption& o : options[i]) {
      f[i].push_back(std::clamp(cols[c++], 0.0, 1.0));
      usd += f[i].back() * o.usd;
    }
  }
  if (total_usd != nullptr) *total_usd = usd;
  return f;
}

namespace {

// One column of the class LP: its allocation row, GPU type, and the GPUs it
// holds per unit (the coefficient in its type's GPU row).
struct ClassCol {
  int row, type;
  double gpus;
};

// Builds the class LP (see the header): column 1 is t, rows 1..nc the
// classes' objective terms minus t, nc+1..2nc their time, then the GPU rows.
Status BuildClassLp(const std::vector<GavelJobClass>& classes,
                    const std::vector<GavelClassPair>& pairs, const std::vector<int>& workers,
                    LpData* lp, std::vector<ClassCol>* cols) {
  const int nc = static_cast<int>(classes.size()), nt = static_cast<int>(workers.size());
  const int np = static_cast<int>(pairs.size());
  for (const GavelJobClass& c : classes) {
    if (c.count < 1 || c.coeff.size() != static_cast<size_t>(nt)) {
      return InvalidArgumentError(
          "max-min LP: a job class has no jobs or no coefficient per GPU type");
    }
  }
  for (const GavelClassPair& p : pairs) {
    if (p.c >= static_cast<size_t>(nc) || p.d >= static_cast<size_t>(nc) ||
        (p.c == p.d && classes[p.c].count < 2) || p.c_coeff.size() != static_cast<size_t>(nt) ||
        p.d_coeff.size() != static_cast<size_t>(nt)) {
      return InvalidArgumentError(
          "max-min LP: a pair names an unknown class, pairs a job with "
          "itself, or has no coefficient per GPU type");
    }
  }
  // One job of class c is in n_d pairs with class d (d != c) and n_c - 1
  // within its class; class pair (c, d) holds n_c n_d job pairs, (c, c)
  // n_c (n_c - 1) / 2. Only usable (row, type) entries become columns.
  LpData& d = *lp;
  d.maximize = true;
  for (int c = 0; c < nc; ++c) d.AddRow(GLP_LO, 0.0, 0.0);
  for (int c = 0; c < nc; ++c) d.AddRow(GLP_UP, 0.0, 1.0);
  for (int j = 0; j < nt; ++j) d.AddRow(GLP_UP, 0.0, workers[j]);
  d.AddCol(GLP_LO, 0.0, 0.0, 1.0);  // column 1: t
  for (int c = 0; c < nc; ++c) d.Put(c + 1, 1, -1.0);
  // Entries go in the order objective, time, GPUs (GLPK's interior point is
  // sensitive to it on degenerate problems; the reproduced curves used it).
  auto add_col = [&](int row, int type, double gpus) {
    d.AddCol(GLP_DB, 0.0, 1.0, 0.0);
    cols->push_back({row, type, gpus});
    return static_cast<int>(cols->size()) + 1;
  };
  auto put_gpus = [&](int col) {
    const ClassCol& k = (*cols)[col - 2];
    d.Put(2 * nc + k.type + 1, col, k.gpus);
  };
  for (int c = 0; c < nc; ++c) {
    const GavelJobClass& k = classes[c];
    for (int j = 0; j < nt; ++j) {
      if (k.coeff[j] <= 0) continue;
      const int col = add_col(c, j, static_cast<double>(k.count) * k.scale_factor);
      d.Put(c + 1, col, k.coeff[j]);
      d.Put(nc + c + 1, col, 1.0);
      put_gpus(col);
    }
  }
  for (int q = 0; q < np; ++q) {
    const GavelClassPair& p = pairs[q];
    const int a = static_cast<int>(p.c), b = static_cast<int>(p.d);
    const double na = classes[a].count, nb = classes[b].count;
    // Gavel pairs jobs of one scale factor; the pair holds that many GPUs.
    const double sf = std::max(classes[a].scale_factor, classes[b].scale_factor);
    for (int j = 0; j < nt; ++j) {
      if (p.c_coeff[j] <= 0 || p.d_coeff[j] <= 0) continue;
      if (a == b) {
        // Within a class: each job is in na - 1 such pairs, at the mean of
        // the two sides (the same for a job type next to itself in Gavel's table).
        const int col = add_col(nc + q, j, na * (na - 1) / 2 * sf);
        d.Put(a + 1, col, (na - 1) * (p.c_coeff[j] + p.d_coeff[j]) / 2);
        d.Put(nc + a + 1, col, na - 1);
        put_gpus(col);
      } else {
        const int col = add_col(nc + q, j, na * nb * sf);
        d.Put(a + 1, col, nb * p.c_coeff[j]);
        d.Put(b + 1, col, na * p.d_coeff[j]);
        d.Put(nc + a + 1, col, nb);
        d.Put(nc + b + 1, col, na);
        put_gpus(col);
      }
    }
  }
  return OkStatus();
}

// Interior point first when asked (see the header); GLPK's can fail on
// degenerate problems, and then the simplex's exact vertex is used.
bool SolveInteriorOrSimplex(const LpData& d, bool interior, std::vector<double>* sol) {
  return (interior && SolveLp(d, /*interior=*/true, sol)) || SolveLp(d, /*interior=*/false, sol);
}

GavelAllocation ClassAllocation(size_t rows, size_t nt, const std::vector<ClassCol>& cols,
                                const std::vector<double>& sol) {
  GavelAllocation x(rows, std::vector<double>(nt, 0.0));
  for (size_t c = 0; c < cols.size(); ++c) {
    x[cols[c].row][cols[c].type] = std::clamp(sol[c + 1], 0.0, 1.0);
  }
  return x;
}

// Builds the class LP into *d / *cols and solves its max-min form into *sol
// (t first, then the columns).
Status SolveClassMaxMin(const std::vector<GavelJobClass>& classes,
                        const std::vector<GavelClassPair>& pairs, const std::vector<int>& workers,
                        bool interior, LpData* d, std::vector<ClassCol>* cols,
                        std::vector<double>* sol) {
  RETURN_IF_ERROR(BuildClassLp(classes, pairs, workers, d, cols));
  sol->assign(cols->size() + 1, 0.0);
  if (!SolveInteriorOrSimplex(*d, interior, sol)) {
    return InternalError("GLPK found no optimum for the max-min LP (" +
                         std::to_string(classes.size()) + " job classes, " +
                         std::to_string(pairs.size()) + " pairs of classes)");
  }
  return OkStatus();
}

}  // namespace

StatusOr<GavelAllocation> SolveMaxMinClassLp(const std::vector<GavelJobClass>& classes,
                                             const std::vector<GavelClassPair>& pairs,
                                             const std::vector<int>& workers, bool interior,
                                             double* value) {
  if (value != nullptr) *value = 0;
  const size_t rows = classes.size() + pairs.size();
  if (classes.empty()) return GavelAllocation(rows, std::vector<double>(workers.size(), 0.0));
  LpData d;
  std::vector<ClassCol> cols;
  std::vector<double> sol;
  RETURN_IF_ERROR(SolveClassMaxMin(classes, pairs, workers, interior, &d, &cols, &sol));
  if (value != nullptr) *value = sol[0];
  return ClassAllocation(rows, workers.size(), cols, sol);
}

StatusOr<GavelAllocation> SolveCheapestFairClassLp(const std::vector<GavelJobClass>& classes,
                                                   const std::vector<GavelClassPair>& pairs,
                                                   const std::vector<int>& workers,
                                                   const std::vector<double>& price_usd_per_hour,
                                                   double keep) {
  const size_t rows = classes.size() + pairs.size();
  if (classes.empty()) return GavelAllocation(rows, std::vector<double>(workers.size(), 0.0));
  LpData d;
  std::vector<ClassCol> cols;
  std::vector<double> fair;
  RETURN_IF_ERROR(SolveClassMaxMin(classes, pairs, workers, /*interior=*/true, &d, &cols, &fair));
  // Each class's objective term in the fair allocation becomes its floor.
  const size_t nc = classes.size();
  std::vector<double> term(nc, 0.0);
  for (size_t e = 1; e < d.ia.size(); ++e) {
    if (d.ja[e] >= 2 && d.ia[e] >= 1 && static_cast<size_t>(d.ia[e]) <= nc) {
      term[d.ia[e] - 1] += d.ar[e] * fair[d.ja[e] - 1];
    }
  }
  for (size_t c = 0; c < nc; ++c) d.row_lb[c] = keep * term[c] * (1 - 1e-6);
  d.maximize = false;
  d.col_type[0] = GLP_FX, d.col_lb[0] = d.col_ub[0] = 0.0, d.obj[0] = 0.0;
  for (size_t c = 0; c < cols.size(); ++c) {
    const size_t t = static_cast<size_t>(cols[c].type);
    d.obj[c + 1] = cols[c].gpus * (t < price_usd_per_hour.size() ? price_usd_per_hour[t] : 0.0);
  }
  std::vector<double> cheap(cols.size() + 1, 0.0);
  // A floor the simplex finds numerically infeasible keeps the fair allocation.
  const std::vector<double>& sol = SolveLp(d, /*interior=*/false, &cheap) ? cheap : fair;
  return ClassAllocation(rows, workers.size(), cols, sol);
}

StatusOr<GavelAllocation> SolveMaxMinPackedLp(const std::vector<std::vector<double>>& coeff,
                                              const std::vector<GavelPairCoeff>& pairs,
                                              const std::vector<int>& scale_factors,
                                              const std::vector<int>& workers, bool interior,
                                              double* value) {
  std::vector<GavelJobClass> classes(coeff.size());
  for (size_t i = 0; i < coeff.size(); ++i) {
    classes[i].coeff = coeff[i];
    classes[i].scale_factor = scale_factors[i];
  }
  std::vector<GavelClassPair> class_pairs(pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (pairs[p].a == pairs[p].b) {
      return InvalidArgumentError("max-min LP: a pair names the same job twice");
    }
    class_pairs[p] = {pairs[p].a, pairs[p].b, pairs[p].a_coeff, pairs[p].b_coeff};
  }
  return SolveMaxMinClassLp(classes, class_pairs, workers, interior, value);
}

StatusOr<GavelAllocation> SolveMaxMinLp(const std::vector<std::vector<double>>& coeff,
                                        const std::vector<int>& scale_factors,
                                        const std::vector<int>& workers) {
  return SolveMaxMinPackedLp(coeff, {}, scale_factors, workers, /*interior=*/true);
}

}  // namespace gpufleet::place
