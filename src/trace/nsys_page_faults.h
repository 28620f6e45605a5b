// GPU page faults from an Nsight Systems SQLite export: the NVIDIA source of
// `gpu_page_faults_per_second`. No always-on NVIDIA interface counts them
// (NVML and DCGM have no page-fault field); CUPTI's Unified Memory counters
// do, and `nsys profile --cuda-um-gpu-page-faults=true --export=sqlite`
// writes them to the table CUDA_UM_GPU_PAGE_FAULT_EVENTS, one row per group
// of faults on one page (`numberOfPageFaults` of them) on the GPU
// `deviceId`. Faults happen on NVIDIA only where memory is migrated on
// demand (CUDA managed memory, HMM), so a job without it has none.
//
// The rate is the faults over the export's session length
// (ANALYSIS_DETAILS.duration, ns). A device is named by its TARGET_INFO_GPU
// row (TARGET_INFO_CUDA_DEVICE in older exports), whose `id` is the events'
// `deviceId`, and that row's `uuid`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::trace {

struct NsysDeviceFaults {
  int64_t device_id = 0;
  std::string uuid;  // TARGET_INFO_GPU.uuid as written ("" when not listed)
  int64_t faults = 0;
};

struct NsysPageFaults {
  std::string path;
  double duration_s = 0;  // the session's length
  // Whether the table tells "no faults" from "not traced". Exports of
  // schema 3 and later (META_DATA_EXPORT) hold a table only when its data
  // was captured; 2.x exports (EXPORT_META_DATA) create every table, so an
  // empty one there may only mean tracing was off. A table with rows was
  // traced in either.
  bool traced = false;
  // In deviceId order: every GPU the export lists and every deviceId with faults.
  std::vector<NsysDeviceFaults> devices;
  int64_t rows = 0;
  int64_t bad_rows = 0;   // NULL or negative counts, skipped
  std::string first_bad;  // "file: table row N: why"

  // Faults per second on the GPU whose UUID is `gpu_uuid` (compared without
  // a "GPU-" prefix, ignoring case); with an empty `gpu_uuid`, on the
  // export's only GPU. nullopt when not traced or the GPU is not in the
  // export.
  std::optional<double> FaultsPerSecond(std::string_view gpu_uuid) const;
};

// Reads one export. Errors: the file is not SQLite or not an Nsight Systems
// export (InvalidArgument, naming the file); NotFound when the export has
// no CUDA_UM_GPU_PAGE_FAULT_EVENTS table (GPU page faults were not traced);
// InvalidArgument naming the table and column when a needed column or the
// session length is missing.
StatusOr<NsysPageFaults> ReadNsysPageFaults(const std::string& path);

}  // namespace gpufleet::trace
