// OpenIntelCollector: the Intel fallback chain. Level Zero Sysman first (full
// telemetry, tiles), then i915/xe sysfs + hwmon (no vendor library needed).
//
// Returns the first collector whose Discover() finds devices; the returned
// collector has been discovered once (callers may call Discover() again).
// Errors: NotFound naming why each source was rejected when none works;
// PermissionDenied when Level Zero refused access and sysfs found nothing
// either (so the operator learns that running as root would help).
#pragma once

#include <memory>

#include "collect/collector.h"
#include "collect/intel_sysfs_collector.h"
#include "collect/levelzero_collector.h"
#include "core/status.h"

namespace gpufleet {

struct IntelCollectorOptions {
  LevelZeroCollectorOptions levelzero;
  IntelSysfsOptions sysfs;
};

StatusOr<std::unique_ptr<Collector>> OpenIntelCollector(IntelCollectorOptions options = {});

}  // namespace gpufleet
