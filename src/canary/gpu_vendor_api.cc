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
  s.attr_cc_major = 75;      // cudaDevAttrComputeCapabilityMajor
  s.attr_cc_minor = 76;
  s.blaslt_libraries = {"libcublasLt.so.12", "libcublasLt.so.13", "libcublasLt.so.11",
                        "libcublasLt.so"};
  s.lt_prefix = "cublasLt";
  s.blaslt_name = "cublaslt";
  s.op_t = 1;                         // CUBLAS_OP_T
  s.lt_desc_transa = 3;               // CUBLASLT_MATMUL_DESC_TRANSA
  s.lt_desc_transb = 4;               // CUBLASLT_MATMUL_DESC_TRANSB
  s.lt_pref_max_workspace = 1;        // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
  s.lt_heuristic_state_offset = 72;   // after cublasLtMatmulAlgo_t (64) + workspaceSize
  s.type_fp8_e4m3 = 28;               // CUDA_R_8F_E4M3
  // The driver API: the runtime's primary context is current after
  // cudaSetDevice + cudaMalloc, and modules are loaded into it.
  s.module_libraries = {"libcuda.so.1", "libcuda.so"};
  s.sym_init = "cuInit";
  s.sym_ctx_get_current = "cuCtxGetCurrent";
  s.sym_module_load_data = "cuModuleLoadData";
  s.sym_module_get_function = "cuModuleGetFunction";
  s.sym_launch_kernel = "cuLaunchKernel";
  s.sym_get_error_string = "cuGetErrorString";
  s.module_compiler = "nvcc";
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
  // The hipDataType / hipblasComputeType_t form. hipBLAS 2 (ROCm 6) exports
  // it as hipblasGemmEx_v2 (its plain hipblasGemmEx takes the older
  // hipblasDatatype_t values, so must not be called with ours). hipBLAS 3
  // (ROCm 7) removed the _v2 names and gave plain hipblasGemmEx this
  // signature; hipblasSetWorkspace, new in 3.0, tells the two apart.
  s.blas_gemm_ex = "hipblasGemmEx_v2";
  s.blas_gemm_ex_fallback = "hipblasGemmEx";
  s.blas_gemm_ex_fallback_marker = "hipblasSetWorkspace";
  s.blas_saxpy = "hipblasSaxpy";
  s.runtime_name = "rocm";
  s.blas_name = "hipblas";
  s.ccl_name = "rccl";
  s.op_n = 111;               // HIPBLAS_OP_N
  s.gemm_algo_default = 160;  // HIPBLAS_GEMM_DEFAULT
  s.compute_32f = 2;          // HIPBLAS_COMPUTE_32F
  s.attr_cc_major = 23;       // hipDeviceAttributeComputeCapabilityMajor
  s.attr_cc_minor = 61;       // hipDeviceAttributeComputeCapabilityMinor
  s.blaslt_libraries = {"libhipblaslt.so.0", "libhipblaslt.so.1", "libhipblaslt.so"};
  s.lt_prefix = "hipblasLt";
  s.blaslt_name = "hipblaslt";
  s.op_t = 112;                       // HIPBLAS_OP_T
  s.lt_desc_transa = 0;               // HIPBLASLT_MATMUL_DESC_TRANSA
  s.lt_desc_transb = 1;               // HIPBLASLT_MATMUL_DESC_TRANSB
  s.lt_pref_max_workspace = 1;        // HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
  s.lt_heuristic_state_offset = 32;   // after hipblasLtMatmulAlgo_t (24) + workspaceSize
  s.type_fp8_e4m3 = 28;               // HIP_R_8F_E4M3 (OCP, gfx950)
  s.type_fp8_e4m3_fnuz = 1000;        // HIP_R_8F_E4M3_FNUZ (gfx94x)
  // HIP's module API lives in libamdhip64 itself and works on the current
  // device; no separate driver library, no init or context call.
  s.sym_module_load_data = "hipModuleLoadData";
  s.sym_module_get_function = "hipModuleGetFunction";
  s.sym_launch_kernel = "hipModuleLaunchKernel";
  s.module_compiler = "hipcc";
  return s;
}

}  // namespace

const VendorSpec& SpecFor(GpuVendor v) {
  static const VendorSpec* const cuda = new VendorSpec(MakeCuda());
  static const VendorSpec* const hip = new VendorSpec(MakeHip());
  return v == GpuVendor::kAmd ? *hip : *cuda;
}

StatusOr<Fp8Support> Fp8SupportFor(const VendorSpec& spec, int cc_major, int cc_minor) {
  if (spec.vendor == GpuVendor::kAmd) {
    std::string arch = "gfx" + std::to_string(cc_major) + "." + std::to_string(cc_minor);
    if (cc_major == 9 && cc_minor == 4) return Fp8Support{spec.type_fp8_e4m3_fnuz, "gfx94x"};
    if (cc_major == 9 && cc_minor == 5) return Fp8Support{spec.type_fp8_e4m3, "gfx950"};
    return UnimplementedError("fp8 GEMM needs gfx942 or gfx950 (MI300/MI350); this GPU is " +
                              arch);
  }
  std::string arch = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  if (cc_major > 8 || (cc_major == 8 && cc_minor >= 9)) {
    return Fp8Support{spec.type_fp8_e4m3, arch};
  }
  return UnimplementedError("fp8 GEMM needs compute capability 8.9 or newer; this GPU is " + arch);
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
