// amdgpu sysfs collector (source "amdgpu_sysfs"): AMD GPUs through the
// kernel driver's sysfs and hwmon files alone, for nodes without ROCm.
//
// Enumerates <sysfs_root>/class/drm/card<N>/device with vendor 0x1002 and
// reads (units as the kernel writes them; data/mappings/amdgpu_sysfs.toml
// converts):
//   gpu_busy_percent, mem_busy_percent                       %
//   vram_used_bytes, vram_total_bytes                        bytes
//   power_input_microwatts (power1_input) or
//   power_average_microwatts (power1_average)                uW (one of them)
//   power_cap_microwatts (power1_cap)                        uW
//   energy_microjoules (energy1_input, where present)        uJ
//   temperature_millicelsius{sensor=edge|junction|memory|tempN}  millidegrees C
//   clock_hz{domain=sm|memory|soc|data|...} (freqN_input)    Hz
//   pcie_replays_total (pcie_replay_count)                   count
//   ecc_{correctable,uncorrectable}_total{block=umc} (ras/umc_err_count)
//
// Identity: PCI_SLOT_NAME from the device's uevent (else the name the
// device symlink points at), uuid = unique_id, memory from
// mem_info_vram_total, model from product_name or a small PCI device-id
// table. No partitions, no processes (DRM fdinfo is a separate concern).
//
// Errors: no class/drm directory or no AMD card -> NotFound. A missing file
// is an unsupported field ("not_supported"); a card whose device directory
// vanished -> Unavailable("lost").
//
// Every path is read through sysfs_root, so tests point it at a checked-in
// tree (tests/data/sysfs/amd). Thread safety: as Collector (Collect only
// reads files).
#pragma once

#include <memory>
#include <string>

#include "collect/collector.h"

namespace gpufleet {

struct AmdgpuSysfsOptions {
  std::string sysfs_root = "/sys";
};

std::unique_ptr<Collector> NewAmdgpuSysfsCollector(AmdgpuSysfsOptions options);

}  // namespace gpufleet
