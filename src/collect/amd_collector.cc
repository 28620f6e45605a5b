#include "collect/amd_collector.h"

namespace gpufleet {

StatusOr<std::unique_ptr<Collector>> OpenAmdCollector(const AmdCollectorOptions& options,
                                                      std::vector<std::string>* log) {
  std::unique_ptr<Collector> chain[] = {
      NewAmdSmiCollector(options.amdsmi),
      NewRocmSmiCollector(options.rocm_smi),
      NewAmdgpuSysfsCollector(options.sysfs),
  };
  std::string reasons;
  Status worst;  // first failure that is not plain "absent"
  for (std::unique_ptr<Collector>& c : chain) {
    StatusOr<std::vector<DeviceInfo>> devices = c->Discover();
    if (devices.ok()) {
      if (log != nullptr) {
        log->push_back("amd: using " + std::string(c->source()) + " (" +
                       std::to_string(devices->size()) + " devices)");
      }
      return std::move(c);
    }
    std::string line = std::string(c->source()) + " rejected: " + devices.status().ToString();
    if (log != nullptr) log->push_back("amd: " + line);
    if (!reasons.empty()) reasons += "; ";
    reasons += line;
    if (worst.ok() && devices.status().code() != StatusCode::kNotFound) worst = devices.status();
  }
  if (!worst.ok()) return Status(worst.code(), "no usable AMD source: " + reasons);
  return NotFoundError("no AMD GPU found: " + reasons);
}

}  // namespace gpufleet
