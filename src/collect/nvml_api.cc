#include "collect/nvml_api.h"

#include <initializer_list>

namespace gpufleet {

namespace {

// Binds the first of `names` the library exports (newest version first).
template <typename FnPtr>
bool BindFirst(const DynamicLibrary& lib, FnPtr& fn, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* sym = lib.Symbol(name)) {
      fn = reinterpret_cast<FnPtr>(sym);
      return true;
    }
  }
  fn = nullptr;
  return false;
}

}  // namespace

StatusOr<std::unique_ptr<NvmlApi>> NvmlApi::Load(const std::vector<std::string>& library_names) {
  ASSIGN_OR_RETURN(std::unique_ptr<DynamicLibrary> lib, DynamicLibrary::Open(library_names));
  auto api = std::unique_ptr<NvmlApi>(new NvmlApi());
  const DynamicLibrary& l = *lib;

  auto required = [&](auto& fn, std::initializer_list<const char*> names) -> Status {
    if (BindFirst(l, fn, names)) return OkStatus();
    return NotFoundError(l.path() + ": required NVML symbol " + std::string(*names.begin()) +
                         " is missing");
  };
  RETURN_IF_ERROR(required(api->Init, {"nvmlInit_v2", "nvmlInit"}));
  RETURN_IF_ERROR(required(api->Shutdown, {"nvmlShutdown"}));
  RETURN_IF_ERROR(required(api->DeviceGetCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}));
  RETURN_IF_ERROR(required(api->DeviceGetHandleByIndex,
                           {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}));
  RETURN_IF_ERROR(required(api->DeviceGetName, {"nvmlDeviceGetName"}));
  RETURN_IF_ERROR(required(api->DeviceGetUUID, {"nvmlDeviceGetUUID"}));

  int missing = 0;
  auto optional = [&](auto& fn, std::initializer_list<const char*> names) {
    if (!BindFirst(l, fn, names)) ++missing;
  };
  optional(api->ErrorString, {"nvmlErrorString"});
  optional(api->SystemGetDriverVersion, {"nvmlSystemGetDriverVersion"});
  optional(api->SystemGetCudaDriverVersion,
           {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  optional(api->DeviceGetPciInfo, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  // v1 and v2 fill different structs, so both are kept and v2 is preferred.
  optional(api->DeviceGetMemoryInfoV2, {"nvmlDeviceGetMemoryInfo_v2"});
  optional(api->DeviceGetMemoryInfo, {"nvmlDeviceGetMemoryInfo"});
  optional(api->DeviceGetCudaComputeCapability, {"nvmlDeviceGetCudaComputeCapability"});
  optional(api->DeviceGetUtilizationRates, {"nvmlDeviceGetUtilizationRates"});
  optional(api->DeviceGetPowerUsage, {"nvmlDeviceGetPowerUsage"});
  optional(api->DeviceGetEnforcedPowerLimit, {"nvmlDeviceGetEnforcedPowerLimit"});
  optional(api->DeviceGetTotalEnergyConsumption, {"nvmlDeviceGetTotalEnergyConsumption"});
  optional(api->DeviceGetTemperature, {"nvmlDeviceGetTemperature"});
  optional(api->DeviceGetClockInfo, {"nvmlDeviceGetClockInfo"});
  optional(api->DeviceGetPcieThroughput, {"nvmlDeviceGetPcieThroughput"});
  optional(api->DeviceGetPcieReplayCounter, {"nvmlDeviceGetPcieReplayCounter"});
  optional(api->DeviceGetTotalEccErrors, {"nvmlDeviceGetTotalEccErrors"});
  optional(api->DeviceGetRemappedRows, {"nvmlDeviceGetRemappedRows"});
  // Renamed in CUDA 12.2; same bitmask.
  optional(api->DeviceGetCurrentClocksEventReasons,
           {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  optional(api->DeviceGetEncoderUtilization, {"nvmlDeviceGetEncoderUtilization"});
  optional(api->DeviceGetDecoderUtilization, {"nvmlDeviceGetDecoderUtilization"});
  optional(api->DeviceGetFieldValues, {"nvmlDeviceGetFieldValues"});
  // _v3 and _v2 take the same nvmlProcessInfo_v2_t layout.
  optional(api->DeviceGetComputeRunningProcesses,
           {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  optional(api->DeviceGetProcessUtilization, {"nvmlDeviceGetProcessUtilization"});
  optional(api->EventSetCreate, {"nvmlEventSetCreate"});
  optional(api->DeviceRegisterEvents, {"nvmlDeviceRegisterEvents"});
  optional(api->EventSetWait, {"nvmlEventSetWait_v2", "nvmlEventSetWait"});
  optional(api->EventSetFree, {"nvmlEventSetFree"});
  optional(api->DeviceGetMigMode, {"nvmlDeviceGetMigMode"});
  optional(api->DeviceGetMaxMigDeviceCount, {"nvmlDeviceGetMaxMigDeviceCount"});
  optional(api->DeviceGetMigDeviceHandleByIndex, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  optional(api->DeviceGetGpuInstanceId, {"nvmlDeviceGetGpuInstanceId"});
  optional(api->DeviceGetAttributes, {"nvmlDeviceGetAttributes_v2", "nvmlDeviceGetAttributes"});
  optional(api->GpmQueryDeviceSupport, {"nvmlGpmQueryDeviceSupport"});
  optional(api->GpmSampleAlloc, {"nvmlGpmSampleAlloc"});
  optional(api->GpmSampleFree, {"nvmlGpmSampleFree"});
  optional(api->GpmSampleGet, {"nvmlGpmSampleGet"});
  optional(api->GpmMigSampleGet, {"nvmlGpmMigSampleGet"});
  optional(api->GpmMetricsGet, {"nvmlGpmMetricsGet"});
  api->missing_optional_ = missing;
  api->lib_ = std::move(lib);
  return api;
}

std::string NvmlApi::ErrorText(nvmlReturn_t rc) const {
  std::string text;
  if (ErrorString != nullptr) {
    const char* s = ErrorString(rc);
    if (s != nullptr) text = s;
  }
  if (text.empty()) text = "NVML error";
  return text + " (" + std::to_string(static_cast<int>(rc)) + ")";
}

}  // namespace gpufleet
