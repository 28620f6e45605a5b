// ROCm SMI collector (source "rocm_smi"): the legacy AMD library
// (librocm_smi64.so), used when AMD SMI is absent. AMD plans to deprecate it
// and ROCm 10 no longer ships it, but many installed nodes still have only
// this one.
//
// Readings (the library's units; data/mappings/rocm_smi.toml converts):
//   busy_percent, memory_busy_percent                    %
//   memory_used_bytes, memory_total_bytes                bytes
//   power_average_microwatts, power_cap_microwatts       uW
//   energy_microjoules                                   uJ (counter x resolution)
//   temperature_millicelsius{sensor=edge|junction|memory} millidegrees C
//   clock_hz{domain=sm|memory|soc|data}                  Hz
//   ecc_{correctable,uncorrectable}_total{block=umc|gfx|sdma}  count
//   pcie_replays_total                                   count
//   pcie_{sent,received}_bytes_per_second                B/s (enable_pcie_throughput)
//
// No partitions: the 5.2.3 API has no compute-partition query, so every
// device is a whole GPU. No per-device process list either (ROCm SMI lists
// processes node-wide).
//
// Errors: library or required symbol missing, init failure, or no device ->
// NotFound from Discover. In Collect, the first call (busy percent) failing
// with FILE_ERROR / NOT_FOUND / INVALID_ARGS means the device is gone ->
// Unavailable("lost"); later fields failing that way are counted, because
// ROCm SMI also answers FILE_ERROR for sysfs files an older kernel lacks.
// INIT_ERROR -> Unavailable and re-init on the next Discover.
//
// Thread safety: as Collector.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/collector.h"

namespace gpufleet {

struct RocmSmiCollectorOptions {
  std::vector<std::string> library_names = {"librocm_smi64.so.1", "librocm_smi64.so",
                                            "librocm_smi64.so.7", "librocm_smi64.so.6",
                                            "librocm_smi64.so.5", "/opt/rocm/lib/librocm_smi64.so"};
  // rsmi_dev_pci_throughput_get samples for one second inside the call, so it
  // is off by default: it would stretch every collection by 1 s per device.
  bool enable_pcie_throughput = false;
};

std::unique_ptr<Collector> NewRocmSmiCollector(RocmSmiCollectorOptions options);

}  // namespace gpufleet
