// The AMD fallback chain: AMD SMI -> ROCm SMI -> amdgpu sysfs.
//
// OpenAmdCollector tries each source's Discover() in that order and returns
// the first collector that finds at least one GPU, already discovered (the
// caller may call Discover() again; each collector re-enumerates cleanly).
// Its source() ("amdsmi", "rocm_smi" or "amdgpu_sysfs") selects the matching
// mapping table. The choice is made once, at open time, rather than by a
// wrapper that could switch sources later: a switch would change the
// reading vocabulary and the `method` labels of live series mid-run.
//
// Why this order: AMD SMI is the library AMD supports and the only one that
// reports compute partitions, violation status and per-process memory; ROCm
// SMI is deprecated (absent from ROCm 10) but still the only library on many
// nodes; sysfs needs no ROCm at all but gives the fewest fields.
//
// `log` (optional) receives one line per source tried, saying why it was
// rejected or that it was chosen, e.g.
//   "amd: amdsmi rejected: NOT_FOUND: cannot load any of [libamd_smi.so, ...]"
//   "amd: using rocm_smi (2 devices)".
// The chosen collector is wrapped by WithKfdPageFaults (a no-op without
// /dev/kfd or CAP_SYS_ADMIN).
// Errors: NotFound when no source finds a GPU (message lists every reason);
// when some source failed for another reason (permission, driver mismatch)
// that status's code is returned instead, so it is not mistaken for "no AMD
// GPU here".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/amdgpu_sysfs_collector.h"
#include "collect/amdsmi_collector.h"
#include "collect/collector.h"
#include "collect/kfd_events.h"
#include "collect/rocm_smi_collector.h"
#include "core/status.h"

namespace gpufleet {

struct AmdCollectorOptions {
  AmdSmiCollectorOptions amdsmi;
  RocmSmiCollectorOptions rocm_smi;
  AmdgpuSysfsOptions sysfs;
  // When true, nothing is loaded unless the kernel shows an AMD GPU
  // (AmdKernelDevicePresent): AMD SMI and ROCm SMI print their own messages
  // ("Failed to open drm root directory", "Exception caught: rsmi_init") on
  // stderr when initialised on a machine without one, and a probe must stay
  // quiet there.
  bool require_kernel_device = false;
  std::string dev_root = "/dev";
  // Page faults from KFD SMI events (collect/kfd_events.h), added to
  // whichever source is chosen; its sysfs_root and dev_kfd default to the
  // ones above when empty.
  KfdEventsOptions kfd = {"", "", nullptr, nullptr};
};

// True when `dev_root`/kfd exists or a DRM card under `sysfs_root` has PCI
// vendor 0x1002; `why` (optional) says what was looked at when false.
bool AmdKernelDevicePresent(const std::string& sysfs_root, const std::string& dev_root,
                            std::string* why = nullptr);

StatusOr<std::unique_ptr<Collector>> OpenAmdCollector(const AmdCollectorOptions& options,
                                                      std::vector<std::string>* log = nullptr);

}  // namespace gpufleet
