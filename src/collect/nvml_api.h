// NvmlApi: libnvidia-ml's functions as a table of pointers filled by dlsym
// through DynamicLibrary; NVML itself is never linked. The seam between the
// NVML collector and the driver: tests fill it from the fake library built
// in tests/fakes/nvml/.
//
// Versioned symbols are tried newest first with fallbacks (nvmlInit_v2 ->
// nvmlInit, nvmlDeviceGetPciInfo_v3 -> _v2, ...). A missing required symbol
// fails Load() with NotFound naming it; a missing optional symbol leaves its
// pointer null and the collector reports that field as "symbol_missing".
//
// Thread safety: immutable after Load(); the functions themselves are
// thread-safe per NVML's documentation.
// Private to collect/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collect/nvml_types.h"
#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet {

struct NvmlApi {
  using nvmlReturn_t = nvml::nvmlReturn_t;
  using nvmlDevice_t = nvml::nvmlDevice_t;

  // Loads the first library of `library_names` that opens and binds its
  // symbols. NotFound when no library loads or a required symbol is absent.
  static StatusOr<std::unique_ptr<NvmlApi>> Load(const std::vector<std::string>& library_names);

  // nvmlErrorString when present, else "NVML error <rc>".
  std::string ErrorText(nvmlReturn_t rc) const;
  // Number of optional symbols the library lacks (for diagnostics and tests).
  int missing_optional() const { return missing_optional_; }
  const std::string& path() const { return lib_->path(); }

  // --- Required.
  nvmlReturn_t (*Init)() = nullptr;
  nvmlReturn_t (*Shutdown)() = nullptr;
  nvmlReturn_t (*DeviceGetCount)(unsigned int* count) = nullptr;
  nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned int index, nvmlDevice_t* device) = nullptr;
  nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char* name, unsigned int length) = nullptr;
  nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char* uuid, unsigned int length) = nullptr;

  // --- Optional: null when the library lacks them.
  const char* (*ErrorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*SystemGetDriverVersion)(char* version, unsigned int length) = nullptr;
  nvmlReturn_t (*SystemGetCudaDriverVersion)(int* version) = nullptr;  // e.g. 12040
  nvmlReturn_t (*DeviceGetPciInfo)(nvmlDevice_t, nvml::nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*DeviceGetMemoryInfoV2)(nvmlDevice_t, nvml::nvmlMemory_v2_t*) = nullptr;
  nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvml::nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*DeviceGetCudaComputeCapability)(nvmlDevice_t, int* major, int* minor) = nullptr;

  nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvml::nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t, unsigned int* mw) = nullptr;
  nvmlReturn_t (*DeviceGetEnforcedPowerLimit)(nvmlDevice_t, unsigned int* mw) = nullptr;
  nvmlReturn_t (*DeviceGetTotalEnergyConsumption)(nvmlDevice_t, unsigned long long* mj) = nullptr;
  nvmlReturn_t (*DeviceGetTemperature)(nvmlDevice_t, nvml::nvmlTemperatureSensors_t,
                                       unsigned int* celsius) = nullptr;
  nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t, nvml::nvmlClockType_t,
                                     unsigned int* mhz) = nullptr;
  nvmlReturn_t (*DeviceGetPcieThroughput)(nvmlDevice_t, nvml::nvmlPcieUtilCounter_t,
                                          unsigned int* kib_per_s) = nullptr;
  nvmlReturn_t (*DeviceGetPcieReplayCounter)(nvmlDevice_t, unsigned int* count) = nullptr;
  nvmlReturn_t (*DeviceGetTotalEccErrors)(nvmlDevice_t, nvml::nvmlMemoryErrorType_t,
                                          nvml::nvmlEccCounterType_t,
                                          unsigned long long* count) = nullptr;
  nvmlReturn_t (*DeviceGetRemappedRows)(nvmlDevice_t, unsigned int* corrected,
                                        unsigned int* uncorrected, unsigned int* pending,
                                        unsigned int* failure) = nullptr;
  nvmlReturn_t (*DeviceGetCurrentClocksEventReasons)(nvmlDevice_t,
                                                     unsigned long long* mask) = nullptr;
  nvmlReturn_t (*DeviceGetEncoderUtilization)(nvmlDevice_t, unsigned int* pct,
                                              unsigned int* period_us) = nullptr;
  nvmlReturn_t (*DeviceGetDecoderUtilization)(nvmlDevice_t, unsigned int* pct,
                                              unsigned int* period_us) = nullptr;
  nvmlReturn_t (*DeviceGetFieldValues)(nvmlDevice_t, int count,
                                       nvml::nvmlFieldValue_t* values) = nullptr;
  nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t, unsigned int* count,
                                                   nvml::nvmlProcessInfo_t* infos) = nullptr;
  nvmlReturn_t (*DeviceGetProcessUtilization)(nvmlDevice_t,
                                              nvml::nvmlProcessUtilizationSample_t* samples,
                                              unsigned int* count,
                                              unsigned long long last_seen_us) = nullptr;

  nvmlReturn_t (*EventSetCreate)(nvml::nvmlEventSet_t* set) = nullptr;
  nvmlReturn_t (*DeviceRegisterEvents)(nvmlDevice_t, unsigned long long types,
                                       nvml::nvmlEventSet_t) = nullptr;
  nvmlReturn_t (*EventSetWait)(nvml::nvmlEventSet_t, nvml::nvmlEventData_t* data,
                               unsigned int timeout_ms) = nullptr;
  nvmlReturn_t (*EventSetFree)(nvml::nvmlEventSet_t) = nullptr;

  nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned int* current,
                                   unsigned int* pending) = nullptr;
  nvmlReturn_t (*DeviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned int* count) = nullptr;
  nvmlReturn_t (*DeviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned int index,
                                                  nvmlDevice_t* mig) = nullptr;
  nvmlReturn_t (*DeviceGetGpuInstanceId)(nvmlDevice_t, unsigned int* id) = nullptr;
  nvmlReturn_t (*DeviceGetAttributes)(nvmlDevice_t, nvml::nvmlDeviceAttributes_t*) = nullptr;

  nvmlReturn_t (*GpmQueryDeviceSupport)(nvmlDevice_t, nvml::nvmlGpmSupport_t*) = nullptr;
  nvmlReturn_t (*GpmSampleAlloc)(nvml::nvmlGpmSample_t* sample) = nullptr;
  nvmlReturn_t (*GpmSampleFree)(nvml::nvmlGpmSample_t sample) = nullptr;
  nvmlReturn_t (*GpmSampleGet)(nvmlDevice_t, nvml::nvmlGpmSample_t sample) = nullptr;
  nvmlReturn_t (*GpmMigSampleGet)(nvmlDevice_t, unsigned int gpu_instance_id,
                                  nvml::nvmlGpmSample_t sample) = nullptr;
  nvmlReturn_t (*GpmMetricsGet)(nvml::nvmlGpmMetricsGet_t* request) = nullptr;

 private:
  std::unique_ptr<DynamicLibrary> lib_;
  int missing_optional_ = 0;
};

}  // namespace gpufleet
