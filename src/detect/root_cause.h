// Root-cause classification of contention findings, with each cause's share
// of the estimated slowdown.
//
// Over the finding's last `window` against the `reference` before the
// finding started, per device:
// - memory_pressure: cache-miss-like signal above miss_high and risen, while
//   bandwidth is not saturated;
// - bandwidth_saturation: DRAM bandwidth above bandwidth_saturated;
// - coherency: interconnect or PCIe utilization above interconnect_busy and
//   risen, with throughput (SM activity) down.
// Each cause scores its excess over the threshold and its rise over the
// reference; shares are the normalized scores. The estimated slowdown is
// 1 - reference step time / current step time when the device reports step
// durations, else the relative drop in SM activity.
// Private to detect/; not thread-safe.
#pragma once

#include <vector>

#include "detect/detect_config.h"
#include "detect/detector.h"

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
};

// Scores the causes; shares sum to 1 when any cause scores, else empty.
std::vector<CauseShare> ClassifyCauses(const RootCauseConfig& config, const CauseSignals& s,
                                       double estimated_slowdown);
double EstimateSlowdown(const CauseSignals& s);

// Fills causes and estimated_slowdown of every contention finding in
// `findings` (kinds memory/latency-bound/sustained contention).
void AttachRootCauses(const RootCauseConfig& config, const EvalContext& ctx,
                      std::vector<Finding>& findings);

}  // namespace gpufleet::detect
