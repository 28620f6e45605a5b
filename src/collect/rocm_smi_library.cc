#include "collect/rocm_smi_library.h"

namespace gpufleet {

StatusOr<std::unique_ptr<RocmSmiLibrary>> RocmSmiLibrary::Load(
    const std::vector<std::string>& names) {
  ASSIGN_OR_RETURN(std::unique_ptr<DynamicLibrary> dl, DynamicLibrary::Open(names));
  auto lib = std::make_unique<RocmSmiLibrary>();
  const DynamicLibrary& d = *dl;
  if (!d.Bind("rsmi_init", lib->init)) {
    return NotFoundError(d.path() + ": required symbol rsmi_init is missing");
  }
  if (!d.Bind("rsmi_shut_down", lib->shut_down)) {
    return NotFoundError(d.path() + ": required symbol rsmi_shut_down is missing");
  }
  if (!d.Bind("rsmi_num_monitor_devices", lib->num_monitor_devices)) {
    return NotFoundError(d.path() + ": required symbol rsmi_num_monitor_devices is missing");
  }
  d.Bind("rsmi_dev_name_get", lib->dev_name_get);
  d.Bind("rsmi_dev_unique_id_get", lib->dev_unique_id_get);
  d.Bind("rsmi_dev_pci_id_get", lib->dev_pci_id_get);
  d.Bind("rsmi_version_str_get", lib->version_str_get);
  d.Bind("rsmi_dev_memory_total_get", lib->dev_memory_total_get);
  d.Bind("rsmi_dev_busy_percent_get", lib->dev_busy_percent_get);
  d.Bind("rsmi_dev_memory_busy_percent_get", lib->dev_memory_busy_percent_get);
  d.Bind("rsmi_dev_memory_usage_get", lib->dev_memory_usage_get);
  d.Bind("rsmi_dev_power_ave_get", lib->dev_power_ave_get);
  d.Bind("rsmi_dev_power_cap_get", lib->dev_power_cap_get);
  d.Bind("rsmi_dev_energy_count_get", lib->dev_energy_count_get);
  d.Bind("rsmi_dev_temp_metric_get", lib->dev_temp_metric_get);
  d.Bind("rsmi_dev_gpu_clk_freq_get", lib->dev_gpu_clk_freq_get);
  d.Bind("rsmi_dev_ecc_count_get", lib->dev_ecc_count_get);
  d.Bind("rsmi_dev_pci_replay_counter_get", lib->dev_pci_replay_counter_get);
  d.Bind("rsmi_dev_pci_throughput_get", lib->dev_pci_throughput_get);
  lib->library = std::move(dl);
  return lib;
}

std::string RocmSmiStatusName(rsmi_status_t status) {
  const char* name = nullptr;
  switch (status) {
    case RSMI_STATUS_SUCCESS:
      name = "RSMI_STATUS_SUCCESS";
      break;
    case RSMI_STATUS_INVALID_ARGS:
      name = "RSMI_STATUS_INVALID_ARGS";
      break;
    case RSMI_STATUS_NOT_SUPPORTED:
      name = "RSMI_STATUS_NOT_SUPPORTED";
      break;
    case RSMI_STATUS_FILE_ERROR:
      name = "RSMI_STATUS_FILE_ERROR";
      break;
    case RSMI_STATUS_PERMISSION:
      name = "RSMI_STATUS_PERMISSION";
      break;
    case RSMI_STATUS_OUT_OF_RESOURCES:
      name = "RSMI_STATUS_OUT_OF_RESOURCES";
      break;
    case RSMI_STATUS_INTERNAL_EXCEPTION:
      name = "RSMI_STATUS_INTERNAL_EXCEPTION";
      break;
    case RSMI_STATUS_INPUT_OUT_OF_BOUNDS:
      name = "RSMI_STATUS_INPUT_OUT_OF_BOUNDS";
      break;
    case RSMI_STATUS_INIT_ERROR:
      name = "RSMI_STATUS_INIT_ERROR";
      break;
    case RSMI_STATUS_NOT_YET_IMPLEMENTED:
      name = "RSMI_STATUS_NOT_YET_IMPLEMENTED";
      break;
    case RSMI_STATUS_NOT_FOUND:
      name = "RSMI_STATUS_NOT_FOUND";
      break;
    case RSMI_STATUS_INSUFFICIENT_SIZE:
      name = "RSMI_STATUS_INSUFFICIENT_SIZE";
      break;
    case RSMI_STATUS_INTERRUPT:
      name = "RSMI_STATUS_INTERRUPT";
      break;
    case RSMI_STATUS_UNEXPECTED_SIZE:
      name = "RSMI_STATUS_UNEXPECTED_SIZE";
      break;
    case RSMI_STATUS_NO_DATA:
      name = "RSMI_STATUS_NO_DATA";
      break;
    case RSMI_STATUS_UNEXPECTED_DATA:
      name = "RSMI_STATUS_UNEXPECTED_DATA";
      break;
    case RSMI_STATUS_BUSY:
      name = "RSMI_STATUS_BUSY";
      break;
    default:
      break;
  }
  std::string code = std::to_string(static_cast<uint32_t>(status));
  return name == nullptr ? "rsmi status " + code : std::string(name) + " (" + code + ")";
}

}  // namespace gpufleet
