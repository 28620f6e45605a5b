#include "plan/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gpufleet::plan {
namespace {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  idx = idx == 0 ? 0 : idx - 1;
  return v[std::min(idx, v.size() - 1)];
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

StatusOr<PhaseCoeffs> FitPoints(const std::vector<const CalPoint*>& pts) {
  const std::string& phase = pts.empty() ? std::string() : pts[0]->phase;
  unsigned mask = phase == "prefill" ? kPrefillFit : phase == "decode" ? kDecodeFit : kFitAll;
  std::vector<StepFeatures> rows;
  std::vector<double> y;
  for (const CalPoint* p : pts) {
    rows.push_back(p->features);
    y.push_back(p->measured_s);
  }
  return FitPhase(rows, y, PhaseCoeffs{}, mask);
}

std::vector<const CalPoint*> Select(const std::vector<CalPoint>& all, const std::string& dataset,
                                    const std::string& gpu, const std::string& phase) {
  std::vector<const CalPoint*> out;
  for (const CalPoint& p : all) {
    if (p.dataset == dataset && p.gpu_type == gpu && p.phase == phase) out.push_back(&p);
  }
  return out;
}

}  // namespace

std::vector<LooError> LeaveOneConfigOut(const std::vector<CalPoint>& points) {
  std::vector<std::string> order;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const CalPoint*>> groups;
  for (const CalPoint& p : points) {
    if (std::find(order.begin(), order.end(), p.dataset) == order.end()) order.push_back(p.dataset);
    groups[{p.dataset, p.gpu_type, p.phase}].push_back(&p);
  }
  std::vector<LooError> out;
  std::map<std::string, std::vector<double>> pooled;
  std::map<std::string, bool> derived;
  for (const auto& [key, pts] : groups) {
    std::vector<double> errs;
    for (size_t i = 0; i < pts.size() && pts.size() > 1; ++i) {
      std::vector<const CalPoint*> rest;
      for (size_t j = 0; j < pts.size(); ++j) {
        if (j != i) rest.push_back(pts[j]);
      }
      auto fit = FitPoints(rest);
      if (!fit.ok()) continue;
      errs.push_back(std::fabs(fit->Predict(pts[i]->features) - pts[i]->measured_s) /
                     pts[i]->measured_s);
    }
    const auto& [ds, gpu, phase] = key;
    out.push_back(LooError{ds, gpu, phase, static_cast<int>(errs.size()), MedianOf(errs),
                           Quantile(errs, 0.9), pts[0]->derived});
    pooled[ds].insert(pooled[ds].end(), errs.begin(), errs.end());
    derived[ds] = pts[0]->derived;
  }
  for (const std::string& ds : order) {
    out.push_back(LooError{ds, "", "", static_cast<int>(pooled[ds].size()), MedianOf(pooled[ds]),
                           Quantile(pooled[ds], 0.9), derived[ds]});
  }
  return out;
}

StatusOr<LatencyTable> BuildLatencyTable(const CalData& data, const std::vector<GpuType>& types) {
  LatencyTable table;
  // Fits on splitwise-sim per measured type.
  std::map<std::string, GpuLatency> measured;
  for (const std::string gpu : {"a100-80gb", "h100", "h100-pcap"}) {
    auto pre = Select(data.points, "splitwise", gpu, "prefill");
    auto dec = Select(data.points, "splitwise", gpu, "decode");
    if (pre.size() < 4 || dec.size() < 4) continue;
    GpuLatency l;
    l.gpu_type = gpu;
    ASSIGN_OR_RETURN(l.prefill, FitPoints(pre));
    ASSIGN_OR_RETURN(l.decode, FitPoints(dec));
    l.source = "fitted on splitwise-sim perf_model.csv (prefill and decode)";
    measured[gpu] = l;
  }
  // The roofline estimate: median coefficients of the measured types, and
  // its error on each measured type when that type is left out.
  auto median_coeffs = [](const std::vector<PhaseCoeffs>& cs) {
    PhaseCoeffs c;
    auto med = [&](double PhaseCoeffs::*f) {
      std::vector<double> v;
      for (const PhaseCoeffs& x : cs) v.push_back(x.*f);
      return MedianOf(v);
    };
    c.overhead_s = med(&PhaseCoeffs::overhead_s);
    c.compute_scale = med(&PhaseCoeffs::compute_scale);
    c.attention_scale = med(&PhaseCoeffs::attention_scale);
    c.memory_scale = med(&PhaseCoeffs::memory_scale);
    c.comm_scale = med(&PhaseCoeffs::comm_scale);
    c.comm_latency_s = med(&PhaseCoeffs::comm_latency_s);
    return c;
  };
  // Power-capped parts are not typical of an uncapped GPU: leave them out.
  std::vector<std::string> typical;
  for (const auto& [k, l] : measured) {
    if (k != "h100-pcap") typical.push_back(k);
  }
  std::vector<double> lot_errs;
  for (const std::string& held : typical) {
    std::vector<PhaseCoeffs> pre, dec;
    for (const std::string& k : typical) {
      if (k == held) continue;
      pre.push_back(measured[k].prefill);
      dec.push_back(measured[k].decode);
    }
    if (pre.empty()) continue;
    PhaseCoeffs p = median_coeffs(pre), d = median_coeffs(dec);
    for (const CalPoint& pt : data.points) {
      if (pt.dataset != "splitwise" || pt.gpu_type != held) continue;
      const PhaseCoeffs& c = pt.phase == "prefill" ? p : d;
      lot_errs.push_back(std::fabs(c.Predict(pt.features) - pt.measured_s) / pt.measured_s);
    }
  }
  PhaseCoeffs est_pre, est_dec;
  {
    std::vector<PhaseCoeffs> pre, dec;
    for (const std::string& k : typical) {
      pre.push_back(measured[k].prefill);
      dec.push_back(measured[k].decode);
    }
    if (!pre.empty()) {
      est_pre = median_coeffs(pre);
      est_dec = median_coeffs(dec);
    } else {
      table.note =
          "no calibration data found (../shared absent): every GPU type is an "
          "uncalibrated roofline estimate (peak FLOP/s and bandwidth, no overheads)";
    }
  }
  table.estimate_expected_error = lot_errs.empty() ? 0.5 : MedianOf(lot_errs);
  table.estimate_prefill = est_pre;
  table.estimate_decode = est_dec;

  // AMD / NVIDIA GEMM efficiency ratio (LLMCompass) for MI300X prefill.
  double amd_ratio = 0;
  auto a100g = Select(data.points, "llmcompass", "a100-80gb", "gemm");
  auto mi210g = Select(data.points, "llmcompass", "mi210", "gemm");
  if (!a100g.empty() && !mi210g.empty()) {
    auto fa = FitPoints(a100g), fm = FitPoints(mi210g);
    if (fa.ok() && fm.ok() && fa->compute_scale > 0) {
      amd_ratio = fm->compute_scale / fa->compute_scale;
    }
  }
  auto mi_dec = Select(data.points, "dstack", "mi300x", "decode");

  for (const GpuType& t : types) {
    GpuLatency l;
    auto it = measured.find(t.key);
    if (it != measured.end()) {
      l = it->second;
      l.expected_error = 0;
    } else if (t.key == "mi300x" && mi_dec.size() >= 3 && measured.count("h100") && amd_ratio > 0) {
      ASSIGN_OR_RETURN(l.decode, FitPoints(mi_dec));
      l.prefill = measured["h100"].prefill;
      l.prefill.compute_scale *= amd_ratio;
      l.prefill.attention_scale *= amd_ratio;
      l.estimate = true;
      l.expected_error = table.estimate_expected_error;
      l.source = "decode fitted on dstack MI300X runs (Llama-3.1-405B FP8); prefill = H100 fit x " +
                 std::to_string(amd_ratio).substr(0, 4) +
                 " (MI210/A100 GEMM efficiency, LLMCompass), an estimate";
    } else {
      l.prefill = est_pre;
      l.decode = est_dec;
      l.estimate = true;
      l.expected_error = table.estimate_expected_error;
      l.source =
          "roofline estimate from the hardware catalog with the measured types' median "
          "efficiencies";
    }
    l.gpu_type = t.key;
    l.peaks = t.peaks;
    table.by_type[t.key] = l;
  }
  return table;
}

}  // namespace gpufleet::plan
