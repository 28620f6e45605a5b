// Fake libnvidia-ml, part 1 (system and device basics; part 2 is
// fake_nvml_mig_gpm.cc): exports the NVML C symbols the collector binds, with the
// ABI declared in src/collect/nvml_types.h, answering from the scripted
// state in fake_nvml_state.cc (see fake_nvml_control.h for the defaults and
// the scripting interface).
//
// Built three times (tests/fakes/nvml via src/collect/nvml.cmake):
//   libnvidia-ml.so.1          everything
//   partial/libnvidia-ml.so.1  FAKE_NVML_PARTIAL: no GPM, no field values, no
//                              _v2 memory info, no _v3 PCI info, only the old
//                              ...ThrottleReasons name (exercises fallbacks)
//   broken/libnvidia-ml.so.1   FAKE_NVML_NO_UUID: lacks a required symbol
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <vector>

#include "fake_nvml_model.h"

using namespace fake_nvml;  // NOLINT: a fake of this very ABI

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  fake_nvml::MaybeReloadConfig(s);
  if (s.init_result != 0) return static_cast<nvmlReturn_t>(s.init_result);
  ++s.init_refs;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }

nvmlReturn_t nvmlShutdown(void) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.init_refs == 0) return NVML_ERROR_UNINITIALIZED;
  --s.init_refs;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT:
      return "Timeout";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED:
      return "GPU requires reset";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "RM has detected an NVML/RM version mismatch.";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  FAKE_ENTER_SYSTEM();
  CopyString("550.54.15", version, length);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  FAKE_ENTER_SYSTEM();
  *version = 12040;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  return nvmlSystemGetCudaDriverVersion_v2(version);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  FAKE_ENTER_SYSTEM();
  *count = static_cast<unsigned>(s.device_count);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  {
    FAKE_ENTER_SYSTEM();
    if (index >= static_cast<unsigned>(s.device_count)) return NVML_ERROR_INVALID_ARGUMENT;
  }
  nvmlDevice_t d = fake_nvml::GpuHandle(static_cast<int>(index));
  FAKE_ENTER(d);
  *device = d;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int length) {
  FAKE_ENTER(d);
  char buf[96];
  if (d->mig_slot >= 0) {
    std::snprintf(buf, sizeof(buf), "NVIDIA H100 80GB HBM3 MIG %s", kMigProfiles[d->mig_slot].name);
  } else {
    std::snprintf(buf, sizeof(buf), "NVIDIA H100 80GB HBM3");
  }
  CopyString(buf, name, length);
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_NO_UUID
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) {
  FAKE_ENTER(d);
  char buf[96];
  if (d->mig_slot >= 0) {
    std::snprintf(buf, sizeof(buf), "MIG-3f0b7c1e-92d4-5a6e-b1c8-%010x%02x", 0x5eed0 + idx,
                  d->mig_slot);
  } else {
    std::snprintf(buf, sizeof(buf), "GPU-5d3c1a2e-7b4f-4e8a-9c61-0a1b2c3d4e%02x", idx);
  }
  CopyString(buf, uuid, length);
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  FAKE_ENTER(d);
  *pci = {};
  pci->domain = 0;
  pci->bus = kBuses[idx];
  pci->pciDeviceId = 0x233010DE;  // H100 SXM5
  pci->pciSubSystemId = 0x16C110DE;
  std::snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", kBuses[idx]);
  std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:00.0", kBuses[idx]);
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_PARTIAL
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  return nvmlDeviceGetPciInfo_v2(d, pci);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t* m) {
  FAKE_ENTER(d);
  if (m->version != kNvmlMemoryV2Version) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = TotalBytes(d->mig_slot);
  m->reserved = d->mig_slot >= 0 ? 0 : kReservedBytes;
  m->used = UsedBytes(s, idx, d->mig_slot);
  m->free = m->total - m->reserved - m->used;
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  FAKE_ENTER(d);
  unsigned long long reserved = d->mig_slot >= 0 ? 0 : kReservedBytes;
  m->total = TotalBytes(d->mig_slot);
  m->used = UsedBytes(s, idx, d->mig_slot) + reserved;  // v1 counts reserved as used
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  FAKE_ENTER(d);
  *major = 9;
  *minor = 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  FAKE_ENTER(d);
  // As documented for real GPUs: not available in MIG mode.
  if (InMig(s, idx) || d->mig_slot >= 0) return NVML_ERROR_NOT_SUPPORTED;
  u->gpu = UtilGpu(s, idx);
  u->memory = u->gpu * 6 / 10;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) {
  FAKE_ENTER(d);
  *mw = static_cast<unsigned>(PowerMw(s, idx));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int* mw) {
  FAKE_ENTER(d);
  *mw = 700000;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long* mj) {
  FAKE_ENTER(d);
  // ~350 W average since "driver load"; the tick keeps it strictly increasing.
  *mj = 3600000000ULL + static_cast<unsigned long long>(350.0 * Seconds(s) * 1000.0) +
        s.dev[idx].tick;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, nvmlTemperatureSensors_t sensor,
                                      unsigned int* celsius) {
  FAKE_ENTER(d);
  if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *celsius = static_cast<unsigned>(Value(s, idx, "temperature_c", 38 + UtilGpu(s, idx) * 3 / 10));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t type, unsigned int* mhz) {
  FAKE_ENTER(d);
  auto sm = static_cast<unsigned>(1755 + 225 * Wave(s, idx, 15));
  switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM:
      *mhz = sm;
      break;
    case NVML_CLOCK_MEM:
      *mhz = 2619;
      break;
    case NVML_CLOCK_VIDEO:
      *mhz = 1545;
      break;
    default:
      return NVML_ERROR_INVALID_ARGUMENT;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, nvmlPcieUtilCounter_t counter,
                                         unsigned int* kib_per_s) {
  FAKE_ENTER(d);
  *kib_per_s = static_cast<unsigned>((counter == NVML_PCIE_UTIL_TX_BYTES ? 250000 : 1200000) *
                                     (0.5 + Wave(s, idx, 10)));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int* count) {
  FAKE_ENTER(d);
  *count = 3;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, nvmlMemoryErrorType_t type,
                                         nvmlEccCounterType_t counter, unsigned long long* n) {
  FAKE_ENTER(d);
  bool corrected = type == NVML_MEMORY_ERROR_TYPE_CORRECTED;
  *n = corrected ? (counter == NVML_VOLATILE_ECC ? 2 : 17) : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int* corrected,
                                       unsigned int* uncorrected, unsigned int* pending,
                                       unsigned int* failure) {
  FAKE_ENTER(d);
  *corrected = 1;
  *uncorrected = 0;
  *pending = 0;
  *failure = 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long* mask) {
  FAKE_ENTER(d);
  double fallback =
      static_cast<double>(kNvmlClocksEventSwPowerCap | (idx == 1 ? kNvmlClocksEventSwThermal : 0));
  *mask = static_cast<unsigned long long>(Value(s, idx, "clock_event_reasons", fallback));
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_PARTIAL
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long* mask) {
  return nvmlDeviceGetCurrentClocksThrottleReasons(d, mask);
}
#endif

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t d, unsigned int* pct,
                                             unsigned int* period_us) {
  FAKE_ENTER(d);
  *pct = 0;
  *period_us = 167000;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t d, unsigned int* pct,
                                             unsigned int* period_us) {
  FAKE_ENTER(d);
  *pct = 7;
  *period_us = 167000;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_PARTIAL
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count, nvmlFieldValue_t* values) {
  FAKE_ENTER(d);
  double t = Seconds(s);
  unsigned long long tick = s.dev[idx].tick;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& f = values[i];
    f.timestamp = static_cast<long long>(t * 1e6);
    f.latencyUsec = 0;
    f.nvmlReturn = NVML_SUCCESS;
    f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    char key[32];
    std::snprintf(key, sizeof(key), "field:%u", f.fieldId);
    if (s.dev[idx].not_supported.count(key) != 0) {
      f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      continue;
    }
    auto counter = [&](double base, double per_s) {
      return static_cast<unsigned long long>(base + per_s * t) + tick;
    };
    switch (f.fieldId) {
      case kFiMemoryTemp:
        f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f.value.uiVal = static_cast<unsigned>(
            Value(s, idx, "memory_temperature_c", 44 + UtilGpu(s, idx) * 3 / 10));
        break;
      case kFiNvlinkLinkCount:
        f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f.value.uiVal = kNvlinkLinks;
        break;
      case kFiPcieCountTxBytes:
        f.value.ullVal = counter(1e12, 2.5e8);
        break;
      case kFiPcieCountRxBytes:
        f.value.ullVal = counter(3e12, 1.2e9);
        break;
      case kFiPerfPolicyPower:
        f.value.ullVal = counter(1.2e11, 1e8);
        break;  // 10% of time
      case kFiPerfPolicyThermal:
        f.value.ullVal = counter(4e9, 1e7);
        break;
      case kFiPerfPolicySyncBoost:
      case kFiPerfPolicyBoardLimit:
      case kFiPerfPolicyReliability:
        f.value.ullVal = 0;
        break;
      case kFiPerfPolicyLowUtil:
        f.value.ullVal = 5000000000ULL;
        break;
      case kFiNvlinkThroughputDataTx:
      case kFiNvlinkThroughputDataRx:
        if (f.scopeId >= static_cast<unsigned>(kNvlinkLinks)) {
          f.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
          break;
        }
        f.value.ullVal = counter(5e9 + 1e8 * f.scopeId, 2e5 * (f.scopeId + 1));
        break;
      default:
        f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        break;
    }
  }
  return NVML_SUCCESS;
}
#endif

}  // extern "C"
