#include "collect/levelzero_api.h"

#include <cstdio>

namespace gpufleet::levelzero {

StatusOr<std::unique_ptr<Api>> Api::Load(const std::vector<std::string>& names) {
  ASSIGN_OR_RETURN(std::unique_ptr<DynamicLibrary> lib, DynamicLibrary::Open(names));
  auto api = std::make_unique<Api>();
  const DynamicLibrary& l = *lib;
  l.Bind("zesInit", api->zesInit);
  l.Bind("zesDriverGet", api->zesDriverGet);
  l.Bind("zesDeviceGet", api->zesDeviceGet);
  l.Bind("zeInit", api->zeInit);
  l.Bind("zeDriverGet", api->zeDriverGet);
  l.Bind("zeDeviceGet", api->zeDeviceGet);
  l.Bind("zeDriverGetApiVersion", api->zeDriverGetApiVersion);
  l.Bind("zesDeviceGetProperties", api->zesDeviceGetProperties);
  l.Bind("zesDevicePciGetProperties", api->zesDevicePciGetProperties);
  l.Bind("zesDevicePciGetStats", api->zesDevicePciGetStats);
  l.Bind("zesDeviceEnumEngineGroups", api->zesDeviceEnumEngineGroups);
  l.Bind("zesEngineGetProperties", api->zesEngineGetProperties);
  l.Bind("zesEngineGetActivity", api->zesEngineGetActivity);
  l.Bind("zesDeviceEnumPowerDomains", api->zesDeviceEnumPowerDomains);
  l.Bind("zesPowerGetProperties", api->zesPowerGetProperties);
  l.Bind("zesPowerGetEnergyCounter", api->zesPowerGetEnergyCounter);
  l.Bind("zesPowerGetLimits", api->zesPowerGetLimits);
  l.Bind("zesDeviceEnumMemoryModules", api->zesDeviceEnumMemoryModules);
  l.Bind("zesMemoryGetProperties", api->zesMemoryGetProperties);
  l.Bind("zesMemoryGetState", api->zesMemoryGetState);
  l.Bind("zesMemoryGetBandwidth", api->zesMemoryGetBandwidth);
  l.Bind("zesDeviceEnumTemperatureSensors", api->zesDeviceEnumTemperatureSensors);
  l.Bind("zesTemperatureGetProperties", api->zesTemperatureGetProperties);
  l.Bind("zesTemperatureGetState", api->zesTemperatureGetState);
  l.Bind("zesDeviceEnumFrequencyDomains", api->zesDeviceEnumFrequencyDomains);
  l.Bind("zesFrequencyGetProperties", api->zesFrequencyGetProperties);
  l.Bind("zesFrequencyGetState", api->zesFrequencyGetState);
  l.Bind("zesDeviceEnumRasErrorSets", api->zesDeviceEnumRasErrorSets);
  l.Bind("zesRasGetProperties", api->zesRasGetProperties);
  l.Bind("zesRasGetState", api->zesRasGetState);
  l.Bind("zesDeviceEnumFabricPorts", api->zesDeviceEnumFabricPorts);
  l.Bind("zesFabricPortGetProperties", api->zesFabricPortGetProperties);
  l.Bind("zesFabricPortGetThroughput", api->zesFabricPortGetThroughput);

  // Sysman 1.5+ path or the older zeInit path; a half of each is useless.
  bool zes_path = api->zesInit && api->zesDriverGet && api->zesDeviceGet;
  bool ze_path = api->zeInit && api->zeDriverGet && api->zeDeviceGet;
  if (!zes_path && !ze_path) {
    return NotFoundError(l.path() +
                         ": exports neither zesInit/zesDriverGet/zesDeviceGet nor "
                         "zeInit/zeDriverGet/zeDeviceGet; not a Level Zero loader");
  }
  if (!zes_path) {
    api->zesInit = nullptr;
    api->zesDriverGet = nullptr;
    api->zesDeviceGet = nullptr;
  }
  if (api->zesDeviceGetProperties == nullptr) {
    return NotFoundError(l.path() + ": zesDeviceGetProperties missing; loader without Sysman");
  }
  api->library = std::move(lib);
  return api;
}

std::string ResultName(ze_result_t result) {
  switch (result) {
    case ZE_RESULT_SUCCESS:
      return "ZE_RESULT_SUCCESS";
    case ZE_RESULT_ERROR_DEVICE_LOST:
      return "ZE_RESULT_ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
      return "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS";
    case ZE_RESULT_ERROR_NOT_AVAILABLE:
      return "ZE_RESULT_ERROR_NOT_AVAILABLE";
    case ZE_RESULT_ERROR_UNINITIALIZED:
      return "ZE_RESULT_ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
      return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
      return "ZE_RESULT_ERROR_UNSUPPORTED_VERSION";
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE:
      return "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE";
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
      return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    case ZE_RESULT_ERROR_UNKNOWN:
      return "ZE_RESULT_ERROR_UNKNOWN";
    default:
      break;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "ze_result 0x%x", static_cast<unsigned>(result));
  return buf;
}

}  // namespace gpufleet::levelzero
