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
  std::string dev_root = "/dev";  // for the AMD probe (/dev/kfd)
  // True when the agent has another source (a --scrape target): finding no
  // GPU on the node is then not an error (an exporter alone is a valid
  // source, the usual case of an agent beside the exporter it adopts).
  bool other_sources = false;
};

// Names accepted in SourceOptions::sources.
const std::vector<std::string>& KnownSources();

// `log` receives one human-readable line per decision. Errors: NotFound
// when no source finds a GPU and options.other_sources is false.
StatusOr<std::vector<std::unique_ptr<Collector>>> BuildCollectors(const SourceOptions& options,
                                                                  Clock& clock,
                                                                  std::vector<std::string>* log);

}  // namespace gpufleet
