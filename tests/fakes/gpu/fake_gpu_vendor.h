// Name mangling shared by the fake GPU libraries: one source, built once as
// the CUDA stack and once as the HIP stack. Private to tests/fakes/gpu/.
#pragma once

#if defined(FAKE_GPU_HIP)
#define FAKE_RT(name) hip##name
#define FAKE_CTL(name) FakeHip_##name
#define FAKE_CONFIG_ENV "GPUFLEET_FAKE_HIP_CONFIG"
#define FAKE_DEFAULT_NAME "AMD Instinct MI300X OAM"
#define FAKE_DEFAULT_RUNTIME_VERSION 60241134
#define FAKE_BLAS_OP_N 111
#define FAKE_BLAS_COMPUTE_32F 2
#define FAKE_BLAS_ALGO_DEFAULT 160
#define FAKE_BLAS_INVALID_VALUE 3  // HIPBLAS_STATUS_INVALID_VALUE
#define FAKE_CCL_VERSION 21903     // RCCL 2.19.3
#define FAKE_ATTR_CC_MAJOR 23      // hipDeviceAttributeComputeCapabilityMajor
#define FAKE_ATTR_CC_MINOR 61
#define FAKE_DEFAULT_CC_MAJOR 9  // gfx942 (MI300X)
#define FAKE_DEFAULT_CC_MINOR 4
#define FAKE_LT(name) hipblasLt##name
#define FAKE_BLAS_OP_T 112
#define FAKE_LT_DESC_TRANSA 0
#define FAKE_LT_DESC_TRANSB 1
#define FAKE_LT_STATE_OFFSET 32  // hipblasLtMatmulHeuristicResult_t.state
#define FAKE_MODULE(name) hipModule##name
#elif defined(FAKE_GPU_CUDA)
#define FAKE_RT(name) cuda##name
#define FAKE_CTL(name) FakeCuda_##name
#define FAKE_CONFIG_ENV "GPUFLEET_FAKE_CUDA_CONFIG"
#define FAKE_DEFAULT_NAME "NVIDIA H200"
#define FAKE_DEFAULT_RUNTIME_VERSION 12040
#define FAKE_BLAS_OP_N 0
#define FAKE_BLAS_COMPUTE_32F 68
#define FAKE_BLAS_ALGO_DEFAULT (-1)
#define FAKE_BLAS_INVALID_VALUE 7  // CUBLAS_STATUS_INVALID_VALUE
#define FAKE_CCL_VERSION 22105     // NCCL 2.21.5
#define FAKE_ATTR_CC_MAJOR 75      // cudaDevAttrComputeCapabilityMajor
#define FAKE_ATTR_CC_MINOR 76
#define FAKE_DEFAULT_CC_MAJOR 9  // sm_90 (H100/H200)
#define FAKE_DEFAULT_CC_MINOR 0
#define FAKE_LT(name) cublasLt##name
#define FAKE_BLAS_OP_T 1
#define FAKE_LT_DESC_TRANSA 3
#define FAKE_LT_DESC_TRANSB 4
#define FAKE_LT_STATE_OFFSET 72  // cublasLtMatmulHeuristicResult_t.state
#define FAKE_MODULE(name) cuModule##name
#else
#error "define FAKE_GPU_CUDA or FAKE_GPU_HIP"
#endif

// cudaError_t / hipError_t values used by the fakes (same numbers in both).
inline constexpr int kFakeSuccess = 0;
inline constexpr int kFakeInvalidValue = 1;
inline constexpr int kFakeInvalidDevice = 101;
inline constexpr int kFakeNotReady = 600;
inline constexpr int kFakeNotFound = 500;       // CUDA_ERROR_NOT_FOUND == hipErrorNotFound
inline constexpr int kFakeInvalidHandle = 400;  // CUDA_ERROR_INVALID_HANDLE == hipErrorInvalidHandle
inline constexpr int kFakeInvalidImage = 200;   // CUDA_ERROR_INVALID_IMAGE == hipErrorInvalidImage

#define FAKE_STR_INNER(x) #x
#define FAKE_STR(x) FAKE_STR_INNER(x)
