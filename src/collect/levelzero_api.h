// LevelZeroApi: the Level Zero Sysman entry points gpufleet calls, bound at
// run time from libze_loader with DynamicLibrary (never linked). Private to
// the levelzero collector: vendor types stay out of public headers.
//
// Signatures come from the Debian header (level_zero/zes_api.h, API 1.4).
// zesInit / zesDriverGet / zesDeviceGet appeared in API 1.5 and are declared
// here with the published 1.5 signatures; loaders older than 1.5 lack them and
// the collector falls back to zeInit with ZES_ENABLE_SYSMAN=1.
//
// Thread safety: immutable after Load(); the Level Zero functions themselves
// may be called from several threads (the spec says so for every Sysman call).
#pragma once

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet::levelzero {

// Level Zero 1.5+ entry points absent from the 1.4 header.
using ZesInitFn = ze_result_t(uint32_t flags);
using ZesDriverGetFn = ze_result_t(uint32_t* count, zes_driver_handle_t* drivers);
using ZesDeviceGetFn = ze_result_t(zes_driver_handle_t driver, uint32_t* count,
                                   zes_device_handle_t* devices);

struct Api {
  std::unique_ptr<DynamicLibrary> library;

  // Initialization and enumeration. Either the zes* trio or the ze* trio is
  // present (Load() fails otherwise).
  ZesInitFn* zesInit = nullptr;
  ZesDriverGetFn* zesDriverGet = nullptr;
  ZesDeviceGetFn* zesDeviceGet = nullptr;
  decltype(&::zeInit) zeInit = nullptr;
  decltype(&::zeDriverGet) zeDriverGet = nullptr;
  decltype(&::zeDeviceGet) zeDeviceGet = nullptr;
  decltype(&::zeDriverGetApiVersion) zeDriverGetApiVersion = nullptr;

  // Required: identity.
  decltype(&::zesDeviceGetProperties) zesDeviceGetProperties = nullptr;

  // Optional: each absent one makes its readings "symbol_missing".
  decltype(&::zesDevicePciGetProperties) zesDevicePciGetProperties = nullptr;
  decltype(&::zesDevicePciGetStats) zesDevicePciGetStats = nullptr;
  decltype(&::zesDeviceEnumEngineGroups) zesDeviceEnumEngineGroups = nullptr;
  decltype(&::zesEngineGetProperties) zesEngineGetProperties = nullptr;
  decltype(&::zesEngineGetActivity) zesEngineGetActivity = nullptr;
  decltype(&::zesDeviceEnumPowerDomains) zesDeviceEnumPowerDomains = nullptr;
  decltype(&::zesPowerGetProperties) zesPowerGetProperties = nullptr;
  decltype(&::zesPowerGetEnergyCounter) zesPowerGetEnergyCounter = nullptr;
  decltype(&::zesPowerGetLimits) zesPowerGetLimits = nullptr;
  decltype(&::zesDeviceEnumMemoryModules) zesDeviceEnumMemoryModules = nullptr;
  decltype(&::zesMemoryGetProperties) zesMemoryGetProperties = nullptr;
  decltype(&::zesMemoryGetState) zesMemoryGetState = nullptr;
  decltype(&::zesMemoryGetBandwidth) zesMemoryGetBandwidth = nullptr;
  decltype(&::zesDeviceEnumTemperatureSensors) zesDeviceEnumTemperatureSensors = nullptr;
  decltype(&::zesTemperatureGetProperties) zesTemperatureGetProperties = nullptr;
  decltype(&::zesTemperatureGetState) zesTemperatureGetState = nullptr;
  decltype(&::zesDeviceEnumFrequencyDomains) zesDeviceEnumFrequencyDomains = nullptr;
  decltype(&::zesFrequencyGetProperties) zesFrequencyGetProperties = nullptr;
  decltype(&::zesFrequencyGetState) zesFrequencyGetState = nullptr;
  decltype(&::zesDeviceEnumRasErrorSets) zesDeviceEnumRasErrorSets = nullptr;
  decltype(&::zesRasGetProperties) zesRasGetProperties = nullptr;
  decltype(&::zesRasGetState) zesRasGetState = nullptr;
  decltype(&::zesDeviceEnumFabricPorts) zesDeviceEnumFabricPorts = nullptr;
  decltype(&::zesFabricPortGetProperties) zesFabricPortGetProperties = nullptr;
  decltype(&::zesFabricPortGetThroughput) zesFabricPortGetThroughput = nullptr;

  // Opens the first loadable library of `names` and binds every entry point.
  // NotFound when no library loads, or when it exports neither zesInit nor
  // zeInit, or lacks the enumeration / zesDeviceGetProperties entry points.
  static StatusOr<std::unique_ptr<Api>> Load(const std::vector<std::string>& names);
};

// "ZE_RESULT_ERROR_DEVICE_LOST" for the codes gpufleet distinguishes, else
// "ze_result 0x78000004".
std::string ResultName(ze_result_t result);

}  // namespace gpufleet::levelzero
