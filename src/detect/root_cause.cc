#include "detect/root_cause.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "detect/device_series.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::detect {
namespace {

bool IsContention(const std::string& kind) {
  return kind == kKindMemoryContention || kind == kKindLatencyBound || kind == kKindSustained;
}

double Pos(double x) { return std::isfinite(x) && x > 0 ? x : 0; }

std::string Pct(double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + "%"; }

// Window means of one metric for one device; NaN when absent.
struct Means {
  double now = std::nan("");
  double ref = std::nan("");
};

Means MeansFor(const DeviceSeriesMap& m, const std::string& device, int64_t now, int64_t window,
               int64_t start, int64_t reference) {
  Means out;
  auto it = m.find(device);
  if (it == m.end()) return out;
  if (auto v = MeanIn(it->second.points, now - window, now)) out.now = *v;
  if (auto v = MeanIn(it->second.points, start - reference, start)) out.ref = *v;
  return out;
}

}  // namespace

double EstimateSlowdown(const CauseSignals& s) {
  double slowdown = 0;
  if (s.step_s > 0 && s.step_ref_s > 0) {
    slowdown = 1 - s.step_ref_s / s.step_s;
  } else if (s.sm_active_ref > 0 && std::isfinite(s.sm_active)) {
    slowdown = 1 - s.sm_active / s.sm_active_ref;
  }
  return std::clamp(std::isfinite(slowdown) ? slowdown : 0, 0.0, 1.0);
}

std::vector<CauseShare> ClassifyCauses(const RootCauseConfig& c, const CauseSignals& s,
                                       double slowdown) {
  // Bandwidth as a share of what the device reaches, not of its data sheet.
  const double reach = s.achievable > 0 && s.achievable <= 1 ? s.achievable : 1;
  const double bw = s.bandwidth / reach, bw_ref = s.bandwidth_ref / reach;
  const bool saturated = bw > c.bandwidth_saturated;
  // Each score: how far past its threshold plus how much it rose, so a signal
  // that is high but was always high counts less than one that jumped.
  double pressure = 0, saturation = 0, coherency = 0;
  if (s.miss > c.miss_high) {
    pressure = (s.miss - c.miss_high) + Pos(s.miss - s.miss_ref);
    if (saturated) pressure *= 0.5;  // misses are expected when DRAM is the bottleneck
  }
  if (saturated) {
    saturation = (bw - c.bandwidth_saturated) * 4 + Pos(bw - bw_ref);
  }
  if (s.link > c.interconnect_busy) {
    coherency = (s.link - c.interconnect_busy) + Pos(s.link - s.link_ref);
  }
  const double total = pressure + saturation + coherency;
  std::vector<CauseShare> out;
  if (!(total > 0)) return out;
  auto add = [&](const char* cause, double score, const char* what) {
    if (score <= 0) return;
    CauseShare cs;
    cs.cause = cause;
    cs.share = score / total;
    cs.explanation = std::string(what) + " explains ~" + Pct(cs.share) + " of the latency increase";
    if (slowdown > 0) cs.explanation += " (estimated slowdown " + Pct(slowdown) + ")";
    out.push_back(std::move(cs));
  };
  add(kCauseMemoryPressure, pressure, "L2-miss-like pressure");
  add(kCauseBandwidthSaturation, saturation, "DRAM bandwidth saturation");
  add(kCauseCoherency, coherency, "interconnect/PCIe (coherency, peer) traffic");
  std::sort(out.begin(), out.end(),
            [](const CauseShare& a, const CauseShare& b) { return a.share > b.share; });
  return out;
}

void AttachRootCauses(const RootCauseConfig& config, const EvalContext& ctx,
                      std::vector<Finding>& findings) {
  int64_t earliest = ctx.now_ns;
  bool any = false;
  for (const Finding& f : findings) {
    if (!IsContention(f.kind)) continue;
    any = true;
    earliest = std::min(earliest, f.window_start_ns);
  }
  if (!any) return;
  const int64_t now = ctx.now_ns;
  const int64_t from = std::min(earliest, now - config.window_ns) - config.reference_ns;
  auto read = [&](std::string_view metric) {
    return ReadDeviceSeries(ctx.store, metric, from, now);
  };
  const DeviceSeriesMap bw = read("gpu_memory_bandwidth_utilization_ratio");
  const DeviceSeriesMap miss = read(config.miss_metric);
  const DeviceSeriesMap sm = read("gpu_sm_active_ratio");
  const DeviceSeriesMap link = read("gpu_interconnect_bytes_per_second");
  const DeviceSeriesMap pcie_rx = read("gpu_pcie_receive_bytes_per_second");
  const DeviceSeriesMap step = read("gpu_workload_step_duration_seconds");

  for (Finding& f : findings) {
    if (!IsContention(f.kind) || f.devices.empty()) continue;
    const std::string& dev = f.devices[0];
    // The reference ends where the finding's run began, so the reference is
    // the normal state rather than the contended one.
    auto means = [&](const DeviceSeriesMap& m) {
      return MeansFor(m, dev, now, config.window_ns, f.window_start_ns, config.reference_ns);
    };
    CauseSignals s;
    Means b = means(bw), ms = means(miss), a = means(sm), st = means(step);
    s.bandwidth = b.now;
    s.bandwidth_ref = b.ref;
    s.miss = ms.now;
    s.miss_ref = ms.ref;
    s.sm_active = a.now;
    s.sm_active_ref = a.ref;
    s.step_s = st.now;
    s.step_ref_s = st.ref;
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(f.subject.Get("model"));
    s.link = s.link_ref = 0;
    if (spec != nullptr && spec->stream_bandwidth_ratio > 0) s.achievable = spec->stream_bandwidth_ratio;
    if (spec != nullptr) {
      if (spec->interconnect_bytes_per_s > 0) {
        Means l = means(link);
        // The metric counts both directions; the spec is per direction.
        if (std::isfinite(l.now)) s.link = l.now / (2 * spec->interconnect_bytes_per_s);
        if (std::isfinite(l.ref)) s.link_ref = l.ref / (2 * spec->interconnect_bytes_per_s);
      }
      if (spec->pcie_bytes_per_s > 0) {
        Means p = means(pcie_rx);
        if (std::isfinite(p.now)) s.link = std::max(s.link, p.now / spec->pcie_bytes_per_s);
        if (std::isfinite(p.ref)) s.link_ref = std::max(s.link_ref, p.ref / spec->pcie_bytes_per_s);
      }
    }
    f.estimated_slowdown = EstimateSlowdown(s);
    f.causes = ClassifyCauses(config, s, f.estimated_slowdown);
    if (!f.causes.empty()) {
      f.summary += "; " + f.causes.front().explanation;
    }
  }
}

}  // namespace gpufleet::detect
