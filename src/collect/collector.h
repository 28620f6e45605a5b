// Collector: one source of GPU telemetry (a vendor library, sysfs, a vendor
// exporter, the simulator) behind one interface.
//
// A collector reports readings in its source's own vocabulary and units
// (e.g. "power_usage_mw"); normalize/ maps them to canonical metrics with the
// table data/mappings/<source()>.toml. Collectors never format output.
//
// Thread safety: the agent calls Discover() alone, then Collect() for
// different devices from different threads, at most one call per device at a
// time. Implementations guard any shared state.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/device.h"

namespace gpufleet {

class Collector {
 public:
  virtual ~Collector() = default;

  // Source name; selects data/mappings/<source>.toml ("nvml", "amdsmi",
  // "rocm_smi", "amdgpu_sysfs", "levelzero", "intel_sysfs", "sim", ...).
  virtual std::string_view source() const = 0;

  // Loads the vendor library or opens sysfs and enumerates devices. May be
  // called again to re-discover (device returned, driver reloaded).
  // Errors: NotFound when the vendor is absent on this node (library or
  // devices missing), FailedPrecondition on a driver/library mismatch.
  virtual StatusOr<std::vector<DeviceInfo>> Discover() = 0;

  // Reads device `index` (position in the last Discover() result) into `out`.
  // May block inside a vendor call; the agent runs it on a worker with a
  // deadline. Errors make the device down: Unavailable = lost (fell off the
  // bus), FailedPrecondition = driver mismatch, PermissionDenied, NotFound =
  // library or symbol missing, anything else = error.
  virtual Status Collect(size_t index, DeviceReadings& out) = 0;
};

}  // namespace gpufleet
