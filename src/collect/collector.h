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

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collect/device.h"
#include "core/labels.h"
#include "core/status.h"

namespace gpufleet {

// One value in the source's vocabulary. `labels` carries reading-specific
// dimensions (sensor="edge", link="3", pid="1234"), never device identity.
struct RawReading {
  std::string name;
  double value = 0;
  Labels labels;
};

struct DeviceReadings {
  std::vector<RawReading> readings;
  // Fields that failed without failing the device, by reason
  // ("not_supported", "sentinel", "symbol_missing", "error"): counted into
  // gpufleet_agent_collector_errors_total.
  std::map<std::string, uint64_t> field_errors;

  void Add(std::string name, double value, Labels labels = {}) {
    readings.push_back(RawReading{std::move(name), value, std::move(labels)});
  }
  void CountError(const std::string& reason) { ++field_errors[reason]; }
};

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
