// DetectionEngine: runs every detector on the window store and returns the
// findings active now. The same detectors serve every vendor, because they
// read canonical metrics only.
//
// Detectors: threshold rules (memory / latency-bound / sustained contention),
// learned baselines (with a BaselineStore), repetition statistics (variance,
// bimodality, heavy tails of step durations), cross-cloud comparison of the
// same workload, and capture triggers. Contention findings are annotated with
// root-cause shares and an estimated slowdown. Only actionable findings are
// returned: none for idle devices, and capture triggers ride on the finding
// they serve (detect/actionable.h).
//
// Thread safety: not thread-safe; one detector thread calls Evaluate. The
// WindowStore may be appended to concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"
#include "detect/actionable.h"
#include "detect/baseline_store.h"
#include "detect/detect_config.h"
#include "detect/finding.h"
#include "detect/root_cause.h"
#include "store/window_store.h"

namespace gpufleet::detect {

class Detector;

class DetectionEngine {
 public:
  // `baselines` may be null (no learned baselines); otherwise it must outlive
  // the engine, and learned baselines are loaded from it now.
  static StatusOr<std::unique_ptr<DetectionEngine>> Create(const DetectConfig& config,
                                                           BaselineStore* baselines);
  ~DetectionEngine();

  // Evaluates every detector on `store` at `now_ns`; returns the findings
  // active now, sorted by key.
  std::vector<Finding> Evaluate(const WindowStore& store, int64_t now_ns);

  // Writes learned baselines to the BaselineStore (Evaluate also does it
  // every `kFlushEveryNs`).
  Status FlushBaselines();

  const DetectConfig& config() const { return config_; }
  // Findings dropped or merged so far (idle devices, capture triggers).
  const ActionableStats& actionable_stats() const { return actionable_; }

 private:
  DetectionEngine(const DetectConfig& config, BaselineStore* baselines);

  DetectConfig config_;
  BaselineStore* baselines_store_;
  std::vector<std::unique_ptr<Detector>> detectors_;
  class BaselineDetector* baseline_detector_ = nullptr;  // owned by detectors_
  int64_t last_flush_ns_ = 0;
  ActionableStats actionable_;
  ReferenceBook references_;  // contention references held per device (root_cause.h)
  SlidingMeans reference_means_;  // their running sums (device_series.h)
  SeriesFacts facts_;             // device keys and subjects by series id
  uint64_t evaluations_ = 0;
};

}  // namespace gpufleet::detect
