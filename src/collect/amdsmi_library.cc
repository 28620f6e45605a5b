#include "collect/amdsmi_library.h"

namespace gpufleet {

using namespace amdsmi_abi;  // NOLINT(build/namespaces): ABI names are prefixed

StatusOr<std::unique_ptr<AmdSmiLibrary>> AmdSmiLibrary::Load(
    const std::vector<std::string>& names) {
  ASSIGN_OR_RETURN(std::unique_ptr<DynamicLibrary> dl, DynamicLibrary::Open(names));
  auto lib = std::make_unique<AmdSmiLibrary>();
  const DynamicLibrary& d = *dl;
  struct Required {
    const char* name;
    bool bound;
  };
  const Required required[] = {
      {"amdsmi_init", d.Bind("amdsmi_init", lib->init)},
      {"amdsmi_shut_down", d.Bind("amdsmi_shut_down", lib->shut_down)},
      {"amdsmi_get_socket_handles", d.Bind("amdsmi_get_socket_handles", lib->get_socket_handles)},
      {"amdsmi_get_processor_handles",
       d.Bind("amdsmi_get_processor_handles", lib->get_processor_handles)},
  };
  for (const Required& r : required) {
    if (!r.bound) {
      return NotFoundError(d.path() + ": required symbol " + r.name + " is missing");
    }
  }
  d.Bind("amdsmi_get_processor_type", lib->get_processor_type);
  d.Bind("amdsmi_get_gpu_device_bdf", lib->get_gpu_device_bdf);
  d.Bind("amdsmi_get_gpu_device_uuid", lib->get_gpu_device_uuid);
  d.Bind("amdsmi_get_gpu_asic_info", lib->get_gpu_asic_info);
  d.Bind("amdsmi_get_gpu_board_info", lib->get_gpu_board_info);
  d.Bind("amdsmi_get_gpu_driver_info", lib->get_gpu_driver_info);
  d.Bind("amdsmi_get_gpu_compute_partition", lib->get_gpu_compute_partition);
  d.Bind("amdsmi_get_gpu_kfd_info", lib->get_gpu_kfd_info);
  d.Bind("amdsmi_get_gpu_activity", lib->get_gpu_activity);
  d.Bind("amdsmi_get_power_info", lib->get_power_info);
  d.Bind("amdsmi_get_energy_count", lib->get_energy_count);
  d.Bind("amdsmi_get_gpu_memory_usage", lib->get_gpu_memory_usage);
  d.Bind("amdsmi_get_gpu_memory_total", lib->get_gpu_memory_total);
  d.Bind("amdsmi_get_temp_metric", lib->get_temp_metric);
  d.Bind("amdsmi_get_clock_info", lib->get_clock_info);
  d.Bind("amdsmi_get_gpu_total_ecc_count", lib->get_gpu_total_ecc_count);
  d.Bind("amdsmi_get_pcie_info", lib->get_pcie_info);
  d.Bind("amdsmi_get_link_metrics", lib->get_link_metrics);
  d.Bind("amdsmi_get_gpu_process_list", lib->get_gpu_process_list);
  d.Bind("amdsmi_get_violation_status", lib->get_violation_status);
  lib->library = std::move(dl);
  return lib;
}

std::string AmdSmiStatusName(amdsmi_status_t status) {
  const char* name = nullptr;
  switch (status) {
    case AMDSMI_STATUS_SUCCESS:
      name = "AMDSMI_STATUS_SUCCESS";
      break;
    case AMDSMI_STATUS_INVAL:
      name = "AMDSMI_STATUS_INVAL";
      break;
    case AMDSMI_STATUS_NOT_SUPPORTED:
      name = "AMDSMI_STATUS_NOT_SUPPORTED";
      break;
    case AMDSMI_STATUS_NOT_YET_IMPLEMENTED:
      name = "AMDSMI_STATUS_NOT_YET_IMPLEMENTED";
      break;
    case AMDSMI_STATUS_DRM_ERROR:
      name = "AMDSMI_STATUS_DRM_ERROR";
      break;
    case AMDSMI_STATUS_API_FAILED:
      name = "AMDSMI_STATUS_API_FAILED";
      break;
    case AMDSMI_STATUS_TIMEOUT:
      name = "AMDSMI_STATUS_TIMEOUT";
      break;
    case AMDSMI_STATUS_NO_PERM:
      name = "AMDSMI_STATUS_NO_PERM";
      break;
    case AMDSMI_STATUS_IO:
      name = "AMDSMI_STATUS_IO";
      break;
    case AMDSMI_STATUS_FILE_ERROR:
      name = "AMDSMI_STATUS_FILE_ERROR";
      break;
    case AMDSMI_STATUS_INIT_ERROR:
      name = "AMDSMI_STATUS_INIT_ERROR";
      break;
    case AMDSMI_STATUS_BUSY:
      name = "AMDSMI_STATUS_BUSY";
      break;
    case AMDSMI_STATUS_NOT_FOUND:
      name = "AMDSMI_STATUS_NOT_FOUND";
      break;
    case AMDSMI_STATUS_NOT_INIT:
      name = "AMDSMI_STATUS_NOT_INIT";
      break;
    case AMDSMI_STATUS_DRIVER_NOT_LOADED:
      name = "AMDSMI_STATUS_DRIVER_NOT_LOADED";
      break;
    case AMDSMI_STATUS_MORE_DATA:
      name = "AMDSMI_STATUS_MORE_DATA";
      break;
    case AMDSMI_STATUS_NO_DATA:
      name = "AMDSMI_STATUS_NO_DATA";
      break;
    default:
      break;
  }
  std::string code = std::to_string(static_cast<uint32_t>(status));
  return name == nullptr ? "amdsmi status " + code : std::string(name) + " (" + code + ")";
}

}  // namespace gpufleet
