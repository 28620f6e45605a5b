// Our CUDA runtime / driver / cuBLAS / cuBLASLt declarations
// (canary/gpu_vendor_api.h) against the real CUDA Toolkit headers. Built only
// when CMake finds them (tests/abi/CMakeLists.txt); the static_asserts are the
// check, the tests record that it was compiled in and compare the run-time
// VendorSpec values with the headers' enum constants.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include <gtest/gtest.h>

#include "canary/gpu_vendor_api.h"
#include "tests/abi/abi_compat.h"

namespace gpufleet::canary::vendor {
namespace {

// --- Runtime (libcudart).
GPUFLEET_ABI_CHECK_FN(cudaGetDeviceCount, GetDeviceCountFn);
GPUFLEET_ABI_CHECK_FN(cudaSetDevice, SetDeviceFn);
GPUFLEET_ABI_CHECK_FN(cudaGetDeviceProperties, GetDevicePropertiesFn);
GPUFLEET_ABI_CHECK_FN(cudaMalloc, MallocFn);
GPUFLEET_ABI_CHECK_FN(cudaFree, FreeFn);
GPUFLEET_ABI_CHECK_FN(cudaHostAlloc, HostAllocFn);
GPUFLEET_ABI_CHECK_FN(cudaFreeHost, FreeFn);
GPUFLEET_ABI_CHECK_FN(cudaMemset, MemsetFn);
GPUFLEET_ABI_CHECK_FN(cudaDeviceSynchronize, DeviceSynchronizeFn);
GPUFLEET_ABI_CHECK_FN(cudaStreamCreate, StreamCreateFn);
GPUFLEET_ABI_CHECK_FN(cudaStreamDestroy, StreamFn);
GPUFLEET_ABI_CHECK_FN(cudaStreamSynchronize, StreamFn);
GPUFLEET_ABI_CHECK_FN(cudaMemcpyAsync, MemcpyAsyncFn);
GPUFLEET_ABI_CHECK_FN(cudaEventCreate, EventCreateFn);
GPUFLEET_ABI_CHECK_FN(cudaEventDestroy, EventFn);
GPUFLEET_ABI_CHECK_FN(cudaEventRecord, EventRecordFn);
GPUFLEET_ABI_CHECK_FN(cudaEventSynchronize, EventFn);
GPUFLEET_ABI_CHECK_FN(cudaEventElapsedTime, EventElapsedTimeFn);
GPUFLEET_ABI_CHECK_FN(cudaRuntimeGetVersion, GetVersionFn);
GPUFLEET_ABI_CHECK_FN(cudaDriverGetVersion, GetVersionFn);
GPUFLEET_ABI_CHECK_FN(cudaGetErrorString, GetErrorStringFn);
GPUFLEET_ABI_CHECK_FN(cudaDeviceGetAttribute, DeviceGetAttributeFn);

// DeviceName() reads `char name[256]` at offset 0 of a buffer we size.
static_assert(offsetof(cudaDeviceProp, name) == 0);
static_assert(sizeof(cudaDeviceProp::name) == 256);
static_assert(sizeof(cudaDeviceProp) <= kDevicePropertiesBufferBytes);

// --- Driver API (libcuda).
GPUFLEET_ABI_CHECK_FN(cuInit, DriverInitFn);
GPUFLEET_ABI_CHECK_FN(cuCtxGetCurrent, CtxGetCurrentFn);
GPUFLEET_ABI_CHECK_FN(cuModuleLoadData, ModuleLoadDataFn);
GPUFLEET_ABI_CHECK_FN(cuModuleGetFunction, ModuleGetFunctionFn);
GPUFLEET_ABI_CHECK_FN(cuLaunchKernel, LaunchKernelFn);
GPUFLEET_ABI_CHECK_FN(cuGetErrorString, DriverGetErrorStringFn);

// --- cuBLAS. cublas_v2.h maps cublasCreate -> cublasCreate_v2 etc.; the
// spec dlsyms the _v2 names, so those are checked.
GPUFLEET_ABI_CHECK_FN(cublasCreate_v2, BlasCreateFn);
GPUFLEET_ABI_CHECK_FN(cublasDestroy_v2, BlasDestroyFn);
GPUFLEET_ABI_CHECK_FN(cublasSetStream_v2, BlasSetStreamFn);
GPUFLEET_ABI_CHECK_FN(cublasGetVersion_v2, BlasGetVersionFn);
GPUFLEET_ABI_CHECK_FN(cublasSaxpy_v2, SaxpyFn);
// cublas_api.h adds a C++ inline overload taking cudaDataType as the compute
// type; the exported C symbol takes cublasComputeType_t.
using CublasGemmExC = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                     int, int, const void*, const void*, cudaDataType, int,
                                     const void*, cudaDataType, int, const void*, void*,
                                     cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
GPUFLEET_ABI_CHECK_OVERLOADED_FN(cublasGemmEx, CublasGemmExC, GemmExFn);

// --- cuBLASLt.
GPUFLEET_ABI_CHECK_FN(cublasLtCreate, LtCreateFn);
GPUFLEET_ABI_CHECK_FN(cublasLtDestroy, LtDestroyFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulDescCreate, LtMatmulDescCreateFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulDescSetAttribute, LtSetAttributeFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulDescDestroy, LtDestroyObjectFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatrixLayoutCreate, LtMatrixLayoutCreateFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatrixLayoutDestroy, LtDestroyObjectFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulPreferenceCreate, LtPreferenceCreateFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulPreferenceSetAttribute, LtSetAttributeFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulPreferenceDestroy, LtDestroyObjectFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmulAlgoGetHeuristic, LtAlgoGetHeuristicFn);
GPUFLEET_ABI_CHECK_FN(cublasLtMatmul, LtMatmulFn);

// BlasLt passes a zeroed buffer for the result array and passes its first
// member (the algorithm) back to Matmul by address.
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, algo) == 0);
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, state) == 72);
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == 96);
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) <= kLtHeuristicResultBufferBytes);
static_assert(sizeof(cublasStatus_t) == sizeof(int));

// Enum constants. VendorSpec is built at run time (SpecFor) and holds
// strings, so its values are compared here rather than in static_asserts;
// the symbol names it dlsyms must be the ones checked above.
TEST(CudaAbiCheckTest, SpecMatchesCudaHeaders) {
  const VendorSpec& s = SpecFor(GpuVendor::kNvidia);
  EXPECT_EQ(s.memcpy_h2d, cudaMemcpyHostToDevice);
  EXPECT_EQ(s.memcpy_d2h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(s.memcpy_d2d, cudaMemcpyDeviceToDevice);
  EXPECT_EQ(s.type_fp32, CUDA_R_32F);
  EXPECT_EQ(s.type_fp16, CUDA_R_16F);
  EXPECT_EQ(s.type_bf16, CUDA_R_16BF);
  EXPECT_EQ(s.op_n, CUBLAS_OP_N);
  EXPECT_EQ(s.op_t, CUBLAS_OP_T);
  EXPECT_EQ(s.gemm_algo_default, CUBLAS_GEMM_DEFAULT);
  EXPECT_EQ(s.compute_32f, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(s.attr_cc_major, cudaDevAttrComputeCapabilityMajor);
  EXPECT_EQ(s.attr_cc_minor, cudaDevAttrComputeCapabilityMinor);
  EXPECT_EQ(s.lt_desc_transa, CUBLASLT_MATMUL_DESC_TRANSA);
  EXPECT_EQ(s.lt_desc_transb, CUBLASLT_MATMUL_DESC_TRANSB);
  EXPECT_EQ(s.lt_pref_max_workspace, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
  EXPECT_EQ(s.lt_heuristic_state_offset, offsetof(cublasLtMatmulHeuristicResult_t, state));
  EXPECT_EQ(s.type_fp8_e4m3, CUDA_R_8F_E4M3);
  EXPECT_EQ(s.blas_create, "cublasCreate_v2");
  EXPECT_EQ(s.blas_destroy, "cublasDestroy_v2");
  EXPECT_EQ(s.blas_set_stream, "cublasSetStream_v2");
  EXPECT_EQ(s.blas_get_version, "cublasGetVersion_v2");
  EXPECT_EQ(s.blas_gemm_ex, "cublasGemmEx");
  EXPECT_EQ(s.blas_saxpy, "cublasSaxpy_v2");
  EXPECT_EQ(s.lt_prefix, "cublasLt");
  EXPECT_EQ(s.host_alloc_symbol, "cudaHostAlloc");
  EXPECT_EQ(s.host_free_symbol, "cudaFreeHost");
  EXPECT_EQ(s.sym_launch_kernel, "cuLaunchKernel");
  ASSERT_FALSE(s.device_properties_symbols.empty());
  EXPECT_EQ(s.device_properties_symbols.back(), "cudaGetDeviceProperties");
  RecordProperty("cuda_headers", CUDART_VERSION);
}

}  // namespace
}  // namespace gpufleet::canary::vendor
