#include "collect/intel_collector.h"

#include <string>

namespace gpufleet {

StatusOr<std::unique_ptr<Collector>> OpenIntelCollector(IntelCollectorOptions options) {
  std::unique_ptr<Collector> levelzero = NewLevelZeroCollector(std::move(options.levelzero));
  auto l0 = levelzero->Discover();
  if (l0.ok() && !l0->empty()) return levelzero;

  std::unique_ptr<Collector> sysfs = NewIntelSysfsCollector(std::move(options.sysfs));
  auto fs = sysfs->Discover();
  if (fs.ok() && !fs->empty()) return sysfs;

  std::string why = "no Intel GPU source works: levelzero: " +
                    (l0.ok() ? std::string("no devices") : l0.status().ToString()) +
                    "; intel_sysfs: " +
                    (fs.ok() ? std::string("no devices") : fs.status().ToString());
  if (!l0.ok() && l0.status().code() == StatusCode::kPermissionDenied) {
    return PermissionDeniedError(why);
  }
  return NotFoundError(why);
}

}  // namespace gpufleet
