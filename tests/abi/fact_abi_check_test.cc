// Our hand-written NVML (collect/nvml_types.h, nvml_api.h) and HIP / hipBLAS /
// hipBLASLt / RCCL (canary/gpu_vendor_api.h) declarations against the header
// facts in vendor_header_facts.h. Always built: these headers are not
// available at build time.
#include <cstddef>
#include <type_traits>

#include <gtest/gtest.h>

#include "canary/gpu_vendor_api.h"
#include "collect/nvml_api.h"
#include "collect/nvml_types.h"
#include "tests/abi/abi_compat.h"
#include "tests/abi/vendor_header_facts.h"

namespace gpufleet {
namespace {

namespace f = abi::facts;
namespace n = nvml;

// The function type behind one of NvmlApi's pointer members.
template <typename P>
using Fn = std::remove_pointer_t<P>;
#define GPUFLEET_ABI_CHECK_FACT_FN(fact, ours) \
  static_assert(abi::kAbiCompatible<ours, fact>, #fact " (fact table) does not match our " #ours)
#define GPUFLEET_ABI_CHECK_NVML(member, fact) \
  GPUFLEET_ABI_CHECK_FACT_FN(f::nvml::fact, Fn<decltype(NvmlApi::member)>)

// --- NVML enum values and constants.
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kSuccess, n::NVML_SUCCESS);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorUninitialized, n::NVML_ERROR_UNINITIALIZED);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorInvalidArgument, n::NVML_ERROR_INVALID_ARGUMENT);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorNotSupported, n::NVML_ERROR_NOT_SUPPORTED);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorNoPermission, n::NVML_ERROR_NO_PERMISSION);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorNotFound, n::NVML_ERROR_NOT_FOUND);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorInsufficientSize, n::NVML_ERROR_INSUFFICIENT_SIZE);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorDriverNotLoaded, n::NVML_ERROR_DRIVER_NOT_LOADED);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorTimeout, n::NVML_ERROR_TIMEOUT);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorFunctionNotFound, n::NVML_ERROR_FUNCTION_NOT_FOUND);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorGpuIsLost, n::NVML_ERROR_GPU_IS_LOST);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorNoData, n::NVML_ERROR_NO_DATA);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kErrorUnknown, n::NVML_ERROR_UNKNOWN);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kTemperatureGpu, n::NVML_TEMPERATURE_GPU);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClockGraphics, n::NVML_CLOCK_GRAPHICS);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClockSm, n::NVML_CLOCK_SM);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClockMem, n::NVML_CLOCK_MEM);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClockVideo, n::NVML_CLOCK_VIDEO);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kPcieUtilTxBytes, n::NVML_PCIE_UTIL_TX_BYTES);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kPcieUtilRxBytes, n::NVML_PCIE_UTIL_RX_BYTES);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kMemoryErrorCorrected, n::NVML_MEMORY_ERROR_TYPE_CORRECTED);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kMemoryErrorUncorrected, n::NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kVolatileEcc, n::NVML_VOLATILE_ECC);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kAggregateEcc, n::NVML_AGGREGATE_ECC);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeDouble, n::NVML_VALUE_TYPE_DOUBLE);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeUnsignedInt, n::NVML_VALUE_TYPE_UNSIGNED_INT);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeUnsignedLong, n::NVML_VALUE_TYPE_UNSIGNED_LONG);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeUnsignedLongLong,
                         n::NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeSignedLongLong, n::NVML_VALUE_TYPE_SIGNED_LONG_LONG);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeSignedInt, n::NVML_VALUE_TYPE_SIGNED_INT);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kValueTypeUnsignedShort, n::NVML_VALUE_TYPE_UNSIGNED_SHORT);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kDeviceNameV2BufferSize, n::kNvmlDeviceNameBufferSize);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kDeviceUuidV2BufferSize, n::kNvmlDeviceUuidBufferSize);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kSystemDriverVersionBufferSize,
                         n::kNvmlDriverVersionBufferSize);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventGpuIdle, n::kNvmlClocksEventGpuIdle);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventApplicationsClocks,
                         n::kNvmlClocksEventApplicationsClocks);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventSwPowerCap, n::kNvmlClocksEventSwPowerCap);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventHwSlowdown, n::kNvmlClocksEventHwSlowdown);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventSyncBoost, n::kNvmlClocksEventSyncBoost);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventSwThermal, n::kNvmlClocksEventSwThermal);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventHwThermal, n::kNvmlClocksEventHwThermal);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventHwPowerBrake, n::kNvmlClocksEventHwPowerBrake);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kClocksEventDisplayClock, n::kNvmlClocksEventDisplayClock);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kEventTypeXidCriticalError, n::kNvmlEventTypeXidCriticalError);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kDeviceMigEnable, n::kNvmlDeviceMigEnable);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicyPower, n::kFiPerfPolicyPower);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicyThermal, n::kFiPerfPolicyThermal);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicySyncBoost, n::kFiPerfPolicySyncBoost);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicyBoardLimit, n::kFiPerfPolicyBoardLimit);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicyLowUtil, n::kFiPerfPolicyLowUtil);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPerfPolicyReliability, n::kFiPerfPolicyReliability);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiMemoryTemp, n::kFiMemoryTemp);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiNvlinkLinkCount, n::kFiNvlinkLinkCount);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiNvlinkThroughputDataTx, n::kFiNvlinkThroughputDataTx);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiNvlinkThroughputDataRx, n::kFiNvlinkThroughputDataRx);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPcieCountTxBytes, n::kFiPcieCountTxBytes);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kFiPcieCountRxBytes, n::kFiPcieCountRxBytes);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmGraphicsUtil, n::NVML_GPM_METRIC_GRAPHICS_UTIL);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmSmUtil, n::NVML_GPM_METRIC_SM_UTIL);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmSmOccupancy, n::NVML_GPM_METRIC_SM_OCCUPANCY);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmAnyTensorUtil, n::NVML_GPM_METRIC_ANY_TENSOR_UTIL);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmDramBwUtil, n::NVML_GPM_METRIC_DRAM_BW_UTIL);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmSupportVersion, n::kNvmlGpmSupportVersion);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kGpmMetricsGetVersion, n::kNvmlGpmMetricsGetVersion);
GPUFLEET_ABI_CHECK_VALUE(f::nvml::kMemoryV2Version, n::kNvmlMemoryV2Version);
static_assert(sizeof(n::nvmlReturn_t) == sizeof(int) && sizeof(n::nvmlValueType_t) == sizeof(int));

// --- NVML layouts.
static_assert(sizeof(n::nvmlPciInfo_t) == f::nvml::kPciInfoSize);
static_assert(offsetof(n::nvmlPciInfo_t, domain) == f::nvml::kPciInfoDomain);
static_assert(offsetof(n::nvmlPciInfo_t, bus) == f::nvml::kPciInfoBus);
static_assert(offsetof(n::nvmlPciInfo_t, device) == f::nvml::kPciInfoDevice);
static_assert(offsetof(n::nvmlPciInfo_t, pciDeviceId) == f::nvml::kPciInfoPciDeviceId);
static_assert(offsetof(n::nvmlPciInfo_t, busId) == f::nvml::kPciInfoBusId);
static_assert(sizeof(n::nvmlMemory_t) == f::nvml::kMemorySize);
static_assert(offsetof(n::nvmlMemory_t, free) == f::nvml::kMemoryFree);
static_assert(offsetof(n::nvmlMemory_t, used) == f::nvml::kMemoryUsed);
static_assert(sizeof(n::nvmlMemory_v2_t) == f::nvml::kMemoryV2Size);
static_assert(offsetof(n::nvmlMemory_v2_t, total) == f::nvml::kMemoryV2Total);
static_assert(offsetof(n::nvmlMemory_v2_t, reserved) == f::nvml::kMemoryV2Reserved);
static_assert(offsetof(n::nvmlMemory_v2_t, free) == f::nvml::kMemoryV2Free);
static_assert(offsetof(n::nvmlMemory_v2_t, used) == f::nvml::kMemoryV2Used);
static_assert(sizeof(n::nvmlUtilization_t) == f::nvml::kUtilizationSize);
static_assert(sizeof(n::nvmlFieldValue_t) == f::nvml::kFieldValueSize);
static_assert(offsetof(n::nvmlFieldValue_t, scopeId) == f::nvml::kFieldValueScopeId);
static_assert(offsetof(n::nvmlFieldValue_t, timestamp) == f::nvml::kFieldValueTimestamp);
static_assert(offsetof(n::nvmlFieldValue_t, valueType) == f::nvml::kFieldValueValueType);
static_assert(offsetof(n::nvmlFieldValue_t, nvmlReturn) == f::nvml::kFieldValueReturn);
static_assert(offsetof(n::nvmlFieldValue_t, value) == f::nvml::kFieldValueValue);
static_assert(sizeof(n::nvmlProcessInfo_t) == f::nvml::kProcessInfoSize);
static_assert(offsetof(n::nvmlProcessInfo_t, usedGpuMemory) == f::nvml::kProcessInfoUsedGpuMemory);
static_assert(offsetof(n::nvmlProcessInfo_t, gpuInstanceId) == f::nvml::kProcessInfoGpuInstanceId);
static_assert(offsetof(n::nvmlProcessInfo_t, computeInstanceId) ==
              f::nvml::kProcessInfoComputeInstanceId);
static_assert(sizeof(n::nvmlProcessUtilizationSample_t) == f::nvml::kProcessUtilSampleSize);
static_assert(offsetof(n::nvmlProcessUtilizationSample_t, timeStamp) ==
              f::nvml::kProcessUtilSampleTimeStamp);
static_assert(offsetof(n::nvmlProcessUtilizationSample_t, smUtil) ==
              f::nvml::kProcessUtilSampleSmUtil);
static_assert(offsetof(n::nvmlProcessUtilizationSample_t, decUtil) ==
              f::nvml::kProcessUtilSampleDecUtil);
static_assert(sizeof(n::nvmlEventData_t) == f::nvml::kEventDataSize);
static_assert(offsetof(n::nvmlEventData_t, eventData) == f::nvml::kEventDataEventData);
static_assert(offsetof(n::nvmlEventData_t, gpuInstanceId) == f::nvml::kEventDataGpuInstanceId);
static_assert(sizeof(n::nvmlDeviceAttributes_t) == f::nvml::kDeviceAttributesSize);
static_assert(offsetof(n::nvmlDeviceAttributes_t, memorySizeMB) ==
              f::nvml::kDeviceAttributesMemorySizeMb);
static_assert(sizeof(n::nvmlGpmSupport_t) == f::nvml::kGpmSupportSize);
static_assert(sizeof(n::nvmlGpmMetric_t) == f::nvml::kGpmMetricSize);
static_assert(offsetof(n::nvmlGpmMetric_t, nvmlReturn) == f::nvml::kGpmMetricReturn);
static_assert(offsetof(n::nvmlGpmMetric_t, value) == f::nvml::kGpmMetricValue);
static_assert(offsetof(n::nvmlGpmMetricsGet_t, sample1) == f::nvml::kGpmMetricsGetSample1);
static_assert(offsetof(n::nvmlGpmMetricsGet_t, sample2) == f::nvml::kGpmMetricsGetSample2);
static_assert(offsetof(n::nvmlGpmMetricsGet_t, metrics) == f::nvml::kGpmMetricsGetMetrics);

// --- NVML entry points.
GPUFLEET_ABI_CHECK_NVML(Init, nvmlInit_v2);
GPUFLEET_ABI_CHECK_NVML(Shutdown, nvmlShutdown);
GPUFLEET_ABI_CHECK_NVML(DeviceGetCount, nvmlDeviceGetCount_v2);
GPUFLEET_ABI_CHECK_NVML(DeviceGetHandleByIndex, nvmlDeviceGetHandleByIndex_v2);
GPUFLEET_ABI_CHECK_NVML(DeviceGetName, nvmlDeviceGetName);
GPUFLEET_ABI_CHECK_NVML(DeviceGetUUID, nvmlDeviceGetUUID);
GPUFLEET_ABI_CHECK_NVML(ErrorString, nvmlErrorString);
GPUFLEET_ABI_CHECK_NVML(SystemGetDriverVersion, nvmlSystemGetDriverVersion);
GPUFLEET_ABI_CHECK_NVML(SystemGetCudaDriverVersion, nvmlSystemGetCudaDriverVersion);
GPUFLEET_ABI_CHECK_NVML(DeviceGetPciInfo, nvmlDeviceGetPciInfo_v3);
GPUFLEET_ABI_CHECK_NVML(DeviceGetMemoryInfoV2, nvmlDeviceGetMemoryInfo_v2);
GPUFLEET_ABI_CHECK_NVML(DeviceGetMemoryInfo, nvmlDeviceGetMemoryInfo);
GPUFLEET_ABI_CHECK_NVML(DeviceGetCudaComputeCapability, nvmlDeviceGetCudaComputeCapability);
GPUFLEET_ABI_CHECK_NVML(DeviceGetUtilizationRates, nvmlDeviceGetUtilizationRates);
GPUFLEET_ABI_CHECK_NVML(DeviceGetPowerUsage, nvmlDeviceGetPowerUsage);
GPUFLEET_ABI_CHECK_NVML(DeviceGetEnforcedPowerLimit, nvmlDeviceGetEnforcedPowerLimit);
GPUFLEET_ABI_CHECK_NVML(DeviceGetTotalEnergyConsumption, nvmlDeviceGetTotalEnergyConsumption);
GPUFLEET_ABI_CHECK_NVML(DeviceGetTemperature, nvmlDeviceGetTemperature);
GPUFLEET_ABI_CHECK_NVML(DeviceGetClockInfo, nvmlDeviceGetClockInfo);
GPUFLEET_ABI_CHECK_NVML(DeviceGetPcieThroughput, nvmlDeviceGetPcieThroughput);
GPUFLEET_ABI_CHECK_NVML(DeviceGetPcieReplayCounter, nvmlDeviceGetPcieReplayCounter);
GPUFLEET_ABI_CHECK_NVML(DeviceGetTotalEccErrors, nvmlDeviceGetTotalEccErrors);
GPUFLEET_ABI_CHECK_NVML(DeviceGetRemappedRows, nvmlDeviceGetRemappedRows);
GPUFLEET_ABI_CHECK_NVML(DeviceGetCurrentClocksEventReasons,
                        nvmlDeviceGetCurrentClocksEventReasons);
GPUFLEET_ABI_CHECK_NVML(DeviceGetEncoderUtilization, nvmlDeviceGetEncoderUtilization);
GPUFLEET_ABI_CHECK_NVML(DeviceGetDecoderUtilization, nvmlDeviceGetDecoderUtilization);
GPUFLEET_ABI_CHECK_NVML(DeviceGetFieldValues, nvmlDeviceGetFieldValues);
GPUFLEET_ABI_CHECK_NVML(DeviceGetComputeRunningProcesses,
                        nvmlDeviceGetComputeRunningProcesses_v3);
GPUFLEET_ABI_CHECK_NVML(DeviceGetProcessUtilization, nvmlDeviceGetProcessUtilization);
GPUFLEET_ABI_CHECK_NVML(EventSetCreate, nvmlEventSetCreate);
GPUFLEET_ABI_CHECK_NVML(DeviceRegisterEvents, nvmlDeviceRegisterEvents);
GPUFLEET_ABI_CHECK_NVML(EventSetWait, nvmlEventSetWait_v2);
GPUFLEET_ABI_CHECK_NVML(EventSetFree, nvmlEventSetFree);
GPUFLEET_ABI_CHECK_NVML(DeviceGetMigMode, nvmlDeviceGetMigMode);
GPUFLEET_ABI_CHECK_NVML(DeviceGetMaxMigDeviceCount, nvmlDeviceGetMaxMigDeviceCount);
GPUFLEET_ABI_CHECK_NVML(DeviceGetMigDeviceHandleByIndex, nvmlDeviceGetMigDeviceHandleByIndex);
GPUFLEET_ABI_CHECK_NVML(DeviceGetGpuInstanceId, nvmlDeviceGetGpuInstanceId);
GPUFLEET_ABI_CHECK_NVML(DeviceGetAttributes, nvmlDeviceGetAttributes_v2);
GPUFLEET_ABI_CHECK_NVML(GpmQueryDeviceSupport, nvmlGpmQueryDeviceSupport);
GPUFLEET_ABI_CHECK_NVML(GpmSampleAlloc, nvmlGpmSampleAlloc);
GPUFLEET_ABI_CHECK_NVML(GpmSampleFree, nvmlGpmSampleFree);
GPUFLEET_ABI_CHECK_NVML(GpmSampleGet, nvmlGpmSampleGet);
GPUFLEET_ABI_CHECK_NVML(GpmMigSampleGet, nvmlGpmMigSampleGet);
GPUFLEET_ABI_CHECK_NVML(GpmMetricsGet, nvmlGpmMetricsGet);

// --- HIP runtime and module API (the Fn types are shared with CUDA).
namespace v = canary::vendor;
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipGetDeviceCount, v::GetDeviceCountFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipSetDevice, v::SetDeviceFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipGetDevicePropertiesR0600, v::GetDevicePropertiesFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipMalloc, v::MallocFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipFree, v::FreeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipHostMalloc, v::HostAllocFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipHostFree, v::FreeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipMemset, v::MemsetFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipDeviceSynchronize, v::DeviceSynchronizeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipStreamCreate, v::StreamCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipStreamDestroy, v::StreamFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipMemcpyAsync, v::MemcpyAsyncFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipEventCreate, v::EventCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipEventRecord, v::EventRecordFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipEventSynchronize, v::EventFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipEventElapsedTime, v::EventElapsedTimeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipRuntimeGetVersion, v::GetVersionFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipGetErrorString, v::GetErrorStringFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipDeviceGetAttribute, v::DeviceGetAttributeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipModuleLoadData, v::ModuleLoadDataFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipModuleGetFunction, v::ModuleGetFunctionFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hip::hipModuleLaunchKernel, v::LaunchKernelFn);
// --- hipBLAS, hipBLASLt, RCCL.
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblas::hipblasCreate, v::BlasCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblas::hipblasDestroy, v::BlasDestroyFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblas::hipblasSetStream, v::BlasSetStreamFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblas::hipblasGemmEx, v::GemmExFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblas::hipblasSaxpy, v::SaxpyFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtCreate, v::LtCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtDestroy, v::LtDestroyFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmulDescCreate, v::LtMatmulDescCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmulDescSetAttribute, v::LtSetAttributeFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmulDescDestroy, v::LtDestroyObjectFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatrixLayoutCreate, v::LtMatrixLayoutCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmulPreferenceCreate, v::LtPreferenceCreateFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmulAlgoGetHeuristic, v::LtAlgoGetHeuristicFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::hipblaslt::hipblasLtMatmul, v::LtMatmulFn);
static_assert(f::hipblaslt::kHeuristicResultSize <= v::kLtHeuristicResultBufferBytes);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclGetVersion, v::CclGetVersionFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclCommInitAll, v::CclCommInitAllFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclCommDestroy, v::CclCommDestroyFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclAllReduce, v::CclAllReduceFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclGroupStart, v::CclGroupFn);
GPUFLEET_ABI_CHECK_FACT_FN(f::rccl::ncclGetErrorString, v::CclGetErrorStringFn);

// The HIP spec's enum values are set at run time (SpecFor).
TEST(FactAbiCheckTest, HipSpecMatchesHeaderFacts) {
  const v::VendorSpec& s = v::SpecFor(canary::GpuVendor::kAmd);
  EXPECT_EQ(s.memcpy_h2d, f::hip::kMemcpyHostToDevice);
  EXPECT_EQ(s.memcpy_d2h, f::hip::kMemcpyDeviceToHost);
  EXPECT_EQ(s.memcpy_d2d, f::hip::kMemcpyDeviceToDevice);
  EXPECT_EQ(s.attr_cc_major, f::hip::kAttrComputeCapabilityMajor);
  EXPECT_EQ(s.attr_cc_minor, f::hip::kAttrComputeCapabilityMinor);
  EXPECT_EQ(s.type_fp32, f::hip::kR32F);
  EXPECT_EQ(s.type_fp16, f::hip::kR16F);
  EXPECT_EQ(s.type_bf16, f::hip::kR16BF);
  EXPECT_EQ(s.type_fp8_e4m3, f::hip::kR8F_E4M3);
  EXPECT_EQ(s.type_fp8_e4m3_fnuz, f::hip::kR8F_E4M3_FNUZ);
  EXPECT_EQ(s.op_n, f::hipblas::kOpN);
  EXPECT_EQ(s.op_t, f::hipblas::kOpT);
  EXPECT_EQ(s.gemm_algo_default, f::hipblas::kGemmDefault);
  EXPECT_EQ(s.compute_32f, f::hipblas::kCompute32F);
  EXPECT_EQ(s.lt_desc_transa, f::hipblaslt::kMatmulDescTransA);
  EXPECT_EQ(s.lt_desc_transb, f::hipblaslt::kMatmulDescTransB);
  EXPECT_EQ(s.lt_pref_max_workspace, f::hipblaslt::kMatmulPrefMaxWorkspaceBytes);
  EXPECT_EQ(s.lt_heuristic_state_offset, f::hipblaslt::kHeuristicResultState);
  EXPECT_EQ(s.ccl_float32, f::rccl::kFloat32);
  EXPECT_EQ(s.ccl_sum, f::rccl::kSum);
  RecordProperty("nvml_facts", f::nvml::kSource);
  RecordProperty("hip_facts", f::hip::kSource);
}

}  // namespace
}  // namespace gpufleet
