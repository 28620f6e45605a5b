// Learned baselines: running mean and standard deviation of each configured
// metric per (GPU model, cloud, workload where known), learned from history;
// a finding when a device's metric stays beyond max_sigma standard
// deviations for `for`.
//
// Learning skips points that already deviate once the baseline is mature, so
// an anomaly does not teach itself in; the flip side is that a permanent
// change of normal keeps alerting until the baseline is reset (documented).
// Baselines persist through a BaselineStore. Private to detect/; not
// thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "detect/baseline_store.h"
#include "detect/detect_config.h"
#include "detect/detector.h"

namespace gpufleet::detect {

class BaselineDetector final : public Detector {
 public:
  BaselineDetector(BaselineConfig config, int64_t interval_ns);
  void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) override;

  void Load(const std::vector<Baseline>& baselines);
  // Baselines changed since the last call.
  std::vector<Baseline> TakeDirty();
  // REQUIRES: none; nullptr when unknown.
  const Baseline* Find(const std::string& key, const std::string& metric) const;

  // "model=NVIDIA H100/cloud=aws/workload=llm" (workload part omitted when
  // unknown).
  static std::string BaselineKey(const Labels& subject, const std::vector<std::string>& workloads);

 private:
  const BaselineConfig config_;
  const int64_t interval_ns_;
  std::map<std::pair<std::string, std::string>, Baseline> baselines_;  // (key, metric)
  std::set<std::pair<std::string, std::string>> dirty_;
  // One (metric index, device): the model, cloud and workloads its key was
  // built from, that key's baseline, and the newest point learned.
  struct Tracked {
    std::string model, cloud;
    std::vector<std::string> workloads;
    Baseline* baseline = nullptr;  // into baselines_ (a map: it stays put)
    int64_t learned_until_ns = 0;
  };
  std::vector<std::map<std::string, Tracked, std::less<>>> tracked_;  // by metric, device
};

}  // namespace gpufleet::detect
