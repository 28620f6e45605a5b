// Detector: one detection method run by the DetectionEngine. Private to
// detect/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "detect/device_series.h"
#include "detect/finding.h"
#include "store/window_store.h"

namespace gpufleet::detect {

// What every detector of one evaluation sees.
struct EvalContext {
  const WindowStore& store;
  int64_t now_ns;
  // DeviceKey -> workloads bound to it now: those its latest gpu_workload_info
  // samples report (one no longer reported has left).
  std::map<std::string, std::vector<std::string>, std::less<>> workloads_by_device;
  // The engine's series facts, kept across evaluations; null: own_facts.
  SeriesFacts* kept_facts = nullptr;
  mutable SeriesFacts own_facts{};

  SeriesFacts& facts() const { return kept_facts != nullptr ? *kept_facts : own_facts; }
  DeviceSeriesMap Read(std::string_view metric, int64_t from_ns, int64_t to_ns,
                       const std::function<bool(std::span<const WindowPoint>)>& keep = nullptr,
                       const DeviceSeriesMap* among = nullptr) const {
    return ReadDeviceSeries(store, facts(), metric, from_ns, to_ns, keep, among);
  }
};

class Detector {
 public:
  virtual ~Detector() = default;
  // Appends the findings active at ctx.now_ns to `out`.
  virtual void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) = 0;
};

}  // namespace gpufleet::detect
