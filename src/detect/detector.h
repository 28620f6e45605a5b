// Detector: one detection method run by the DetectionEngine. Private to
// detect/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "detect/finding.h"
#include "store/window_store.h"

namespace gpufleet::detect {

// What every detector of one evaluation sees.
struct EvalContext {
  const WindowStore& store;
  int64_t now_ns;
  // DeviceKey -> workloads bound to it now: those its latest gpu_workload_info
  // samples report (one no longer reported has left).
  std::map<std::string, std::vector<std::string>> workloads_by_device;
};

class Detector {
 public:
  virtual ~Detector() = default;
  // Appends the findings active at ctx.now_ns to `out`.
  virtual void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) = 0;
};

}  // namespace gpufleet::detect
