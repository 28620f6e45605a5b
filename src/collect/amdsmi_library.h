// AmdSmiLibrary: libamd_smi.so loaded with DynamicLibrary and bound into a
// table of function pointers (never linked, so one binary runs everywhere).
//
// Required symbols (init, shutdown, socket and processor enumeration) missing
// -> Load() fails with NotFound naming the symbol. Every other pointer may be
// nullptr: the collector then counts "symbol_missing" for that field.
//
// Thread safety: immutable after Load(); the vendor functions themselves are
// documented as thread-safe for different processor handles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/amdsmi_api.h"
#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet {

struct AmdSmiLibrary {
  std::unique_ptr<DynamicLibrary> library;

  // Required.
  amdsmi_abi::amdsmi_init_fn* init = nullptr;
  amdsmi_abi::amdsmi_shut_down_fn* shut_down = nullptr;
  amdsmi_abi::amdsmi_get_socket_handles_fn* get_socket_handles = nullptr;
  amdsmi_abi::amdsmi_get_processor_handles_fn* get_processor_handles = nullptr;

  // Optional (discovery).
  amdsmi_abi::amdsmi_get_processor_type_fn* get_processor_type = nullptr;
  amdsmi_abi::amdsmi_get_gpu_device_bdf_fn* get_gpu_device_bdf = nullptr;
  amdsmi_abi::amdsmi_get_gpu_device_uuid_fn* get_gpu_device_uuid = nullptr;
  amdsmi_abi::amdsmi_get_gpu_asic_info_fn* get_gpu_asic_info = nullptr;
  amdsmi_abi::amdsmi_get_gpu_board_info_fn* get_gpu_board_info = nullptr;
  amdsmi_abi::amdsmi_get_gpu_driver_info_fn* get_gpu_driver_info = nullptr;
  amdsmi_abi::amdsmi_get_gpu_compute_partition_fn* get_gpu_compute_partition = nullptr;
  amdsmi_abi::amdsmi_get_gpu_kfd_info_fn* get_gpu_kfd_info = nullptr;

  // Optional (collection).
  amdsmi_abi::amdsmi_get_gpu_activity_fn* get_gpu_activity = nullptr;
  amdsmi_abi::amdsmi_get_power_info_fn* get_power_info = nullptr;
  amdsmi_abi::amdsmi_get_energy_count_fn* get_energy_count = nullptr;
  amdsmi_abi::amdsmi_get_gpu_memory_usage_fn* get_gpu_memory_usage = nullptr;
  amdsmi_abi::amdsmi_get_gpu_memory_total_fn* get_gpu_memory_total = nullptr;
  amdsmi_abi::amdsmi_get_temp_metric_fn* get_temp_metric = nullptr;
  amdsmi_abi::amdsmi_get_clock_info_fn* get_clock_info = nullptr;
  amdsmi_abi::amdsmi_get_gpu_total_ecc_count_fn* get_gpu_total_ecc_count = nullptr;
  amdsmi_abi::amdsmi_get_pcie_info_fn* get_pcie_info = nullptr;
  amdsmi_abi::amdsmi_get_link_metrics_fn* get_link_metrics = nullptr;
  amdsmi_abi::amdsmi_get_gpu_process_list_fn* get_gpu_process_list = nullptr;
  amdsmi_abi::amdsmi_get_violation_status_fn* get_violation_status = nullptr;

  // Tries `names` in order. NotFound when none loads or a required symbol is
  // absent.
  static StatusOr<std::unique_ptr<AmdSmiLibrary>> Load(const std::vector<std::string>& names);
};

// "AMDSMI_STATUS_NOT_SUPPORTED (2)"; unknown codes print as the number.
std::string AmdSmiStatusName(amdsmi_abi::amdsmi_status_t status);

}  // namespace gpufleet
