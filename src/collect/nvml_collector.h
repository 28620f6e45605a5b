// The NVIDIA collector: reads NVML (libnvidia-ml, loaded at run time) for
// every GPU and every MIG GPU instance on the node.
//
// Readings are in NVML's own units (mW, mJ, MHz, %, KiB, ns); the table
// data/mappings/nvml.toml maps each reading name to a canonical metric.
// Discover() reports each GPU and, when MIG mode is on, each MIG GPU instance
// as its own device (partition kind "mig", id = GPU-instance id, profile
// such as "1g.10gb", uuid = the parent's UUID).
//
// Errors (see Collector): no library or a required symbol missing ->
// NotFound; NVML_ERROR_LIB_RM_VERSION_MISMATCH -> FailedPrecondition; a GPU
// that fell off the bus or needs a reset -> Unavailable("lost: ...") from
// Collect() for that device only; after the driver was unloaded/reloaded
// (UNINITIALIZED / DRIVER_NOT_LOADED) Collect() fails with
// FailedPrecondition and the next Discover() re-initializes NVML and
// re-fetches every handle. A field the device does not support or does not
// permit is skipped and counted as "not_supported"; a symbol the library
// lacks is counted as "symbol_missing".
//
// Thread safety: as Collector: Discover() alone; Collect() for different
// devices concurrently. A hung NVML call blocks only the Collect() that made
// it (the agent's worker deadline handles it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/collector.h"

namespace gpufleet {

struct NvmlCollectorOptions {
  // Tried in order; an absolute path loads exactly that file (tests).
  std::vector<std::string> library_names = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  // GPM (Hopper+): SM activity, occupancy, tensor and DRAM bandwidth from two
  // consecutive samples; the first collection after discovery yields none.
  bool enable_gpm = true;
  // Per-process memory and SM utilization.
  bool enable_processes = true;
};

std::unique_ptr<Collector> NewNvmlCollector(NvmlCollectorOptions options = {});

}  // namespace gpufleet
