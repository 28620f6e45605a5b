// EvalThrottle: lets a detector whose evaluation is too costly to repeat on
// every tick evaluate at most once per interval and, between, repeat the
// findings of its last evaluation with window_end_ns moved to now (so their
// incidents stay open). Private to detect/; not thread-safe.
//
//   if (!throttle_.Due(ctx.now_ns, out)) return;
//   ... for each finding f: throttle_.Keep(f); out.push_back(std::move(f));
#pragma once

#include <cstdint>
#include <vector>

#include "detect/finding.h"

namespace gpufleet::detect {

class EvalThrottle {
 public:
  explicit EvalThrottle(int64_t every_ns) : every_ns_(every_ns) {}

  // True when an evaluation is due at `now_ns` (the first call, or every_ns
  // after the last evaluation): forgets the kept findings and counts now_ns
  // as the last evaluation. Else appends the kept findings, ending at
  // now_ns, to `out` and returns false.
  bool Due(int64_t now_ns, std::vector<Finding>& out) {
    if (last_eval_ns_ != 0 && now_ns - last_eval_ns_ < every_ns_) {
      for (Finding f : last_) {
        f.window_end_ns = now_ns;
        out.push_back(std::move(f));
      }
      return false;
    }
    last_eval_ns_ = now_ns;
    last_.clear();
    return true;
  }
  // Keeps a finding of this evaluation, to repeat until the next one.
  void Keep(const Finding& f) { last_.push_back(f); }

 private:
  const int64_t every_ns_;
  int64_t last_eval_ns_ = 0;
  std::vector<Finding> last_;
};

}  // namespace gpufleet::detect
