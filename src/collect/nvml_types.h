// The subset of the NVML C ABI gpufleet uses, declared here because NVML has
// no Debian header. Names, values and layouts follow NVIDIA's nvml.h (NVML is
// ABI-stable: new behaviour gets a new versioned symbol, e.g. _v2), so a
// struct may only be changed to match a documented layout.
//
// Private to collect/ and its fake library (tests/fakes/nvml/); these types
// never appear in a public header.
#pragma once

#include <cstdint>

namespace gpufleet::nvml {

// nvmlReturn_t. The values are part of the ABI.
enum nvmlReturn_t : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_UNKNOWN = 999,
};

// Opaque handles.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;
struct nvmlGpmSample_st;
using nvmlGpmSample_t = nvmlGpmSample_st*;

// Buffer sizes from nvml.h.
inline constexpr unsigned kNvmlDeviceNameBufferSize = 96;     // _V2_BUFFER_SIZE
inline constexpr unsigned kNvmlDeviceUuidBufferSize = 96;     // _V2_BUFFER_SIZE
inline constexpr unsigned kNvmlDriverVersionBufferSize = 80;  // SYSTEM_DRIVER_VERSION
// NVML_VALUE_NOT_AVAILABLE (e.g. usedGpuMemory without permission).
inline constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v2/_v3.
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];  // "00000000:3B:00.0"
};

// Bytes. v1: used = reserved + allocated.
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// Bytes. v2: used = allocated only; `version` must be kNvmlMemoryV2Version.
struct nvmlMemory_v2_t {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
// NVML_STRUCT_VERSION(Memory, 2): size in the low bits, version in the top byte.
inline constexpr unsigned kNvmlMemoryV2Version =
    static_cast<unsigned>(sizeof(nvmlMemory_v2_t)) | (2u << 24);

// Percent over the driver's sample period.
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};

enum nvmlTemperatureSensors_t : int { NVML_TEMPERATURE_GPU = 0 };
enum nvmlClockType_t : int {
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3,
};
enum nvmlPcieUtilCounter_t : int { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum nvmlMemoryErrorType_t : int {
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
};
enum nvmlEccCounterType_t : int { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };

// Clock event (formerly "throttle") reason bits.
inline constexpr unsigned long long kNvmlClocksEventGpuIdle = 0x1;
inline constexpr unsigned long long kNvmlClocksEventApplicationsClocks = 0x2;
inline constexpr unsigned long long kNvmlClocksEventSwPowerCap = 0x4;
inline constexpr unsigned long long kNvmlClocksEventHwSlowdown = 0x8;
inline constexpr unsigned long long kNvmlClocksEventSyncBoost = 0x10;
inline constexpr unsigned long long kNvmlClocksEventSwThermal = 0x20;
inline constexpr unsigned long long kNvmlClocksEventHwThermal = 0x40;
inline constexpr unsigned long long kNvmlClocksEventHwPowerBrake = 0x80;
inline constexpr unsigned long long kNvmlClocksEventDisplayClock = 0x100;

// nvmlDeviceGetFieldValues.
enum nvmlValueType_t : int {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};
union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;  // e.g. the NVLink id for per-link fields
  long long timestamp;   // microseconds
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;  // per field
  nvmlValue_t value;
};

// Field ids (NVML_FI_DEV_*). Only ids that are stable across driver branches
// are used: the clock-event-reason duration ids above 250 were renumbered
// between branches, so throttle time is read from the PERF_POLICY ids.
inline constexpr unsigned kFiPerfPolicyPower = 74;        // ns
inline constexpr unsigned kFiPerfPolicyThermal = 75;      // ns
inline constexpr unsigned kFiPerfPolicySyncBoost = 76;    // ns
inline constexpr unsigned kFiPerfPolicyBoardLimit = 77;   // ns
inline constexpr unsigned kFiPerfPolicyLowUtil = 78;      // ns
inline constexpr unsigned kFiPerfPolicyReliability = 79;  // ns
inline constexpr unsigned kFiMemoryTemp = 82;             // Celsius
inline constexpr unsigned kFiNvlinkLinkCount = 91;
inline constexpr unsigned kFiNvlinkThroughputDataTx = 138;  // KiB, cumulative, per link
inline constexpr unsigned kFiNvlinkThroughputDataRx = 139;  // KiB, cumulative, per link
inline constexpr unsigned kFiPcieCountTxBytes = 197;        // bytes, cumulative, may wrap
inline constexpr unsigned kFiPcieCountRxBytes = 198;        // bytes, cumulative, may wrap

// nvmlProcessInfo_v2_t, used by nvmlDeviceGetComputeRunningProcesses_v2/_v3.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kNvmlValueNotAvailable
  unsigned int gpuInstanceId;        // 0xFFFFFFFF when not MIG
  unsigned int computeInstanceId;
};

struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // microseconds
  unsigned int smUtil;           // percent
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

// Events.
inline constexpr unsigned long long kNvmlEventTypeXidCriticalError = 0x8;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the Xid for kNvmlEventTypeXidCriticalError
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// MIG.
inline constexpr unsigned kNvmlDeviceMigEnable = 1;
struct nvmlDeviceAttributes_t {
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  unsigned int gpuInstanceSliceCount;
  unsigned int computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};

// GPM (Hopper+). Metric values are computed from two samples.
inline constexpr unsigned kNvmlGpmSupportVersion = 1;
inline constexpr unsigned kNvmlGpmMetricsGetVersion = 1;
struct nvmlGpmSupport_t {
  unsigned int version;
  unsigned int isSupportedDevice;
};
enum nvmlGpmMetricId_t : unsigned {
  NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
  NVML_GPM_METRIC_SM_UTIL = 2,
  NVML_GPM_METRIC_SM_OCCUPANCY = 3,
  NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
  NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
};
struct nvmlGpmMetric_t {
  unsigned int metricId;
  nvmlReturn_t nvmlReturn;
  double value;  // percent for the *_UTIL / OCCUPANCY metrics used here
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};
// NVML only touches metrics[0 .. numMetrics), so a shorter array than the
// newest header's is compatible.
inline constexpr unsigned kNvmlGpmMetricsArraySize = 98;
struct nvmlGpmMetricsGet_t {
  unsigned int version;
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[kNvmlGpmMetricsArraySize];
};

}  // namespace gpufleet::nvml
