#include "place/gavel_colocation_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "place/gavel_throughput_model.h"

namespace gpufleet::place {

ColocationModel::ColocationModel(const GavelThroughputs* table, int neighbours)
    : table_(table), neighbours_(neighbours), profile_(table->num_job_types()) {
  const int nw = table_->num_workers();
  for (int j = 0; j < table_->num_job_types(); ++j) {
    bool complete = nw > 0;
    for (int w = 0; w < nw; ++w) complete = complete && table_->Isolated(j, w) > 0;
    if (!complete) continue;
    std::vector<double>& p = profile_[j];
    for (int w = 1; w < nw; ++w) p.push_back(std::log(table_->Isolated(j, w) / table_->Isolated(j, 0)));
    // Step size matters less than scaling across parts; 0.3 weighs it down.
    p.push_back(0.3 * std::log(table_->Isolated(j, nw - 1)));
  }
}

double ColocationModel::Norm(int w, int a, int b) const {
  const GavelColocation& c = table_->Colocated(w, a, b);
  const double iso = table_->Isolated(a, w);
  if (!c.measured || iso <= 0) return -1;
  return c.self_steps_per_s / iso;
}

std::vector<int> ColocationModel::Neighbours(int job, int unknown) const {
  std::vector<std::pair<double, int>> d;
  if (profile_[job].empty()) return {};
  const int sf = table_->job_types()[job].scale_factor;
  for (int o = 0; o < table_->num_job_types(); ++o) {
    if (o == job || o == unknown || profile_[o].empty()) continue;
    if (table_->job_types()[o].scale_factor != sf) continue;
    double d2 = 0;
    for (size_t i = 0; i < profile_[o].size(); ++i) {
      d2 += (profile_[o][i] - profile_[job][i]) * (profile_[o][i] - profile_[job][i]);
    }
    d.push_back({d2, o});
  }
  std::sort(d.begin(), d.end());
  std::vector<int> out;
  for (size_t i = 0; i < d.size() && static_cast<int>(i) < neighbours_; ++i) out.push_back(d[i].second);
  return out;
}

ColocationEstimate ColocationModel::Estimate(int w, int a, int b) const {
  const double na = Norm(w, a, b), nb = Norm(w, b, a);
  if (na >= 0 && nb >= 0) return {na, nb, na > 0 && nb > 0, false};
  return Predict(w, a, b, -1);
}

ColocationEstimate ColocationModel::Predict(int w, int a, int b, int unknown) const {
  // Pairs of a job type with itself are hidden with it: stand-ins on both sides.
  const bool a_known = a != unknown, b_known = b != unknown;
  const std::vector<int> rows = a_known ? std::vector<int>{a} : Neighbours(a, unknown);
  const std::vector<int> cols = b_known ? std::vector<int>{b} : Neighbours(b, unknown);
  double sum_a = 0, sum_b = 0;
  int feasible = 0, infeasible = 0;
  for (int r : rows) {
    for (int c : cols) {
      if (a_known && b_known && r == a && c == b && unknown >= 0) continue;
      const double x = Norm(w, r, c), y = Norm(w, c, r);
      if (x < 0 || y < 0) continue;
      if (x == 0 || y == 0) {
        ++infeasible;
        continue;
      }
      sum_a += x;
      sum_b += y;
      ++feasible;
    }
  }
  ColocationEstimate e;
  e.predicted = true;
  if (feasible == 0 || infeasible > feasible) return e;
  e.feasible = true;
  e.self_norm = sum_a / feasible;
  e.other_norm = sum_b / feasible;
  return e;
}

GavelThroughputs WithPredictedPairs(const GavelThroughputs& table, const ColocationModel& model) {
  GavelThroughputs out = table;
  const int nw = table.num_workers(), nj = table.num_job_types();
  for (int w = 0; w < nw; ++w) {
    for (int a = 0; a < nj; ++a) {
      for (int b = a; b < nj; ++b) {
        if (!table.Colocated(w, a, b).measured && !table.Colocated(w, b, a).measured) continue;
        const ColocationEstimate x = model.Predict(w, a, b, a), y = model.Predict(w, a, b, b);
        const bool ok = x.feasible && y.feasible;
        const double self = ok ? (x.self_norm + y.self_norm) / 2 * table.Isolated(a, w) : 0.0;
        const double other = ok ? (x.other_norm + y.other_norm) / 2 * table.Isolated(b, w) : 0.0;
        out.SetColocated(w, a, b, self, other);
        out.SetColocated(w, b, a, other, self);
      }
    }
  }
  return out;
}

ColocationValidation ValidateColocationModel(const ColocationModel& model,
                                             const GavelThroughputs& table, int scale_factor) {
  ColocationValidation v;
  const int nw = table.num_workers(), nj = table.num_job_types();
  std::vector<std::vector<double>> err(nw);
  std::vector<double> all, baseline;
  for (int w = 0; w < nw; ++w) {
    for (int a = 0; a < nj; ++a) {
      if (table.job_types()[a].scale_factor != scale_factor) continue;
      // Baseline: the mean of every measured pair that does not involve a.
      double base_sum = 0;
      int base_n = 0;
      for (int x = 0; x < nj; ++x) {
        for (int z = 0; z < nj; ++z) {
          const GavelColocation& c = table.Colocated(w, x, z);
          if (x == a || z == a || !c.measured || c.self_steps_per_s <= 0) continue;
          base_sum += c.self_steps_per_s / table.Isolated(x, w);
          ++base_n;
        }
      }
      for (int b = 0; b < nj; ++b) {
        const GavelColocation& c = table.Colocated(w, a, b);
        if (!c.measured || table.Isolated(a, w) <= 0 || table.Isolated(b, w) <= 0) continue;
        const ColocationEstimate p = model.Predict(w, a, b, a);
        const bool truly_feasible = c.self_steps_per_s > 0 && c.other_steps_per_s > 0;
        if (p.feasible != truly_feasible) ++v.feasibility_wrong;
        if (!truly_feasible) {
          ++v.infeasible_pairs;
          continue;
        }
        // Both sides: a's own throughput, and what a costs its partner b.
        const double ea = std::fabs(p.self_norm - c.self_steps_per_s / table.Isolated(a, w));
        const double eb = std::fabs(p.other_norm - c.other_steps_per_s / table.Isolated(b, w));
        err[w].push_back(ea);
        err[w].push_back(eb);
        all.push_back(ea);
        all.push_back(eb);
        if (base_n > 0) {
          const double mean = base_sum / base_n;
          baseline.push_back(std::fabs(mean - c.self_steps_per_s / table.Isolated(a, w)));
          baseline.push_back(std::fabs(mean - c.other_steps_per_s / table.Isolated(b, w)));
        }
        v.predictions += 2;
      }
    }
  }
  for (int w = 0; w < nw; ++w) v.median_abs_error_by_worker.push_back(Median(err[w]));
  v.median_abs_error = Median(all);
  v.baseline_median_abs_error = Median(baseline);
  return v;
}

}  // namespace gpufleet::place
