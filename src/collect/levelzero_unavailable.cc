// Stand-in for the levelzero collector when gpufleet was built without the
// Level Zero header (Debian libze-dev): Discover() says so, which the Intel
// chooser reports before falling back to sysfs.
#include "collect/levelzero_collector.h"

namespace gpufleet {
namespace {

class UnavailableLevelZeroCollector final : public Collector {
 public:
  std::string_view source() const override { return "levelzero"; }
  StatusOr<std::vector<DeviceInfo>> Discover() override {
    return NotFoundError("levelzero: gpufleet was built without level_zero/zes_api.h");
  }
  Status Collect(size_t, DeviceReadings&) override {
    return NotFoundError("levelzero: gpufleet was built without level_zero/zes_api.h");
  }
};

}  // namespace

std::unique_ptr<Collector> NewLevelZeroCollector(LevelZeroCollectorOptions) {
  return std::make_unique<UnavailableLevelZeroCollector>();
}

}  // namespace gpufleet
