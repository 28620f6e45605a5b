#include "place/gavel_throughput_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "schema/hardware_catalog.h"

namespace gpufleet::place {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char* ThroughputBasisName(ThroughputBasis b) {
  switch (b) {
    case ThroughputBasis::kMeasured: return "measured";
    case ThroughputBasis::kNeighbours: return "predicted-neighbours";
    case ThroughputBasis::kRoofline: return "predicted-roofline";
    case ThroughputBasis::kUnknown: break;
  }
  return "unknown";
}

StatusOr<std::vector<WorkerPeaks>> GavelWorkerPeaks(const GavelThroughputs& table) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"k80", "k80"}, {"p100", "p100-pcie"}, {"v100", "v100-sxm-16gb"}};
  std::vector<WorkerPeaks> out;
  for (const std::string& w : table.workers()) {
    const char* key = nullptr;
    for (const auto& [worker, catalog_key] : kMap) {
      if (w == worker) key = catalog_key;
    }
    const GpuModelSpec* spec = key ? HardwareCatalog::Default().Find(key) : nullptr;
    if (spec == nullptr) {
      return NotFoundError("worker type \"" + w + "\" has no entry in data/hardware.toml");
    }
    out.push_back({spec->peak_fp32_flops, spec->memory_bandwidth_bytes_per_s});
  }
  return out;
}

ThroughputModel::ThroughputModel(const GavelThroughputs* table, std::vector<WorkerPeaks> peaks,
                                 int neighbours)
    : table_(table), peaks_(std::move(peaks)), neighbours_(neighbours) {
  peaks_.resize(table_->workers().size());
}

ThroughputEstimate ThroughputModel::Estimate(int job, int worker) const {
  const double measured = table_->Isolated(job, worker);
  if (measured > 0) return {measured, ThroughputBasis::kMeasured, 0};
  return PredictHeldOut(job, worker);
}

ThroughputEstimate ThroughputModel::PredictHeldOut(int job, int worker) const {
  const int nw = table_->num_workers();
  std::vector<int> seen;  // workers where `job` was measured, the target excluded
  for (int w = 0; w < nw; ++w) {
    if (w != worker && table_->Isolated(job, w) > 0) seen.push_back(w);
  }
  if (seen.empty()) return {};
  // Reference: the measured worker whose fp32 peak is nearest the target's (in log).
  int ref = seen[0];
  const auto peak_gap = [&](int w) {
    const double a = peaks_[w].peak_fp32_flops, b = peaks_[worker].peak_fp32_flops;
    return a > 0 && b > 0 ? std::fabs(std::log(a / b)) : 1e9;
  };
  for (int w : seen) {
    if (peak_gap(w) < peak_gap(ref)) ref = w;
  }
  const auto profile_distance = [&](int other) {
    double d2 = 0;
    for (size_t i = 1; i < seen.size(); ++i) {
      const double mine = std::log(table_->Isolated(job, seen[i]) / table_->Isolated(job, seen[0]));
      const double theirs =
          std::log(table_->Isolated(other, seen[i]) / table_->Isolated(other, seen[0]));
      d2 += (mine - theirs) * (mine - theirs);
    }
    return d2;
  };
  const int sf = table_->job_types()[job].scale_factor;
  std::vector<std::pair<double, int>> candidates;
  for (int o = 0; o < table_->num_job_types(); ++o) {
    if (o == job || table_->job_types()[o].scale_factor != sf) continue;
    if (table_->Isolated(o, worker) <= 0) continue;
    bool complete = true;
    for (int w : seen) complete = complete && table_->Isolated(o, w) > 0;
    if (complete) candidates.push_back({profile_distance(o), o});
  }
  if (candidates.empty()) return Roofline(job, worker);
  std::sort(candidates.begin(), candidates.end());
  std::vector<double> log_ratio;
  for (size_t i = 0; i < candidates.size() && static_cast<int>(i) < neighbours_; ++i) {
    const int o = candidates[i].second;
    log_ratio.push_back(std::log(table_->Isolated(o, worker) / table_->Isolated(o, ref)));
  }
  return {table_->Isolated(job, ref) * std::exp(Median(log_ratio)), ThroughputBasis::kNeighbours,
          neighbours_error_};
}

ThroughputEstimate ThroughputModel::Roofline(int job, int worker) const {
  // Step time t_w = a / F_w + b / B_w with a, b >= 0, least squares over the
  // measured workers (excluding the target): try both-free, then a-only, b-only.
  std::vector<std::pair<double, double>> x;  // (1/F, 1/B), in 1/TFLOP/s and 1/(GB/s)
  std::vector<double> y;                     // step time, s
  for (int w = 0; w < table_->num_workers(); ++w) {
    const double v = table_->Isolated(job, w);
    if (w == worker || v <= 0 || peaks_[w].peak_fp32_flops <= 0) continue;
    x.push_back({1e12 / peaks_[w].peak_fp32_flops, 1e9 / peaks_[w].memory_bandwidth_bytes_per_s});
    y.push_back(1.0 / v);
  }
  if (y.empty() || peaks_[worker].peak_fp32_flops <= 0) return {};
  double sxx = 0, sxy = 0, syy = 0, sx1 = 0, sy1 = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sxx += x[i].first * x[i].first;
    sxy += x[i].first * x[i].second;
    syy += x[i].second * x[i].second;
    sx1 += x[i].first * y[i];
    sy1 += x[i].second * y[i];
  }
  std::vector<std::pair<double, double>> fits = {{sx1 / sxx, 0.0}, {0.0, sy1 / syy}};
  const double det = sxx * syy - sxy * sxy;
  if (std::fabs(det) > 1e-12 * sxx * syy) {
    const double a = (sx1 * syy - sy1 * sxy) / det, b = (sxx * sy1 - sxy * sx1) / det;
    if (a >= 0 && b >= 0) fits.push_back({a, b});
  }
  const auto sse = [&](const std::pair<double, double>& ab) {
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const double r = ab.first * x[i].first + ab.second * x[i].second - y[i];
      s += r * r;
    }
    return s;
  };
  const auto best = *std::min_element(fits.begin(), fits.end(),
                                      [&](const auto& l, const auto& r) { return sse(l) < sse(r); });
  const double t = best.first * 1e12 / peaks_[worker].peak_fp32_flops +
                   best.second * 1e9 / peaks_[worker].memory_bandwidth_bytes_per_s;
  if (t <= 0) return {};
  return {1.0 / t, ThroughputBasis::kRoofline, roofline_error_};
}

ThroughputValidation ValidateThroughputModel(const ThroughputModel& model,
                                             const GavelThroughputs& table, int scale_factor) {
  ThroughputValidation v;
  v.scale_factor = scale_factor;
  const int nw = table.num_workers();
  std::vector<std::vector<double>> nb(nw), rf(nw);
  std::vector<double> nb_all, rf_all;
  for (int j = 0; j < table.num_job_types(); ++j) {
    if (table.job_types()[j].scale_factor != scale_factor) continue;
    bool complete = true;
    for (int w = 0; w < nw; ++w) complete = complete && table.Isolated(j, w) > 0;
    if (!complete) continue;
    for (int w = 0; w < nw; ++w) {
      const double truth = table.Isolated(j, w);
      const double e1 = std::fabs(model.PredictHeldOut(j, w).steps_per_s - truth) / truth;
      const double e2 = std::fabs(model.Roofline(j, w).steps_per_s - truth) / truth;
      nb[w].push_back(e1);
      rf[w].push_back(e2);
      nb_all.push_back(e1);
      rf_all.push_back(e2);
      ++v.predictions;
    }
  }
  for (int w = 0; w < nw; ++w) {
    v.neighbours_median_by_worker.push_back(Median(nb[w]));
    v.roofline_median_by_worker.push_back(Median(rf[w]));
  }
  v.neighbours_median = Median(nb_all);
  v.roofline_median = Median(rf_all);
  return v;
}

}  // namespace gpufleet::place
