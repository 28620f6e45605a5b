// Level Zero Sysman collector (source "levelzero"): Intel GPUs through
// libze_loader, loaded at run time.
//
// Discover() initializes Sysman (zesInit, or zeInit with ZES_ENABLE_SYSMAN=1
// on loaders older than API 1.5) and returns, per GPU, the whole device
// followed by one partition per tile (kind "intel_tile", id = subdevice id)
// when the device has sub-devices. A tile's readings come from the handles
// Sysman reports on that sub-device; the whole device reads device-level
// handles and, where Sysman has only per-tile handles of a kind, aggregates
// the tiles (utilization averaged, energy / memory / RAS counts summed,
// temperatures max).
//
// Readings (names as in data/mappings/levelzero.toml): counters are reported
// raw (energy_microjoules, pci_*_bytes, fabric_*_bytes, ras_*); ratios and
// power are computed from the previous collection of the same device with the
// device's own counter timestamps, so the first collection after Discover()
// reports no utilization, power or bandwidth ratio.
//
// Errors: Discover() -> NotFound (library absent, no GPU), PermissionDenied
// (Sysman init refused: it usually needs root), FailedPrecondition (other init
// failures). Collect() -> Unavailable when the device is lost
// (ZE_RESULT_ERROR_DEVICE_LOST); a field that fails alone is counted in
// DeviceReadings::field_errors as "permission", "not_supported",
// "symbol_missing" or "error".
//
// Thread safety: as Collector. Per-device state is touched only by Collect()
// of that device; a hung vendor call blocks only its caller.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/collector.h"

namespace gpufleet {

struct LevelZeroCollectorOptions {
  // Tried in order; a path with a '/' loads that file.
  std::vector<std::string> library_names = {"libze_loader.so.1", "libze_loader.so"};
};

std::unique_ptr<Collector> NewLevelZeroCollector(LevelZeroCollectorOptions options = {});

}  // namespace gpufleet
