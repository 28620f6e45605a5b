// The documented subset of the CUDA runtime / cuBLAS / NCCL and HIP / hipBLAS
// / RCCL C APIs that the canary uses, written here from the vendors' API
// documentation (no vendor header is needed at build time). The two stacks
// have the same call shapes for this subset, so one table of function
// pointer types serves both; VendorSpec says which library and symbol names
// and which enum values each vendor uses.
//
// Every function returns the vendor's status enum as an int, 0 = success.
// Private to canary/.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "canary/gpu_runtime.h"

namespace gpufleet::canary::vendor {

// Runtime (cudaXxx / hipXxx).
using GetDeviceCountFn = int(int* count);
using SetDeviceFn = int(int device);
// Fills the vendor's device-properties struct; its first member is
// `char name[256]` in every CUDA and HIP version, the only field we read.
using GetDevicePropertiesFn = int(void* props, int device);
using MallocFn = int(void** ptr, size_t bytes);
using FreeFn = int(void* ptr);
using HostAllocFn = int(void** ptr, size_t bytes, unsigned int flags);
using MemsetFn = int(void* ptr, int value, size_t bytes);
using DeviceSynchronizeFn = int();
using StreamCreateFn = int(void** stream);
using StreamFn = int(void* stream);
using MemcpyAsyncFn = int(void* dst, const void* src, size_t bytes, int kind, void* stream);
using EventCreateFn = int(void** event);
using EventFn = int(void* event);
using EventRecordFn = int(void* event, void* stream);
using EventElapsedTimeFn = int(float* ms, void* start, void* stop);
using GetVersionFn = int(int* version);
using GetErrorStringFn = const char*(int error);

// BLAS (cublasXxx_v2 / hipblasXxx).
using BlasCreateFn = int(void** handle);
using BlasDestroyFn = int(void* handle);
using BlasSetStreamFn = int(void* handle, void* stream);
using BlasGetVersionFn = int(void* handle, int* version);
// cublasGemmEx / hipblasGemmEx_v2: the data types are cudaDataType /
// hipDataType, the compute type cublasComputeType_t / hipblasComputeType_t.
using GemmExFn = int(void* handle, int transa, int transb, int m, int n, int k, const void* alpha,
                     const void* a, int a_type, int lda, const void* b, int b_type, int ldb,
                     const void* beta, void* c, int c_type, int ldc, int compute_type, int algo);
using SaxpyFn = int(void* handle, int n, const float* alpha, const float* x, int incx, float* y,
                    int incy);

// Collectives (NCCL; RCCL exports the same nccl* names).
using CclGetVersionFn = int(int* version);
using CclCommInitAllFn = int(void** comms, int ndev, const int* devlist);
using CclCommDestroyFn = int(void* comm);
using CclAllReduceFn = int(const void* send, void* recv, size_t count, int datatype, int op,
                           void* comm, void* stream);
using CclGroupFn = int();
using CclGetErrorStringFn = const char*(int result);

struct VendorSpec {
  GpuVendor vendor;
  std::vector<std::string> runtime_libraries;
  std::vector<std::string> blas_libraries;
  std::vector<std::string> ccl_libraries;
  std::string runtime_prefix;                          // "cuda", "hip": cudaMalloc, hipMalloc, ...
  std::vector<std::string> device_properties_symbols;  // newest first
  std::string host_alloc_symbol;
  std::string host_free_symbol;
  std::string blas_create, blas_destroy, blas_set_stream, blas_get_version, blas_gemm_ex,
      blas_saxpy;
  std::string runtime_name;  // "cuda", "rocm" (HardwareTarget.runtime prefix)
  std::string blas_name;     // "cublas", "hipblas"
  std::string ccl_name;      // "nccl", "rccl"
  // Enum values.
  int memcpy_h2d = 1, memcpy_d2h = 2, memcpy_d2d = 3;  // same for CUDA and HIP
  int op_n = 0;
  int gemm_algo_default = -1;
  int compute_32f = 68;
  int type_fp32 = 0, type_fp16 = 2, type_bf16 = 14;  // cudaDataType == hipDataType
  int ccl_float32 = 7, ccl_sum = 0;
};

const VendorSpec& SpecFor(GpuVendor v);

// "cuda-12.4" from cudaRuntimeGetVersion's 12040; "rocm-6.2" from HIP's
// 60241134 (major * 10^7 + minor * 10^5 + patch).
std::string RuntimeVersionName(GpuVendor v, int version);
// NCCL / RCCL / cuBLAS: major * 10000 + minor * 100 + patch -> "2.21.5".
// (NCCL before 2.9 used major * 1000 + minor * 100 + patch; handled.)
std::string CclVersionName(int version);
std::string BlasVersionName(int version);

}  // namespace gpufleet::canary::vendor
