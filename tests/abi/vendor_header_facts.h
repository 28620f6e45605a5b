// Facts from vendor C headers that are NOT available at build time (no
// Debian package, not in the CUDA Toolkit): NVML (nvml.h), HIP
// (hip_runtime_api.h, library_types.h), hipBLAS (hipblas.h,
// hipblas-common.h), hipBLASLt (hipblaslt.h) and RCCL (rccl.h). Written by
// hand from the vendors' public headers (read, not copied); each block names
// the header and version it was read from. fact_abi_check_test.cc checks our
// production declarations against this table, so a change to either side
// that is not mirrored in the other fails the build.
//
// REQUIRES: when a fact changes, cite the new header version next to it.
// Where the real header is present at build time, check against it instead
// (cuda_abi_check_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "collect/nvml_types.h"

namespace gpufleet::abi::facts {

// Stands for a vendor status / selector enum (int-sized in every header).
enum VendorEnum : int {};
// Opaque vendor objects reached only through pointers.
struct VendorOpaque;

namespace nvml {
// nvml.h, NVML API version 12 (CUDA 12.4 toolkit / driver R550; the
// layouts below are unchanged through CUDA 12.9 / R575).
inline constexpr const char* kSource = "nvml.h (NVML API 12, CUDA 12.4 / R550)";
using nvmlReturn_t = VendorEnum;
using nvmlDevice_t = gpufleet::nvml::nvmlDevice_t;        // opaque handle
using nvmlEventSet_t = gpufleet::nvml::nvmlEventSet_t;    // opaque handle
using nvmlGpmSample_t = gpufleet::nvml::nvmlGpmSample_t;  // opaque handle
namespace t = gpufleet::nvml;  // struct parameters: layouts checked below

// nvmlReturn_t.
inline constexpr int kSuccess = 0, kErrorUninitialized = 1, kErrorInvalidArgument = 2,
                     kErrorNotSupported = 3, kErrorNoPermission = 4, kErrorNotFound = 6,
                     kErrorInsufficientSize = 7, kErrorDriverNotLoaded = 9, kErrorTimeout = 10,
                     kErrorFunctionNotFound = 13, kErrorGpuIsLost = 15, kErrorNoData = 21,
                     kErrorUnknown = 999;
// Selectors.
inline constexpr int kTemperatureGpu = 0;
inline constexpr int kClockGraphics = 0, kClockSm = 1, kClockMem = 2, kClockVideo = 3;
inline constexpr int kPcieUtilTxBytes = 0, kPcieUtilRxBytes = 1;
inline constexpr int kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1;
inline constexpr int kVolatileEcc = 0, kAggregateEcc = 1;
inline constexpr int kValueTypeDouble = 0, kValueTypeUnsignedInt = 1,
                     kValueTypeUnsignedLong = 2, kValueTypeUnsignedLongLong = 3,
                     kValueTypeSignedLongLong = 4, kValueTypeSignedInt = 5,
                     kValueTypeUnsignedShort = 6;
// Buffer sizes (NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE,
// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE).
inline constexpr unsigned kDeviceNameV2BufferSize = 96, kDeviceUuidV2BufferSize = 96,
                          kSystemDriverVersionBufferSize = 80;
// nvmlClocksEventReason* bits.
inline constexpr unsigned long long kClocksEventGpuIdle = 0x1, kClocksEventApplicationsClocks = 0x2,
                                    kClocksEventSwPowerCap = 0x4, kClocksEventHwSlowdown = 0x8,
                                    kClocksEventSyncBoost = 0x10, kClocksEventSwThermal = 0x20,
                                    kClocksEventHwThermal = 0x40,
                                    kClocksEventHwPowerBrake = 0x80,
                                    kClocksEventDisplayClock = 0x100;
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
inline constexpr unsigned kDeviceMigEnable = 1;
// NVML_FI_DEV_* field ids.
inline constexpr unsigned kFiPerfPolicyPower = 74, kFiPerfPolicyThermal = 75,
                          kFiPerfPolicySyncBoost = 76, kFiPerfPolicyBoardLimit = 77,
                          kFiPerfPolicyLowUtil = 78, kFiPerfPolicyReliability = 79,
                          kFiMemoryTemp = 82, kFiNvlinkLinkCount = 91,
                          kFiNvlinkThroughputDataTx = 138, kFiNvlinkThroughputDataRx = 139,
                          kFiPcieCountTxBytes = 197, kFiPcieCountRxBytes = 198;
// GPM (nvmlGpmMetricId_t, NVML_GPM_SUPPORT_VERSION, NVML_GPM_METRICS_GET_VERSION).
inline constexpr unsigned kGpmGraphicsUtil = 1, kGpmSmUtil = 2, kGpmSmOccupancy = 3,
                          kGpmAnyTensorUtil = 5, kGpmDramBwUtil = 10;
inline constexpr unsigned kGpmSupportVersion = 1, kGpmMetricsGetVersion = 1;

// Layouts (LP64): {size, offsets of the members gpufleet reads or writes}.
inline constexpr size_t kPciInfoSize = 68, kPciInfoDomain = 16, kPciInfoBus = 20,
                        kPciInfoDevice = 24, kPciInfoPciDeviceId = 28, kPciInfoBusId = 36;
inline constexpr size_t kMemorySize = 24, kMemoryFree = 8, kMemoryUsed = 16;
// nvmlMemory_v2 == NVML_STRUCT_VERSION(Memory, 2) == sizeof | 2 << 24.
inline constexpr size_t kMemoryV2Size = 40, kMemoryV2Total = 8, kMemoryV2Reserved = 16,
                        kMemoryV2Free = 24, kMemoryV2Used = 32;
inline constexpr unsigned kMemoryV2Version = 40u | (2u << 24);
inline constexpr size_t kUtilizationSize = 8;
inline constexpr size_t kFieldValueSize = 40, kFieldValueScopeId = 4, kFieldValueTimestamp = 8,
                        kFieldValueValueType = 24, kFieldValueReturn = 28, kFieldValueValue = 32;
// nvmlProcessInfo_t (== nvmlProcessInfo_v2_t), filled by
// nvmlDeviceGetComputeRunningProcesses_v2/_v3.
inline constexpr size_t kProcessInfoSize = 24, kProcessInfoUsedGpuMemory = 8,
                        kProcessInfoGpuInstanceId = 16, kProcessInfoComputeInstanceId = 20;
inline constexpr size_t kProcessUtilSampleSize = 32, kProcessUtilSampleTimeStamp = 8,
                        kProcessUtilSampleSmUtil = 16, kProcessUtilSampleDecUtil = 28;
inline constexpr size_t kEventDataSize = 32, kEventDataEventData = 16,
                        kEventDataGpuInstanceId = 24;
inline constexpr size_t kDeviceAttributesSize = 40, kDeviceAttributesMemorySizeMb = 32;
inline constexpr size_t kGpmSupportSize = 8;
inline constexpr size_t kGpmMetricSize = 40, kGpmMetricReturn = 4, kGpmMetricValue = 8;
inline constexpr size_t kGpmMetricsGetSample1 = 8, kGpmMetricsGetSample2 = 16,
                        kGpmMetricsGetMetrics = 24;

// Signatures of the entry points NvmlApi binds (newest symbol version).
using nvmlInit_v2 = nvmlReturn_t();
using nvmlShutdown = nvmlReturn_t();
using nvmlDeviceGetCount_v2 = nvmlReturn_t(unsigned int*);
using nvmlDeviceGetHandleByIndex_v2 = nvmlReturn_t(unsigned int, nvmlDevice_t*);
using nvmlDeviceGetName = nvmlReturn_t(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetUUID = nvmlReturn_t(nvmlDevice_t, char*, unsigned int);
using nvmlErrorString = const char*(nvmlReturn_t);
using nvmlSystemGetDriverVersion = nvmlReturn_t(char*, unsigned int);
using nvmlSystemGetCudaDriverVersion = nvmlReturn_t(int*);
using nvmlDeviceGetPciInfo_v3 = nvmlReturn_t(nvmlDevice_t, t::nvmlPciInfo_t*);
using nvmlDeviceGetMemoryInfo_v2 = nvmlReturn_t(nvmlDevice_t, t::nvmlMemory_v2_t*);
using nvmlDeviceGetMemoryInfo = nvmlReturn_t(nvmlDevice_t, t::nvmlMemory_t*);
using nvmlDeviceGetCudaComputeCapability = nvmlReturn_t(nvmlDevice_t, int*, int*);
using nvmlDeviceGetUtilizationRates = nvmlReturn_t(nvmlDevice_t, t::nvmlUtilization_t*);
using nvmlDeviceGetPowerUsage = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetEnforcedPowerLimit = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetTotalEnergyConsumption = nvmlReturn_t(nvmlDevice_t, unsigned long long*);
using nvmlDeviceGetTemperature = nvmlReturn_t(nvmlDevice_t, VendorEnum, unsigned int*);
using nvmlDeviceGetClockInfo = nvmlReturn_t(nvmlDevice_t, VendorEnum, unsigned int*);
using nvmlDeviceGetPcieThroughput = nvmlReturn_t(nvmlDevice_t, VendorEnum, unsigned int*);
using nvmlDeviceGetPcieReplayCounter = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetTotalEccErrors = nvmlReturn_t(nvmlDevice_t, VendorEnum, VendorEnum,
                                                 unsigned long long*);
using nvmlDeviceGetRemappedRows = nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*,
                                               unsigned int*, unsigned int*);
using nvmlDeviceGetCurrentClocksEventReasons = nvmlReturn_t(nvmlDevice_t, unsigned long long*);
using nvmlDeviceGetEncoderUtilization = nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlDeviceGetDecoderUtilization = nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlDeviceGetFieldValues = nvmlReturn_t(nvmlDevice_t, int, t::nvmlFieldValue_t*);
using nvmlDeviceGetComputeRunningProcesses_v3 = nvmlReturn_t(nvmlDevice_t, unsigned int*,
                                                             t::nvmlProcessInfo_t*);
using nvmlDeviceGetProcessUtilization = nvmlReturn_t(nvmlDevice_t,
                                                     t::nvmlProcessUtilizationSample_t*,
                                                     unsigned int*, unsigned long long);
using nvmlEventSetCreate = nvmlReturn_t(nvmlEventSet_t*);
using nvmlDeviceRegisterEvents = nvmlReturn_t(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
using nvmlEventSetWait_v2 = nvmlReturn_t(nvmlEventSet_t, t::nvmlEventData_t*, unsigned int);
using nvmlEventSetFree = nvmlReturn_t(nvmlEventSet_t);
using nvmlDeviceGetMigMode = nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlDeviceGetMaxMigDeviceCount = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetMigDeviceHandleByIndex = nvmlReturn_t(nvmlDevice_t, unsigned int,
                                                         nvmlDevice_t*);
using nvmlDeviceGetGpuInstanceId = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetAttributes_v2 = nvmlReturn_t(nvmlDevice_t, t::nvmlDeviceAttributes_t*);
using nvmlGpmQueryDeviceSupport = nvmlReturn_t(nvmlDevice_t, t::nvmlGpmSupport_t*);
using nvmlGpmSampleAlloc = nvmlReturn_t(nvmlGpmSample_t*);
using nvmlGpmSampleFree = nvmlReturn_t(nvmlGpmSample_t);
using nvmlGpmSampleGet = nvmlReturn_t(nvmlDevice_t, nvmlGpmSample_t);
using nvmlGpmMigSampleGet = nvmlReturn_t(nvmlDevice_t, unsigned int, nvmlGpmSample_t);
using nvmlGpmMetricsGet = nvmlReturn_t(t::nvmlGpmMetricsGet_t*);
}  // namespace nvml

namespace hip {
// hip_runtime_api.h and hip/library_types.h, ROCm 6.2 - 7.0 (HIP 6.x/7.x;
// the values below did not change in that range).
inline constexpr const char* kSource = "hip_runtime_api.h, library_types.h (ROCm 6.2-7.0)";
using hipError_t = VendorEnum;
using hipStream_t = VendorOpaque*;  // ihipStream_t*
using hipEvent_t = VendorOpaque*;   // ihipEvent_t*
using hipModule_t = VendorOpaque*;
using hipFunction_t = VendorOpaque*;
inline constexpr int kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2, kMemcpyDeviceToDevice = 3;
inline constexpr int kAttrComputeCapabilityMajor = 23, kAttrComputeCapabilityMinor = 61;
// hipDataType.
inline constexpr int kR32F = 0, kR16F = 2, kR16BF = 14, kR8F_E4M3 = 28, kR8F_E4M3_FNUZ = 1000;

using hipGetDeviceCount = hipError_t(int*);
using hipSetDevice = hipError_t(int);
using hipGetDevicePropertiesR0600 = hipError_t(VendorOpaque*, int);  // hipDeviceProp_tR0600*
using hipMalloc = hipError_t(void**, size_t);
using hipFree = hipError_t(void*);
using hipHostMalloc = hipError_t(void**, size_t, unsigned int);
using hipHostFree = hipError_t(void*);
using hipMemset = hipError_t(void*, int, size_t);
using hipDeviceSynchronize = hipError_t();
using hipStreamCreate = hipError_t(hipStream_t*);
using hipStreamDestroy = hipError_t(hipStream_t);
using hipMemcpyAsync = hipError_t(void*, const void*, size_t, VendorEnum, hipStream_t);
using hipEventCreate = hipError_t(hipEvent_t*);
using hipEventRecord = hipError_t(hipEvent_t, hipStream_t);
using hipEventSynchronize = hipError_t(hipEvent_t);
using hipEventElapsedTime = hipError_t(float*, hipEvent_t, hipEvent_t);
using hipRuntimeGetVersion = hipError_t(int*);
using hipGetErrorString = const char*(hipError_t);
using hipDeviceGetAttribute = hipError_t(int*, VendorEnum, int);
using hipModuleLoadData = hipError_t(hipModule_t*, const void*);
using hipModuleGetFunction = hipError_t(hipFunction_t*, hipModule_t, const char*);
using hipModuleLaunchKernel = hipError_t(hipFunction_t, unsigned int, unsigned int, unsigned int,
                                         unsigned int, unsigned int, unsigned int, unsigned int,
                                         hipStream_t, void**, void**);
}  // namespace hip

namespace hipblas {
// hipblas.h and hipblas-common.h, hipBLAS 2.x (ROCm 6.x) and 3.0 (ROCm 7.0).
// hipBLAS 3.0 removed hipblasDatatype_t and the *_v2 names: plain
// hipblasGemmEx takes hipDataType / hipblasComputeType_t there (hipBLAS
// CHANGELOG 3.0.0, ROCm/hipBLAS PR #982). In 2.x that signature is exported as
// hipblasGemmEx_v2 and plain hipblasGemmEx takes hipblasDatatype_t.
inline constexpr const char* kSource = "hipblas.h, hipblas-common.h (hipBLAS 2.x / 3.0)";
using hipblasStatus_t = VendorEnum;
using hipblasHandle_t = void*;
inline constexpr int kOpN = 111, kOpT = 112;
inline constexpr int kGemmDefault = 160;
inline constexpr int kCompute32F = 2;  // hipblasComputeType_t
using hipblasCreate = hipblasStatus_t(hipblasHandle_t*);
using hipblasDestroy = hipblasStatus_t(hipblasHandle_t);
using hipblasSetStream = hipblasStatus_t(hipblasHandle_t, hip::hipStream_t);
// hipblasGemmEx (3.0) == hipblasGemmEx_v2 (2.x).
using hipblasGemmEx = hipblasStatus_t(hipblasHandle_t, VendorEnum, VendorEnum, int, int, int,
                                      const void*, const void*, VendorEnum, int, const void*,
                                      VendorEnum, int, const void*, void*, VendorEnum, int,
                                      VendorEnum, VendorEnum);
using hipblasSaxpy = hipblasStatus_t(hipblasHandle_t, int, const float*, const float*, int,
                                     float*, int);
}  // namespace hipblas

namespace hipblaslt {
// hipblaslt.h, hipBLASLt 0.8 - 1.0 (ROCm 6.2 - 7.0), ROCm/hipBLASLt
// library/include/hipblaslt.h.
inline constexpr const char* kSource = "hipblaslt.h (hipBLASLt 0.8-1.0, ROCm 6.2-7.0)";
using hipblasStatus_t = VendorEnum;
using Handle = void*;          // hipblasLtHandle_t
using Desc = VendorOpaque*;    // hipblasLtMatmulDesc_t, ...Layout_t, ...Preference_t
inline constexpr int kMatmulDescTransA = 0, kMatmulDescTransB = 1;
inline constexpr int kMatmulPrefMaxWorkspaceBytes = 1;
// hipblasLtMatmulAlgo_t {uint8_t data[16]; size_t max_workspace_bytes;} and
// hipblasLtMatmulHeuristicResult_t {algo; size_t workspaceSize;
// hipblasStatus_t state; float wavesCount; int reserved[4];}.
inline constexpr size_t kAlgoSize = 24, kHeuristicResultSize = 56, kHeuristicResultState = 32;
using hipblasLtCreate = hipblasStatus_t(Handle*);
using hipblasLtDestroy = hipblasStatus_t(Handle);
using hipblasLtMatmulDescCreate = hipblasStatus_t(Desc*, VendorEnum, VendorEnum);
using hipblasLtMatmulDescSetAttribute = hipblasStatus_t(Desc, VendorEnum, const void*, size_t);
using hipblasLtMatmulDescDestroy = hipblasStatus_t(Desc);
using hipblasLtMatrixLayoutCreate = hipblasStatus_t(Desc*, VendorEnum, uint64_t, uint64_t,
                                                    int64_t);
using hipblasLtMatmulPreferenceCreate = hipblasStatus_t(Desc*);
using hipblasLtMatmulAlgoGetHeuristic = hipblasStatus_t(Handle, Desc, Desc, Desc, Desc, Desc,
                                                        Desc, int, VendorOpaque*, int*);
using hipblasLtMatmul = hipblasStatus_t(Handle, Desc, const void*, const void*, Desc,
                                        const void*, Desc, const void*, const void*, Desc, void*,
                                        Desc, const VendorOpaque*, void*, size_t,
                                        hip::hipStream_t);
}  // namespace hipblaslt

namespace rccl {
// rccl.h (RCCL 2.18 - 2.22, ROCm 6.x - 7.0): the NCCL API and values.
inline constexpr const char* kSource = "rccl.h (RCCL 2.18-2.22, ROCm 6.x-7.0)";
using ncclResult_t = VendorEnum;
using ncclComm_t = VendorOpaque*;
inline constexpr int kFloat32 = 7, kSum = 0;
using ncclGetVersion = ncclResult_t(int*);
using ncclCommInitAll = ncclResult_t(ncclComm_t*, int, const int*);
using ncclCommDestroy = ncclResult_t(ncclComm_t);
using ncclAllReduce = ncclResult_t(const void*, void*, size_t, VendorEnum, VendorEnum, ncclComm_t,
                                   hip::hipStream_t);
using ncclGroupStart = ncclResult_t();
using ncclGetErrorString = const char*(ncclResult_t);
}  // namespace rccl

}  // namespace gpufleet::abi::facts
