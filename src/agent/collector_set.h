// Builds the agent's collectors from the --source list.
//
// "auto" probes every vendor on this node (NVIDIA via NVML; AMD via AMD SMI,
// then ROCm SMI, then amdgpu sysfs; Intel via Level Zero, then i915/xe sysfs)
// and keeps those that discover devices; vendors that are absent are reported
// once on stderr, not as errors. Named sources are kept even when they find
// nothing yet (the agent retries discovery), so a node whose driver loads
// late still gets collected.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/collector.h"
#include "core/clock.h"
#include "core/status.h"

namespace gpufleet {

struct SourceOptions {
  std::vector<std::string> sources = {"auto"};
  std::string scenario = "default";  // for "sim": a scenario file or "default"
  std::string sysfs_root = "/sys";
};

// Names accepted in SourceOptions::sources.
const std::vector<std::string>& KnownSources();

// `log` receives one human-readable line per decision.
StatusOr<std::vector<std::unique_ptr<Collector>>> BuildCollectors(const SourceOptions& options,
                                                                  Clock& clock,
                                                                  std::vector<std::string>* log);

}  // namespace gpufleet
