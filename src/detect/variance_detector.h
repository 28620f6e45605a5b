// Repetition statistics over per-step (or per-kernel) durations: a clean,
// repetitive workload has a coefficient of variation below max_cv; above it
// the distribution is classified as heavy-tailed (p99/p50 > tail_ratio_max),
// bimodal (Sarle's bimodality coefficient > bimodality_min) or noisy.
// The decision uses the step-to-step (von Neumann, MSSD) estimate of the
// deviation, sqrt(mean((x[i] - x[i-1])^2) / 2) without the largest 2% of
// differences (at least two), which equals the standard deviation for
// independent steps but ignores level shifts (a neighbour arriving, a
// throttled clock, a serving engine alternating prefill and decode): those
// are phases, the contention detectors' business, not jitter.
// Uneven steps that wait on the host (see MeasureHostWait) are reported as
// host_bound, informational: the workload's own input pipeline, not the GPU.
// One finding per workload instance (workload_pod, else workload_name, else
// device). Evaluated at most once a minute (findings are repeated between),
// since the window is minutes long and sorting every 10 s is wasted work.
// Private to detect/; not thread-safe.
#pragma once

#include <span>
#include <string>

#include "detect/detect_config.h"
#include "detect/detector.h"
#include "detect/eval_throttle.h"
#include "store/window_store.h"

namespace gpufleet::detect {

struct RepetitionStats {
  size_t n = 0;
  double mean = 0;
  double cv = 0;          // standard deviation / mean
  double cv_mssd = 0;     // step-to-step deviation / mean (the decision statistic)
  double bimodality = 0;  // Sarle's b = (skew^2 + 1) / (excess kurtosis + 3(n-1)^2/((n-2)(n-3)))
  double p50 = 0;
  double p99 = 0;
};
// REQUIRES: xs.size() >= 4. With cv_mssd <= clean_cv only n, mean and
// cv_mssd are filled (a clean workload needs no shape).
RepetitionStats ComputeRepetitionStats(std::span<const double> xs, double clean_cv = -1);
// "clean" | "heavy_tailed" | "bimodal" | "noisy".
std::string ClassifyRepetition(const VarianceConfig& config, const RepetitionStats& s);

// Whether a workload's uneven steps wait on the host: where the GPU idles
// for a step's extra time (an input pipeline, CPU work between launches),
// the busy share each collection interval reports follows the share of its
// steps' time that the compute explains (the 5th percentile of the window's
// step durations times the interval's step count, over their sum). Where
// the GPU itself is uneven (contention bursts, a slow rank, kernel
// variance) the busy share stays put. r is the Pearson correlation of the
// two over the intervals with steps; 0 when there are fewer than three.
struct HostWait {
  size_t intervals = 0;
  double r = 0;
};
// steps and busy sorted by time.
HostWait MeasureHostWait(std::span<const WindowPoint> steps, std::span<const WindowPoint> busy);

class VarianceDetector final : public Detector {
 public:
  explicit VarianceDetector(VarianceConfig config) : config_(std::move(config)) {}
  void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) override;

 private:
  const VarianceConfig config_;
  EvalThrottle throttle_{60'000'000'000};  // once a minute
};

}  // namespace gpufleet::detect
