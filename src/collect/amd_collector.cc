#include "collect/amd_collector.h"

#include <filesystem>
#include <fstream>

namespace gpufleet {

bool AmdKernelDevicePresent(const std::string& sysfs_root, const std::string& dev_root,
                            std::string* why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(fs::path(dev_root) / "kfd", ec)) return true;
  fs::path drm = fs::path(sysfs_root) / "class" / "drm";
  for (fs::directory_iterator it(drm, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream f(it->path() / "device" / "vendor");
    std::string vendor;
    if (f >> vendor && vendor == "0x1002") return true;
  }
  if (why != nullptr) {
    *why = "no " + (fs::path(dev_root) / "kfd").string() + " and no AMD (0x1002) card under " +
           drm.string();
  }
  return false;
}

StatusOr<std::unique_ptr<Collector>> OpenAmdCollector(const AmdCollectorOptions& options,
                                                      std::vector<std::string>* log) {
  std::string why;
  if (options.require_kernel_device &&
      !AmdKernelDevicePresent(options.sysfs.sysfs_root, options.dev_root, &why)) {
    return NotFoundError("no AMD GPU found: " + why + " (AMD SMI and ROCm SMI not loaded)");
  }
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
      KfdEventsOptions kfd = options.kfd;
      if (kfd.sysfs_root.empty()) kfd.sysfs_root = options.sysfs.sysfs_root;
      if (kfd.dev_kfd.empty()) kfd.dev_kfd = options.dev_root + "/kfd";
      return WithKfdPageFaults(std::move(c), std::move(kfd), log);
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
