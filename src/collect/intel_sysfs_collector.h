// i915 / xe sysfs + hwmon collector (source "intel_sysfs"): the fallback for
// Intel GPUs when Level Zero is absent. Needs no vendor library.
//
// Discover() lists <sysfs_root>/class/drm/card<N> whose device/vendor is
// 0x8086 (one whole device each; tiles are not split here). Readings, all
// through <sysfs_root> so tests run on a checked-in tree:
//   hwmon energy1_input (uJ counter), power1_max (uW), temp*_input (m°C, by
//   temp*_label: pkg -> gpu, vram/mctrl -> memory);
//   GT frequency: i915 card<N>/gt_act_freq_mhz, xe device/tile0/gt0/freq0/act_freq;
//   GT awake ratio from the GT idle residency counter (i915
//   card<N>/gt/gt0/rc6_residency_ms, xe device/tile0/gt0/gtidle/idle_residency_ms):
//   an upper bound of engine busy time, the only busy signal upstream sysfs has;
//   local memory: i915 lmem_total_bytes / lmem_avail_bytes, xe
//   device/tile*/physical_vram_size_bytes.
// Power and the awake ratio are computed from the previous collection of the
// same device with `clock` (monotonic), so the first collection has none.
//
// Errors: Discover() -> NotFound when no Intel card exists. Collect() ->
// Unavailable when the card disappeared; unreadable single files are counted
// as "error" / "permission".
//
// Thread safety: as Collector; per-device state is touched only by Collect()
// of that device.
#pragma once

#include <memory>
#include <string>

#include "collect/collector.h"
#include "core/clock.h"

namespace gpufleet {

struct IntelSysfsOptions {
  std::string sysfs_root = "/sys";
  Clock* clock = nullptr;  // not owned; nullptr = RealClock::Get()
};

std::unique_ptr<Collector> NewIntelSysfsCollector(IntelSysfsOptions options = {});

}  // namespace gpufleet
