#include "detect/root_cause.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "detect/device_series.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::detect {
namespace {

double Pos(double x) { return std::isfinite(x) && x > 0 ? x : 0; }

std::string Pct(double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + "%"; }

// Standard deviation of the means of consecutive `width` stretches of
// [from, to]; NaN with fewer than three stretches that have points.
double StretchMeanSpread(std::span<const WindowPoint> points, int64_t from, int64_t to,
                         int64_t width) {
  std::vector<double> means;
  for (int64_t b = from; width > 0 && b + width <= to; b += width) {
    if (auto v = MeanIn(points, b, b + width - 1)) means.push_back(*v);
  }
  return means.size() >= 3 ? StdDev(means) : std::nan("");
}

// The windows one device's signals are averaged over.
struct Span {
  int64_t now_from = 0, now_to = 0;  // the current window
  int64_t ref_from = 0, ref_to = 0;  // the reference
  bool ref_held = false;             // the ReferenceBook holds it: not read
};

// One metric's means for one device; NaN when absent.
struct Means {
  double now = std::nan(""), ref = std::nan("");
  size_t points = 0;             // of the series they came from
};
// By the device's dense index in the series facts (SeriesFacts::Facts).
using MeansMap = std::vector<Means>;

// The spans by device, looked up by the device's dense index: a read finds
// a series' device by a number, each device's name compared once per
// evaluation.
class DeviceSpans {
 public:
  explicit DeviceSpans(const std::map<std::string, Span>& spans) : spans_(spans) {}
  const Span* Find(const SeriesFacts::Facts& f) {
    if (f.device_index >= by_index_.size()) by_index_.resize(f.device_index + 1);
    auto& [resolved, span] = by_index_[f.device_index];
    if (!resolved) {
      auto it = spans_.find(f.device);
      span = it == spans_.end() ? nullptr : &it->second;
      resolved = true;
    }
    return span;
  }

 private:
  const std::map<std::string, Span>& spans_;
  std::vector<std::pair<bool, const Span*>> by_index_;
};

// Means of `metric` for the devices in `spans`, computed on the store's own
// points (no copy: this runs at every evaluation). When a device has
// several series of the metric the one with the most points wins, as in
// ReadDeviceSeries; with `only_label`, only series whose label has
// `only_value`.
MeansMap ReadMeans(const EvalContext& ctx, std::string_view metric, int64_t from, int64_t to,
                   DeviceSpans& spans, SlidingMeans* sliding, std::string_view only_label = {},
                   std::string_view only_value = {}) {
  MeansMap out;
  ctx.store.ForEachSeries(
      metric, from, to,
      [&](uint64_t id, const StoredLabels& labels, std::span<const WindowPoint> pts) {
        if (!only_label.empty() && labels.Get(only_label) != only_value) return;
        const SeriesFacts::Facts& f = ctx.facts().Of(id, labels);
        const Span* w = spans.Find(f);
        if (w == nullptr) return;
        if (f.device_index >= out.size()) out.resize(f.device_index + 1);
        Means& m = out[f.device_index];
        if (pts.size() <= m.points) return;
        m.points = pts.size();
        m.now = MeanIn(pts, w->now_from, w->now_to).value_or(std::nan(""));
        if (!w->ref_held) {
          // The reference slides with the evaluations: kept as running sums.
          m.ref = (sliding != nullptr ? sliding->Mean(id, pts, w->ref_from, w->ref_to)
                                      : MeanIn(pts, w->ref_from, w->ref_to))
                      .value_or(std::nan(""));
        }
      });
  return out;
}

// StretchMeanSpread of `device`'s reference in `metric`, on the series
// ReadMeans chose (the first with the most points). Read apart, for the
// few devices whose slowdown asks for it: it sums the whole reference.
double ReferenceSpread(const EvalContext& ctx, std::string_view metric, int64_t from, int64_t to,
                       const std::string& device, const Span& w) {
  size_t most = 0;
  double spread = std::nan("");
  ctx.store.ForEachSeries(
      metric, from, to,
      [&](uint64_t id, const StoredLabels& labels, std::span<const WindowPoint> pts) {
        if (pts.size() <= most || ctx.facts().Of(id, labels).device != device) return;
        most = pts.size();
        spread = StretchMeanSpread(pts, w.ref_from, w.ref_to, w.now_to - w.now_from);
      });
  return spread;
}

Means Of(const MeansMap& m, std::optional<uint32_t> device_index) {
  return device_index && *device_index < m.size() ? m[*device_index] : Means{};
}

std::string Fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[192];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
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

std::string SlowdownEvidence(const CauseSignals& s, double slowdown) {
  if (!(slowdown >= kMinContentionSlowdown)) return "";
  // A workload that reports steps but made none in the window has stopped
  // (a checkpoint, a stall): a neighbour slows steps, it does not stop them.
  if (s.step_ref_s > 0 && !(s.step_s > 0)) return "";
  if (!(s.step_s > 0 && s.step_ref_s > 0)) {
    return Fmt("SM activity down %.0f%% against its own previous 30 minutes", 100 * slowdown);
  }
  // Within the workload's own short-term variation: its normal, not a neighbour.
  if (std::isfinite(s.step_ref_spread_s) && s.step_s <= s.step_ref_s + 3 * s.step_ref_spread_s) {
    return "";
  }
  // A neighbour keeps the device busy and at its clock; a job waiting off
  // the GPU leaves it idle, a throttled GPU runs at a lower clock.
  const double kept = 1 - slowdown / 2;
  if (s.sm_active_ref > 0 && std::isfinite(s.sm_active) && s.sm_active < s.sm_active_ref * kept) {
    return "";
  }
  if (s.clock_ref > 0 && std::isfinite(s.clock) && s.clock < s.clock_ref * kept) return "";
  // What the neighbour uses more of: the largest rise.
  const char* what = nullptr;
  double rise = kMinRise, from = 0, to = 0;
  auto consider = [&](const char* name, double now, double ref) {
    if (std::isfinite(now) && std::isfinite(ref) && now - ref >= rise) {
      what = name;
      rise = now - ref;
      from = ref;
      to = now;
    }
  };
  consider("DRAM bandwidth", s.bandwidth, s.bandwidth_ref);
  consider("L2 miss share", s.miss, s.miss_ref);
  consider("link use", s.link, s.link_ref);
  consider("SM activity", s.sm_active, s.sm_active_ref);
  consider("memory stall share", s.stall, s.stall_ref);
  if (what == nullptr) return "";
  std::string why = Fmt(
      "slowdown %.0f%% against its own previous 30 minutes (mean step %.3g s vs %.3g s, beyond its "
      "own 2-minute variation",
      100 * slowdown, s.step_s, s.step_ref_s);
  why += std::isfinite(s.clock) && s.clock_ref > 0 ? ", SM clock kept" : "";
  return why + "), with " + what + Fmt(" up from %.2f to %.2f", from, to);
}

const ReferenceBook::Held* ReferenceBook::Find(const std::string& device) const {
  auto it = held_.find(device);
  return it == held_.end() ? nullptr : &it->second;
}

void ReferenceBook::Hold(const std::string& device, const CauseSignals& ref, int64_t now_ns) {
  auto [it, added] = held_.try_emplace(device);
  if (added) {
    it->second.ref = ref;
    it->second.since_ns = now_ns;
  }
  it->second.seen_ns = now_ns;
}

void ReferenceBook::Prune(int64_t before_ns) {
  std::erase_if(held_, [&](const auto& kv) { return kv.second.seen_ns < before_ns; });
}

std::vector<CauseShare> ClassifyCauses(const RootCauseConfig& c, const CauseSignals& s,
                                       double slowdown) {
  // Bandwidth as a share of what the device reaches, not of its data sheet.
  const double reach = s.achievable > 0 && s.achievable <= 1 ? s.achievable : 1;
  const double bw = s.bandwidth / reach, bw_ref = s.bandwidth_ref / reach;
  // What a neighbour took: the rise of each shared resource against the
  // reference (a signal without a reference counts by its level above the
  // configured one). A resource that was always busy is not what changed.
  auto rise = [](double now, double ref, double level) {
    if (!std::isfinite(now)) return 0.0;
    if (!std::isfinite(ref)) return Pos(now - level);
    return now - ref >= kMinRise ? now - ref : 0.0;
  };
  // DRAM counts as saturated above bandwidth_saturated of its reach: at that
  // mean load queueing already stretches memory latency several-fold.
  const double saturation =
      bw > c.bandwidth_saturated ? rise(bw, bw_ref, c.bandwidth_saturated) : 0;
  const double pressure = rise(s.miss, s.miss_ref, c.miss_high);
  const double coherency = rise(s.link, s.link_ref, c.interconnect_busy);
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
                      std::vector<Finding>& findings, ReferenceBook& book, SlidingMeans* sliding) {
  const int64_t now = ctx.now_ns;
  // A reference ends where the finding's run began, so it is the normal
  // state rather than the contended one; for a run older than half the
  // reference (a condition that also holds on healthy jobs) it ends where
  // the current window begins.
  auto reference_end = [&](const Finding& f) {
    return now - f.window_start_ns <= config.reference_ns / 2 ? f.window_start_ns
                                                              : now - config.window_ns;
  };
  // Each device once per evaluation, with the spans of whichever of its
  // findings comes first.
  std::map<std::string, Span> spans;
  int64_t from = now;
  for (const Finding& f : findings) {
    if (!IsContentionKind(f.kind) || f.devices.empty()) continue;
    const int64_t end = reference_end(f);
    const bool held = book.Find(f.devices[0]) != nullptr;
    if (!spans
             .try_emplace(f.devices[0],
                          Span{now - config.window_ns, now, end - config.reference_ns, end, held})
             .second) {
      continue;
    }
    from = std::min(from, held ? now - config.window_ns : end - config.reference_ns);
  }
  // Reads reach a window further back, so the running sums of references
  // that slid since the last evaluation still see the points that left.
  from -= config.window_ns;
  if (spans.empty()) {
    book.Prune(now - config.window_ns);
    if (sliding != nullptr) sliding->Sweep();
    return;
  }
  DeviceSpans by_index(spans);
  auto read = [&](std::string_view metric) {
    return ReadMeans(ctx, metric, from, now, by_index, sliding);
  };
  const MeansMap bw = read("gpu_memory_bandwidth_utilization_ratio");
  const MeansMap miss = read(config.miss_metric);
  const MeansMap sm = read("gpu_sm_active_ratio");
  const MeansMap link = read("gpu_interconnect_bytes_per_second");
  const MeansMap pcie_rx = read("gpu_pcie_receive_bytes_per_second");
  const MeansMap stall = read(config.stall_metric);
  constexpr std::string_view kStepMetric = "gpu_workload_step_duration_seconds";
  const MeansMap step = read(kStepMetric);
  const MeansMap clock =
      ReadMeans(ctx, "gpu_clock_hertz", from, now, by_index, sliding, "domain", "sm");

  struct Device {
    CauseSignals s;
    double slowdown = 0;
    std::string evidence;
  };
  std::map<std::string, Device> devices;
  for (Finding& f : findings) {
    if (!IsContentionKind(f.kind) || f.devices.empty()) continue;
    const std::string& dev = f.devices[0];
    const std::optional<uint32_t> dev_index = ctx.facts().DeviceIndex(dev);
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(f.subject.Get("model"));
    // Max of interconnect and PCIe utilization, now and in the reference.
    auto link_use = [&](bool ref) {
      double use = 0;
      if (spec != nullptr && spec->interconnect_bytes_per_s > 0) {
        // The metric counts both directions; the spec is per direction.
        const Means l = Of(link, dev_index);
        const double v = ref ? l.ref : l.now;
        if (std::isfinite(v)) use = v / (2 * spec->interconnect_bytes_per_s);
      }
      if (spec != nullptr && spec->pcie_bytes_per_s > 0) {
        const Means p = Of(pcie_rx, dev_index);
        const double v = ref ? p.ref : p.now;
        if (std::isfinite(v)) use = std::max(use, v / spec->pcie_bytes_per_s);
      }
      return use;
    };
    auto [it, added] = devices.try_emplace(dev);
    CauseSignals& s = it->second.s;
    if (added) {
      const Means b = Of(bw, dev_index), ms = Of(miss, dev_index), a = Of(sm, dev_index),
                  st = Of(step, dev_index), ck = Of(clock, dev_index), sl = Of(stall, dev_index);
      s.bandwidth = b.now;
      s.miss = ms.now;
      s.sm_active = a.now;
      s.step_s = st.now;
      s.clock = ck.now;
      s.stall = sl.now;
      s.link = link_use(false);
      if (spec != nullptr && spec->stream_bandwidth_ratio > 0) {
        s.achievable = spec->stream_bandwidth_ratio;
      }
      const ReferenceBook::Held* h = book.Find(dev);
      const CauseSignals* held = h != nullptr ? &h->ref : nullptr;
      s.bandwidth_ref = held ? held->bandwidth_ref : b.ref;
      s.miss_ref = held ? held->miss_ref : ms.ref;
      s.sm_active_ref = held ? held->sm_active_ref : a.ref;
      s.step_ref_s = held ? held->step_ref_s : st.ref;
      s.step_ref_spread_s = held ? held->step_ref_spread_s : std::nan("");
      s.clock_ref = held ? held->clock_ref : ck.ref;
      s.stall_ref = held ? held->stall_ref : sl.ref;
      s.link_ref = held ? held->link_ref : link_use(true);
      const double slowdown = it->second.slowdown = EstimateSlowdown(s);
      // Only a slowdown measured in steps compares itself with the steps'
      // own variation (SlowdownEvidence).
      if (held == nullptr && slowdown >= kMinContentionSlowdown && s.step_s > 0 &&
          s.step_ref_s > 0) {
        s.step_ref_spread_s = ReferenceSpread(ctx, kStepMetric, from, now, dev, spans.at(dev));
      }
      std::string evidence = SlowdownEvidence(s, slowdown);
      if (h == nullptr) {
        if (!evidence.empty()) book.Hold(dev, s, now);  // counts after `window`
      } else if (now - h->since_ns < config.window_ns) {
        if (evidence.empty()) {
          book.Release(dev);  // a moment's slowdown
        } else {
          book.Hold(dev, s, now);
        }
      } else if (slowdown < kMinContentionSlowdown) {
        book.Release(dev);  // over
      } else {
        // Counts; kept through a passing lapse of the other conditions.
        book.Hold(dev, s, now);
        it->second.evidence =
            !evidence.empty()
                ? evidence
                : Fmt("slowdown %.0f%% against the reference held since the slowdown began "
                      "(mean step %.3g s vs %.3g s)",
                      100 * slowdown, s.step_s, s.step_ref_s);
      }
    }
    f.estimated_slowdown = it->second.slowdown;
    f.slowdown_evidence = it->second.evidence;
    f.causes = ClassifyCauses(config, s, f.estimated_slowdown);
    if (!f.causes.empty()) {
      f.summary += "; " + f.causes.front().explanation;
    }
  }
  book.Prune(now - config.window_ns);
  if (sliding != nullptr) sliding->Sweep();
}

}  // namespace gpufleet::detect
