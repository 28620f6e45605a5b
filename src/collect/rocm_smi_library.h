// RocmSmiLibrary: librocm_smi64.so loaded with DynamicLibrary (never linked)
// and bound into a table of function pointers whose types come from the
// Debian header <rocm_smi/rocm_smi.h> (5.2.3), the library's real contract.
//
// Required symbols (init, shutdown, device count) missing -> NotFound naming
// the symbol; any other pointer may be nullptr ("symbol_missing").
//
// Thread safety: immutable after Load(). ROCm SMI serializes per device
// internally.
#pragma once

#include <rocm_smi/rocm_smi.h>

#include <memory>
#include <string>
#include <vector>

#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet {

struct RocmSmiLibrary {
  std::unique_ptr<DynamicLibrary> library;

  // Required.
  decltype(&rsmi_init) init = nullptr;
  decltype(&rsmi_shut_down) shut_down = nullptr;
  decltype(&rsmi_num_monitor_devices) num_monitor_devices = nullptr;

  // Optional (discovery).
  decltype(&rsmi_dev_name_get) dev_name_get = nullptr;
  decltype(&rsmi_dev_unique_id_get) dev_unique_id_get = nullptr;
  decltype(&rsmi_dev_pci_id_get) dev_pci_id_get = nullptr;
  decltype(&rsmi_version_str_get) version_str_get = nullptr;
  decltype(&rsmi_dev_memory_total_get) dev_memory_total_get = nullptr;

  // Optional (collection).
  decltype(&rsmi_dev_busy_percent_get) dev_busy_percent_get = nullptr;
  decltype(&rsmi_dev_memory_busy_percent_get) dev_memory_busy_percent_get = nullptr;
  decltype(&rsmi_dev_memory_usage_get) dev_memory_usage_get = nullptr;
  decltype(&rsmi_dev_power_ave_get) dev_power_ave_get = nullptr;
  decltype(&rsmi_dev_power_cap_get) dev_power_cap_get = nullptr;
  decltype(&rsmi_dev_energy_count_get) dev_energy_count_get = nullptr;
  decltype(&rsmi_dev_temp_metric_get) dev_temp_metric_get = nullptr;
  decltype(&rsmi_dev_gpu_clk_freq_get) dev_gpu_clk_freq_get = nullptr;
  decltype(&rsmi_dev_ecc_count_get) dev_ecc_count_get = nullptr;
  decltype(&rsmi_dev_pci_replay_counter_get) dev_pci_replay_counter_get = nullptr;
  decltype(&rsmi_dev_pci_throughput_get) dev_pci_throughput_get = nullptr;

  static StatusOr<std::unique_ptr<RocmSmiLibrary>> Load(const std::vector<std::string>& names);
};

// "RSMI_STATUS_NOT_SUPPORTED (2)".
std::string RocmSmiStatusName(rsmi_status_t status);

}  // namespace gpufleet
