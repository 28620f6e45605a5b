// Cross-cloud comparison: the same workload on the same GPU model should run
// at the same speed on every cloud. When the median step duration on the
// slowest cloud exceeds the fastest by more than max_gap, the finding names
// the slowest cloud (a cloud-specific issue: noisy tenancy, throttled
// instances, network) for the cloud-ops team.
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
