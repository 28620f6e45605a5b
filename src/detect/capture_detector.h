// Conditional deep instrumentation: when a cheap signal trips (utilization
// < 0.3 for 5m, page faults above a rate, ...) a capture_trigger finding asks
// the server to run the configured capture command for that device, with
// {node}, {gpu} and {gpu_uuid} substituted. A trigger that fired on a device
// stays quiet there for `cooldown` after its run ended, so a flapping signal
// does not start a capture every few minutes.
// Private to detect/; not thread-safe.
#pragma once

#include <map>
#include <string>

#include "detect/detect_config.h"
#include "detect/detector.h"

namespace gpufleet::detect {

class CaptureDetector final : public Detector {
 public:
  CaptureDetector(CaptureTriggerConfig config, int64_t interval_ns, int64_t lookback_ns);
  void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) override;

 private:
  struct State {
    int64_t run_since_ns = 0;  // start of the run that fired
    int64_t last_active_ns = 0;
  };
  const CaptureTriggerConfig config_;
  const int64_t interval_ns_;
  const int64_t lookback_ns_;
  std::map<std::string, State> fired_;  // by device
};

}  // namespace gpufleet::detect
