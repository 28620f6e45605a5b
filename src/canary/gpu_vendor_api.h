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
#include <cstdint>
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
// The buffer we pass: far larger than any version's struct (cudaDeviceProp is
// about 1 KiB; tests/abi/ checks it against the real header).
inline constexpr size_t kDevicePropertiesBufferBytes = 16384;
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
// cudaDeviceGetAttribute / hipDeviceGetAttribute.
using DeviceGetAttributeFn = int(int* value, int attribute, int device);

// BLASLt (cublasLtXxx / hipblasLtXxx), for fp8 GEMM. Handles and descriptors
// are opaque pointers; the data types are cudaDataType / hipDataType.
using LtCreateFn = int(void** handle);
using LtDestroyFn = int(void* handle);
using LtMatmulDescCreateFn = int(void** desc, int compute_type, int scale_type);
using LtSetAttributeFn = int(void* desc, int attribute, const void* value, size_t bytes);
using LtDestroyObjectFn = int(void* object);
using LtMatrixLayoutCreateFn = int(void** layout, int type, uint64_t rows, uint64_t cols,
                                   int64_t ld);
using LtPreferenceCreateFn = int(void** pref);
// The heuristic result struct starts with the algorithm (passed back to
// Matmul by address); cublasLtMatmulHeuristicResult_t is 96 bytes with its
// `state` at offset 72, hipblasLtMatmulHeuristicResult_t 56 bytes with
// `state` at 32 (their headers). We pass a larger zeroed buffer of
// kLtHeuristicResultBufferBytes (tests/abi/ checks both layouts).
inline constexpr size_t kLtHeuristicResultBufferBytes = 512;
using LtAlgoGetHeuristicFn = int(void* handle, void* op_desc, void* a_desc, void* b_desc,
                                 void* c_desc, void* d_desc, void* pref, int requested,
                                 void* results, int* returned);
using LtMatmulFn = int(void* handle, void* op_desc, const void* alpha, const void* a,
                       void* a_desc, const void* b, void* b_desc, const void* beta, const void* c,
                       void* c_desc, void* d, void* d_desc, const void* algo, void* workspace,
                       size_t workspace_bytes, void* stream);

// Module loading and kernel launch: the CUDA driver API (libcuda.so.1:
// cuModuleLoadData ...) or HIP's module API (in libamdhip64 itself).
using DriverInitFn = int(unsigned int flags);
using CtxGetCurrentFn = int(void** context);
using ModuleLoadDataFn = int(void** module, const void* image);
using ModuleGetFunctionFn = int(void** function, void* module, const char* name);
using LaunchKernelFn = int(void* function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                           unsigned block_x, unsigned block_y, unsigned block_z,
                           unsigned shared_bytes, void* stream, void** params, void** extra);
// cuGetErrorString: the string through an out parameter.
using DriverGetErrorStringFn = int(int error, const char** str);

// BLAS (cublasXxx_v2 / hipblasXxx).
using BlasCreateFn = int(void** handle);
using BlasDestroyFn = int(void* handle);
using BlasSetStreamFn = int(void* handle, void* stream);
using BlasGetVersionFn = int(void* handle, int* version);
// cublasGemmEx / hipblasGemmEx_v2 (hipBLAS 2) / hipblasGemmEx (hipBLAS 3):
// the data types are cudaDataType /
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
  // Used when blas_gemm_ex is absent and the library exports the marker
  // symbol (hipBLAS 3 / ROCm 7: hipblasGemmEx, marker hipblasSetWorkspace).
  std::string blas_gemm_ex_fallback, blas_gemm_ex_fallback_marker;
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

  // Device attributes: compute capability (CUDA 75/76; HIP 23/61, where
  // gfx942 reads 9.4 and gfx950 9.5).
  int attr_cc_major = 75, attr_cc_minor = 76;

  // BLASLt (fp8 GEMM).
  std::vector<std::string> blaslt_libraries;
  std::string lt_prefix;  // "cublasLt", "hipblasLt": <prefix>Create, <prefix>Matmul, ...
  std::string blaslt_name;  // "cublaslt", "hipblaslt"
  int op_t = 1;               // CUBLAS_OP_T / HIPBLAS_OP_T
  int lt_desc_transa = 3, lt_desc_transb = 4;  // CUBLASLT_MATMUL_DESC_TRANS{A,B}
  int lt_pref_max_workspace = 1;              // *_MATMUL_PREF_MAX_WORKSPACE_BYTES
  size_t lt_heuristic_state_offset = 72;      // `state` in the heuristic result
  int type_fp8_e4m3 = 28;                     // CUDA_R_8F_E4M3 == HIP_R_8F_E4M3 (OCP)
  int type_fp8_e4m3_fnuz = 1000;              // HIP_R_8F_E4M3_FNUZ (gfx94x); CUDA has none

  // Kernel modules.
  std::vector<std::string> module_libraries;  // libcuda.so.1; empty: the runtime itself
  std::string module_prefix;                  // "cu", "hipModule"-style names below
  std::string sym_init, sym_ctx_get_current, sym_module_load_data, sym_module_get_function,
      sym_launch_kernel, sym_get_error_string;
  std::string module_compiler;  // "nvcc", "hipcc"
};

// Whether the device's architecture has fp8 (E4M3) GEMM in the vendor's
// BLASLt: CUDA compute capability >= 8.9 (Ada, Hopper, Blackwell); AMD
// gfx94x (MI300, FNUZ E4M3) and gfx950 (MI350, OCP E4M3). Returns the
// BLASLt data type to use, or Unimplemented naming the architecture.
struct Fp8Support {
  int data_type;
  std::string arch;  // "sm_90", "gfx942-class (9.4)"
};
StatusOr<Fp8Support> Fp8SupportFor(const VendorSpec& spec, int cc_major, int cc_minor);

const VendorSpec& SpecFor(GpuVendor v);

// "cuda-12.4" from cudaRuntimeGetVersion's 12040; "rocm-6.2" from HIP's
// 60241134 (major * 10^7 + minor * 10^5 + patch).
std::string RuntimeVersionName(GpuVendor v, int version);
// NCCL / RCCL / cuBLAS: major * 10000 + minor * 100 + patch -> "2.21.5".
// (NCCL before 2.9 used major * 1000 + minor * 100 + patch; handled.)
std::string CclVersionName(int version);
std::string BlasVersionName(int version);

}  // namespace gpufleet::canary::vendor
