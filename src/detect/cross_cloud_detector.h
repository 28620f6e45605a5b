// Cross-cloud comparison: the same workload on the same GPU model should run
// at the same speed on every cloud. When the median step duration on the
// slowest cloud exceeds the fastest by more than max_gap, the GPUs there sit
// idle for a share of the slowdown (SM activity down by at least a quarter
// of it: the time goes to waiting off the GPU, on the network, storage or
// host), and most of that node's compared workloads are slow the same way
// (a cloud-side cause reaches the whole node; one job's input pipeline does
// not), the finding names the slowest cloud for the cloud-ops team. A
// neighbour or a throttled clock keeps the GPU busy and is left to the
// contention detectors.
// Evaluated at most once a minute (findings are repeated between).
// Private to detect/; not thread-safe.
#pragma once

#include "detect/detect_config.h"
#include "detect/detector.h"
#include "detect/eval_throttle.h"

namespace gpufleet::detect {

class CrossCloudDetector final : public Detector {
 public:
  explicit CrossCloudDetector(CrossCloudConfig config) : config_(std::move(config)) {}
  void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) override;

 private:
  const CrossCloudConfig config_;
  EvalThrottle throttle_{60'000'000'000};  // once a minute
};

}  // namespace gpufleet::detect
