// AMD SMI collector (source "amdsmi"): AMD Instinct / Radeon GPUs through
// libamd_smi.so, the library AMD recommends over its CLI and over ROCm SMI.
//
// Readings (units are the library's; data/mappings/amdsmi.toml converts):
//   gfx_activity_percent, umc_activity_percent          %   (every device)
//   memory_used_bytes, memory_total_bytes               bytes
//   clock_mhz{domain=sm|memory|soc|data|video}           MHz
//   process_vram_bytes{pid}                             bytes (enable_processes)
//   socket_power_watts                                  W   (current socket power on
//                                                           MI300+, else average)
//   power_limit_microwatts                              uW
//   energy_microjoules                                  uJ  (accumulator x resolution)
//   temperature_celsius{sensor=edge|junction|memory}    C
//   ecc_{correctable,uncorrectable,deferred}_total      count
//   pcie_replays_total                                  count
//   xgmi_{read,write}_kilobytes{link}                   KB  (accumulated)
//   throttle_active{reason=power|thermal|hw_slowdown|vr_thermal|hbm_thermal}  0/1
//
// Partitions: on MI300-class parts in DPX/QPX/CPX mode AMD SMI lists each
// compute partition (XCP) as its own processor; each becomes a DeviceInfo
// with partition {kind "amd_xcp", id = XCP index, profile "cpx"...} and the
// parent GPU's UUID. Board-level sensors (power, energy, temperature, ECC,
// PCIe, xGMI, throttle) are read only on partition 0: AMD reports them there
// and zero elsewhere, and inventing values for the others would double count.
//
// Errors: library or required symbol missing, driver not loaded, or no GPU ->
// NotFound from Discover. In Collect, a call failing with NOT_FOUND / IO /
// FILE_ERROR / DRM_ERROR means the device is gone -> Unavailable("lost");
// NOT_INIT / DRIVER_NOT_LOADED -> Unavailable and the library is
// re-initialized on the next Discover. NOT_SUPPORTED fields are counted
// ("not_supported"), absent optional symbols too ("symbol_missing"), vendor
// sentinels (UINT16_MAX / UINT32_MAX / UINT64_MAX) are dropped and counted
// ("sentinel").
//
// Thread safety: as Collector. Collect() on different devices may run
// concurrently; Discover() must not overlap Collect().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/collector.h"

namespace gpufleet {

struct AmdSmiCollectorOptions {
  // dlopen names, tried in order (absolute paths work too).
  std::vector<std::string> library_names = {"libamd_smi.so", "libamd_smi.so.26", "libamd_smi.so.25",
                                            "libamd_smi.so.24", "/opt/rocm/lib/libamd_smi.so"};
  bool enable_processes = true;
};

std::unique_ptr<Collector> NewAmdSmiCollector(AmdSmiCollectorOptions options);

}  // namespace gpufleet
