// Root-cause classification of contention findings, with each cause's share
// of the estimated slowdown, and the slowdown evidence that tells contention
// from a job slowed by something else.
//
// Over the finding's last `window` against the `reference` before the
// finding started (before the current window when the finding's run is
// older than half the reference), per device, a cause is what rose by at
// least kMinRise:
// - memory_pressure: the cache-miss-like share;
// - bandwidth_saturation: DRAM bandwidth, when above bandwidth_saturated of
//   what the device reaches;
// - coherency: interconnect or PCIe utilization.
// Without a reference a signal counts by its level above miss_high /
// interconnect_busy. Shares are the normalized rises. The estimated slowdown is
// 1 - reference step time / current step time when the device reports step
// durations, else the relative drop in SM activity.
//
// A slowdown is evidence of contention (SlowdownEvidence) only when it is
// what a neighbour sharing the device produces: the workload's steps take
// >= kMinContentionSlowdown longer than before, beyond the workload's own
// 2-minute variation (3 standard deviations of the reference's 2-minute
// means: phase changes such as prefill/decode alternation are its normal),
// while the device keeps working (SM activity not down by half the
// slowdown or more: a job waiting on input, the host or the network leaves
// the GPU idle, a neighbour keeps it busy) at its clock (SM clock not down
// by half the slowdown or more: a throttled GPU is slow on its own), and a
// shared resource shows the neighbour (DRAM bandwidth, L2 misses, link
// traffic, SM activity or memory stalls up by at least kMinRise of its
// range against the reference: a job that only changed phase, or caught up
// after a checkpoint, keeps its own profile). When
// the device reports no step durations the slowdown is the drop in SM
// activity and is evidence by itself; a workload that reports steps but made
// none in the window has stopped (a checkpoint), which is no evidence.
//
// The evidence must hold at every evaluation for `window` (2 minutes)
// before it counts, like a rule's `for`: a phase change or a checkpoint's
// long step passes it for moments. From the first moment the device's
// reference is held (ReferenceBook), and once the evidence counts it lasts
// while the slowdown against that reference does, so a long episode keeps
// being compared with the state before it began rather than with a window
// that slides into it. Private to detect/; not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "detect/detect_config.h"
#include "detect/detector.h"
#include "detect/device_series.h"

namespace gpufleet::detect {

inline constexpr char kCauseMemoryPressure[] = "memory_pressure";
inline constexpr char kCauseBandwidthSaturation[] = "bandwidth_saturation";
inline constexpr char kCauseCoherency[] = "coherency";

// The signals of one device, as window means (NaN = not reported).
struct CauseSignals {
  double bandwidth = 0, bandwidth_ref = 0;  // of the catalog's peak
  // The share of the peak the device's model measurably reaches
  // (GpuModelSpec::stream_bandwidth_ratio; 1 when the catalog has none).
  // Saturation is judged against it: a counter that a streaming kernel drives
  // to ~0.8 of the data-sheet peak never passes 0.9 of the data sheet.
  double achievable = 1;
  double miss = 0, miss_ref = 0;
  double link = 0,
         link_ref = 0;  // max of interconnect and PCIe utilization, 0-1
  double sm_active = 0, sm_active_ref = 0;
  double step_s = 0, step_ref_s = 0;
  // Standard deviation of the reference's mean step time per `window`
  // (the workload's own short-term variation); NaN when unknown.
  double step_ref_spread_s = 0;
  double clock = 0, clock_ref = 0;  // SM clock, hertz
  double stall = 0, stall_ref = 0;  // memory stall share
};

// A slowdown smaller than this is no evidence of contention.
inline constexpr double kMinContentionSlowdown = 0.05;
// A signal (a 0-1 share) counts as risen when up by at least this.
inline constexpr double kMinRise = 0.02;

// Why the signals show a neighbour's slowdown ("slowdown 23% against its own
// previous 30 minutes: ..."), or "" when they do not (see above).
std::string SlowdownEvidence(const CauseSignals& s, double estimated_slowdown);

// The references held per device while its slowdown evidence lasts.
class ReferenceBook {
 public:
  struct Held {
    CauseSignals ref;      // its *_ref fields
    int64_t since_ns = 0;  // first held
    int64_t seen_ns = 0;
  };
  // The held reference of `device`, or null.
  const Held* Find(const std::string& device) const;
  // Holds `ref` for `device` (kept when one is held already), seen at now.
  void Hold(const std::string& device, const CauseSignals& ref, int64_t now_ns);
  void Release(const std::string& device) { held_.erase(device); }
  // Drops references whose device has not been seen since `before_ns`.
  void Prune(int64_t before_ns);
  size_t size() const { return held_.size(); }

 private:
  std::map<std::string, Held> held_;
};

// Scores the causes; shares sum to 1 when any cause scores, else empty.
std::vector<CauseShare> ClassifyCauses(const RootCauseConfig& config, const CauseSignals& s,
                                       double estimated_slowdown);
double EstimateSlowdown(const CauseSignals& s);

// Fills causes, estimated_slowdown and slowdown_evidence of every
// contention finding in `findings` (kinds memory/latency-bound/sustained
// contention), holding and releasing references in `book`.
// `sliding` (optional, kept across evaluations) holds the references' running
// sums (device_series.h).
void AttachRootCauses(const RootCauseConfig& config, const EvalContext& ctx,
                      std::vector<Finding>& findings, ReferenceBook& book,
                      SlidingMeans* sliding = nullptr);

}  // namespace gpufleet::detect
