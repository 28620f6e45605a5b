#include "detect/detection_engine.h"

#include <algorithm>
#include <map>
#include <string>

#include "detect/actionable.h"
#include "detect/baseline_detector.h"
#include "detect/capture_detector.h"
#include "detect/cross_cloud_detector.h"
#include "detect/device_series.h"
#include "detect/root_cause.h"
#include "detect/rule_detector.h"
#include "detect/variance_detector.h"

namespace gpufleet::detect {
namespace {

// Baselines are written at most this often (and by FlushBaselines).
constexpr int64_t kFlushEveryNs = 5LL * 60'000'000'000;
// Series facts of pruned series are forgotten this often (evaluations).
constexpr uint64_t kSweepFactsEvery = 64;

}  // namespace

DetectionEngine::DetectionEngine(const DetectConfig& config, BaselineStore* baselines)
    : config_(config), baselines_store_(baselines) {}

DetectionEngine::~DetectionEngine() = default;

StatusOr<std::unique_ptr<DetectionEngine>> DetectionEngine::Create(const DetectConfig& config,
                                                                   BaselineStore* baselines) {
  if (config.interval_ns <= 0 || config.lookback_ns <= 0) {
    return InvalidArgumentError("detect config: interval and lookback must be > 0");
  }
  std::unique_ptr<DetectionEngine> e(new DetectionEngine(config, baselines));
  for (const RuleConfig& r : config.rules) {
    if (r.conditions.empty()) {
      return InvalidArgumentError("detect config: rule '" + r.name + "' has no conditions");
    }
    e->detectors_.push_back(
        std::make_unique<RuleDetector>(r, config.interval_ns, config.lookback_ns));
  }
  if (config.baseline.enabled && !config.baseline.metrics.empty()) {
    auto b = std::make_unique<BaselineDetector>(config.baseline, config.interval_ns);
    if (baselines != nullptr) {
      auto loaded = baselines->LoadAll();
      if (!loaded.ok()) return loaded.status().WithContext("loading baselines");
      b->Load(*loaded);
    }
    e->baseline_detector_ = b.get();
    e->detectors_.push_back(std::move(b));
  }
  if (config.variance.enabled) {
    e->detectors_.push_back(std::make_unique<VarianceDetector>(config.variance));
  }
  if (config.cross_cloud.enabled) {
    e->detectors_.push_back(std::make_unique<CrossCloudDetector>(config.cross_cloud));
  }
  for (const CaptureTriggerConfig& c : config.captures) {
    e->detectors_.push_back(
        std::make_unique<CaptureDetector>(c, config.interval_ns, config.lookback_ns));
  }
  return e;
}

std::vector<Finding> DetectionEngine::Evaluate(const WindowStore& store, int64_t now_ns) {
  if (++evaluations_ % kSweepFactsEvery == 0) facts_.Sweep();
  EvalContext ctx{store, now_ns, {}};
  ctx.kept_facts = &facts_;
  // A device's workloads are those its latest attribution reports: one that
  // stopped being reported has left, though its last sample is still within
  // the lookback (a recording has no staleness markers).
  std::map<std::string, std::vector<std::pair<std::string_view, int64_t>>> seen;
  store.ForEachLatest("gpu_workload_info", now_ns - config_.lookback_ns, now_ns,
                      [&](uint64_t series, const StoredLabels& labels, const WindowPoint& latest) {
                        std::string_view w = labels.Get("workload_name");
                        if (w.empty()) w = labels.Get("workload_pod");
                        if (w.empty()) return;
                        seen[facts_.Of(series, labels).device].emplace_back(w, latest.timestamp_ns);
                      });
  for (auto& [device, list] : seen) {
    int64_t newest = 0;
    for (const auto& [w, t] : list) newest = std::max(newest, t);
    auto& names = ctx.workloads_by_device[device];
    for (const auto& [w, t] : list) {
      const bool current = t > newest - config_.interval_ns;
      if (current && std::find(names.begin(), names.end(), w) == names.end()) names.emplace_back(w);
    }
    std::sort(names.begin(), names.end());
  }

  std::vector<Finding> out;
  for (auto& d : detectors_) d->Evaluate(ctx, out);
  // Some sources name the model only in gpu_info (xpumd, XPU Manager): a
  // finding's subject takes it from there, so root causes find the device's
  // catalog entry and the incident shows its model. Read only when a
  // finding lacks one (most sources name it on every series).
  auto lacks_model = [](const Finding& f) {
    return !f.devices.empty() && f.subject.Get("model").empty();
  };
  if (std::any_of(out.begin(), out.end(), lacks_model)) {
    std::map<std::string, std::string, std::less<>> models;
    store.ForEachLatest("gpu_info", now_ns - config_.lookback_ns, now_ns,
                        [&](uint64_t series, const StoredLabels& labels, const WindowPoint&) {
                          std::string_view model = labels.Get("model");
                          if (!model.empty()) models[facts_.Of(series, labels).device] = model;
                        });
    for (Finding& f : out) {
      if (!lacks_model(f)) continue;
      if (auto it = models.find(f.devices[0]); it != models.end()) {
        f.subject.Set("model", it->second);
      }
    }
  }
  AttachRootCauses(config_.root_cause, ctx, out, references_, &reference_means_);
  std::sort(out.begin(), out.end(),
            [](const Finding& a, const Finding& b) { return a.key < b.key; });
  KeepActionable(ctx, out, actionable_);  // keeps the order

  if (baselines_store_ != nullptr && now_ns - last_flush_ns_ >= kFlushEveryNs) {
    // On failure the baselines stay in memory; those still learning are
    // written by a later flush.
    if (FlushBaselines().ok()) last_flush_ns_ = now_ns;
  }
  return out;
}

Status DetectionEngine::FlushBaselines() {
  if (baselines_store_ == nullptr || baseline_detector_ == nullptr) return OkStatus();
  return baselines_store_->Save(baseline_detector_->TakeDirty());
}

}  // namespace gpufleet::detect
