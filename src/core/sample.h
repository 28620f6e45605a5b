// Sample: one value of one series at one time. The unit of data that flows
// from collectors through normalization to exposition and remote write.
#pragma once

#include <cstdint>
#include <string>

#include "core/labels.h"

namespace gpufleet {

struct Sample {
  std::string name;   // metric name, e.g. "gpu_power_watts"
  Labels labels;      // without __name__
  double value = 0;
  int64_t timestamp_ns = 0;  // 0 = "now" / unset
};

}  // namespace gpufleet
