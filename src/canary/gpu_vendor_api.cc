#include "canary/gpu_vendor_api.h"

namespace gpufleet::canary::vendor {
namespace {

VendorSpec MakeCuda() {
  VendorSpec s{};
  s.vendor = GpuVendor::kNvidia;
  s.runtime_libraries = {"libcudart.so.12", "libcudart.so.13", "libcudart.so.11.0", "libcudart.so"};
  s.blas_libraries = {"libcublas.so.12", "libcublas.so.13", "libcublas.so.11", "libcublas.so"};
  s.ccl_libraries = {"libnccl.so.2", "libnccl.so"};
  s.runtime_prefix = "cuda";
  // CUDA 12 keeps the old name for the CUDA 11 struct layout; CUDA 13
  // exports only the old name again (its own layout). The name is the first
  // member of every layout.
  s.device_properties_symbols = {"cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"};
  s.host_alloc_symbol = "cudaHostAlloc";
  s.host_free_symbol = "cudaFreeHost";
  s.blas_create = "cublasCreate_v2";
  s.blas_destroy = "cublasDestroy_v2";
  s.blas_set_stream = "cublasSetStream_v2";
  s.blas_get_version = "cublasGetVersion_v2";
  s.blas_gemm_ex = "cublasGemmEx";
  s.blas_saxpy = "cublasSaxpy_v2";
  s.runtime_name = "cuda";
  s.blas_name = "cublas";
  s.ccl_name = "nccl";
  s.op_n = 0;                // CUBLAS_OP_N
  s.gemm_algo_default = -1;  // CUBLAS_GEMM_DEFAULT
  s.compute_32f = 68;        // CUBLAS_COMPUTE_32F
  return s;
}

VendorSpec MakeHip() {
  VendorSpec s{};
  s.vendor = GpuVendor::kAmd;
  s.runtime_libraries = {"libamdhip64.so.6", "libamdhip64.so.7", "libamdhip64.so"};
  s.blas_libraries = {"libhipblas.so.2", "libhipblas.so.3", "libhipblas.so"};
  s.ccl_libraries = {"librccl.so.1", "librccl.so"};
  s.runtime_prefix = "hip";
  // ROCm 6 renamed the struct's entry point; the old one is kept for the
  // ROCm 5 layout. The name is the first member of both.
  s.device_properties_symbols = {"hipGetDevicePropertiesR0600", "hipGetDeviceProperties"};
  s.host_alloc_symbol = "hipHostMalloc";
  s.host_free_symbol = "hipHostFree";
  s.blas_create = "hipblasCreate";
  s.blas_destroy = "hipblasDestroy";
  s.blas_set_stream = "hipblasSetStream";
  s.blas_get_version = "";  // hipBLAS has no run-time version query
  // The hipDataType / hipblasComputeType_t form (ROCm 6); the plain
  // hipblasGemmEx of ROCm 6 takes the older hipblasDatatype_t values.
  s.blas_gemm_ex = "hipblasGemmEx_v2";
  s.blas_saxpy = "hipblasSaxpy";
  s.runtime_name = "rocm";
  s.blas_name = "hipblas";
  s.ccl_name = "rccl";
  s.op_n = 111;               // HIPBLAS_OP_N
  s.gemm_algo_default = 160;  // HIPBLAS_GEMM_DEFAULT
  s.compute_32f = 2;          // HIPBLAS_COMPUTE_32F
  return s;
}

}  // namespace

const VendorSpec& SpecFor(GpuVendor v) {
  static const VendorSpec* const cuda = new VendorSpec(MakeCuda());
  static const VendorSpec* const hip = new VendorSpec(MakeHip());
  return v == GpuVendor::kAmd ? *hip : *cuda;
}

std::string RuntimeVersionName(GpuVendor v, int version) {
  if (v == GpuVendor::kAmd) {
    return "rocm-" + std::to_string(version / 10000000) + "." +
           std::to_string((version / 100000) % 100);
  }
  return "cuda-" + std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string CclVersionName(int version) {
  if (version < 2900) {  // NCCL < 2.9: major * 1000 + minor * 100 + patch
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 100) + "." +
           std::to_string(version % 100);
  }
  return BlasVersionName(version);
}

std::string BlasVersionName(int version) {
  return std::to_string(version / 10000) + "." + std::to_string((version % 10000) / 100) + "." +
         std::to_string(version % 100);
}

}  // namespace gpufleet::canary::vendor
