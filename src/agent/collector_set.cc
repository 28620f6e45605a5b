#include "agent/collector_set.h"

#include <algorithm>

#include "collect/amd_collector.h"
#include "collect/intel_collector.h"
#include "collect/nvml_collector.h"
#include "collect/scenario.h"
#include "collect/sim_collector.h"

namespace gpufleet {

const std::vector<std::string>& KnownSources() {
  static const std::vector<std::string> kSources = {
      "auto", "sim", "nvml", "amd", "amdsmi", "rocm_smi", "amdgpu_sysfs",
      "intel", "levelzero", "intel_sysfs"};
  return kSources;
}

StatusOr<std::vector<std::unique_ptr<Collector>>> BuildCollectors(const SourceOptions& options,
                                                                  Clock& clock,
                                                                  std::vector<std::string>* log) {
  std::vector<std::unique_ptr<Collector>> out;
  for (const std::string& source : options.sources) {
    if (source == "sim") {
      ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(options.scenario));
      log->push_back("sim: scenario '" + options.scenario + "'");
      out.push_back(NewSimCollector(std::move(scenario), clock));
    } else if (source == "nvml") {
      out.push_back(NewNvmlCollector());
    } else if (source == "amdsmi") {
      out.push_back(NewAmdSmiCollector(AmdSmiCollectorOptions{}));
    } else if (source == "rocm_smi") {
      out.push_back(NewRocmSmiCollector(RocmSmiCollectorOptions{}));
    } else if (source == "amdgpu_sysfs") {
      AmdgpuSysfsOptions o;
      o.sysfs_root = options.sysfs_root;
      out.push_back(NewAmdgpuSysfsCollector(o));
    } else if (source == "levelzero") {
      out.push_back(NewLevelZeroCollector());
    } else if (source == "intel_sysfs") {
      IntelSysfsOptions o;
      o.sysfs_root = options.sysfs_root;
      out.push_back(NewIntelSysfsCollector(o));
    } else if (source == "amd" || source == "intel" || source == "auto") {
      // Probing: each vendor's fallback chain, keeping what finds devices.
      if (source == "auto") {
        auto nvml = NewNvmlCollector();
        StatusOr<std::vector<DeviceInfo>> found = nvml->Discover();
        if (found.ok() && !found->empty()) {
          log->push_back("auto: nvidia: nvml, " + std::to_string(found->size()) + " device(s)");
          out.push_back(std::move(nvml));
        } else {
          log->push_back("auto: nvidia: not present (" +
                         (found.ok() ? std::string("no devices") : found.status().ToString()) + ")");
        }
      }
      if (source == "amd" || source == "auto") {
        AmdCollectorOptions o;
        o.sysfs.sysfs_root = options.sysfs_root;
        o.dev_root = options.dev_root;
        // Probing: the ROCm libraries print their own errors on nodes without
        // an AMD GPU, so they are only loaded where the kernel shows one.
        o.require_kernel_device = source == "auto";
        StatusOr<std::unique_ptr<Collector>> amd = OpenAmdCollector(o, log);
        if (amd.ok()) {
          log->push_back("amd: using " + std::string((*amd)->source()));
          out.push_back(std::move(amd).value());
        } else if (source == "amd") {
          return amd.status();
        } else {
          log->push_back("auto: amd: not present (" + amd.status().message() + ")");
        }
      }
      if (source == "intel" || source == "auto") {
        IntelCollectorOptions o;
        o.sysfs.sysfs_root = options.sysfs_root;
        StatusOr<std::unique_ptr<Collector>> intel = OpenIntelCollector(o);
        if (intel.ok()) {
          log->push_back("intel: using " + std::string((*intel)->source()));
          out.push_back(std::move(intel).value());
        } else if (source == "intel") {
          return intel.status();
        } else {
          log->push_back("auto: intel: not present (" + intel.status().message() + ")");
        }
      }
    } else {
      return InvalidArgumentError("unknown source '" + source + "'");
    }
  }
  if (out.empty() && options.other_sources) {
    log->push_back("no GPU telemetry source on this node; collecting from the scrape targets only");
  } else if (out.empty()) {
    return NotFoundError(
        "no GPU telemetry source found on this node (no NVIDIA, AMD or Intel GPU or library); "
        "use --source sim for the simulated fleet");
  }
  return out;
}

}  // namespace gpufleet
