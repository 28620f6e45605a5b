// The fake BLAS library (libcublas.so.12 / libhipblas.so.2, or with
// FAKE_HIPBLAS_V3 libhipblas.so.3 of ROCm 7): GemmEx and Saxpy
// advance the owning device's virtual clock by work / scripted rate. The
// enum arguments are checked against the vendor's documented values, so a
// wrong value in src/canary/gpu_vendor_api.h fails here, not silently.
#include <cstring>
#include <string>

#include "tests/fakes/gpu/fake_gpu_control.h"
#include "tests/fakes/gpu/fake_gpu_vendor.h"

namespace {

struct FakeHandle {
  void* stream = nullptr;
};

#if defined(FAKE_GPU_HIP)
#define FAKE_BLAS(name) hipblas##name
#define FAKE_BLAS_V2(name) hipblas##name
#if defined(FAKE_HIPBLAS_V3) || defined(FAKE_HIPBLAS_LEGACY)
#define FAKE_GEMM_EX hipblasGemmEx  // hipBLAS 3 (ROCm 7) / pre-2.0 name
#else
#define FAKE_GEMM_EX hipblasGemmEx_v2  // hipBLAS 2 (ROCm 6)
#endif
#else
#define FAKE_BLAS(name) cublas##name
#define FAKE_BLAS_V2(name) cublas##name##_v2
#define FAKE_GEMM_EX cublasGemmEx
#endif

constexpr int kBlasSuccess = 0;

#if !defined(FAKE_GPU_NO_GEMM)
// fp32 0, fp16 2, bf16 14 (cudaDataType == hipDataType).
const char* PrecisionKey(int type) {
  switch (type) {
    case 0:
      return "gemm_tflops.fp32";
    case 2:
      return "gemm_tflops.fp16";
    case 14:
      return "gemm_tflops.bf16";
    default:
      return nullptr;
  }
}

double DefaultTflops(int type) { return type == 0 ? 50 : 750; }
#endif

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int FAKE_BLAS_V2(Create)(void** handle) {
  if (handle == nullptr) return FAKE_BLAS_INVALID_VALUE;
  *handle = new FakeHandle();
  return kBlasSuccess;
}

__attribute__((visibility("default"))) int FAKE_BLAS_V2(Destroy)(void* handle) {
  delete static_cast<FakeHandle*>(handle);
  return kBlasSuccess;
}

__attribute__((visibility("default"))) int FAKE_BLAS_V2(SetStream)(void* handle, void* stream) {
  if (handle == nullptr) return FAKE_BLAS_INVALID_VALUE;
  static_cast<FakeHandle*>(handle)->stream = stream;
  return kBlasSuccess;
}

#if defined(FAKE_GPU_CUDA)
__attribute__((visibility("default"))) int cublasGetVersion_v2(void* handle, int* version) {
  if (handle == nullptr || version == nullptr) return FAKE_BLAS_INVALID_VALUE;
  *version = 120403;  // cuBLAS 12.4.3
  return kBlasSuccess;
}
#endif

#if !defined(FAKE_GPU_NO_GEMM)
__attribute__((visibility("default"))) int FAKE_GEMM_EX(void* handle, int transa, int transb, int m,
                                                        int n, int k, const void* alpha,
                                                        const void* a, int a_type, int lda,
                                                        const void* b, int b_type, int ldb,
                                                        const void* beta, void* c, int c_type,
                                                        int ldc, int compute_type, int algo) {
  const char* key = PrecisionKey(a_type);
  if (handle == nullptr || alpha == nullptr || beta == nullptr || a == nullptr || b == nullptr ||
      c == nullptr || key == nullptr || b_type != a_type || c_type != a_type ||
      transa != FAKE_BLAS_OP_N || transb != FAKE_BLAS_OP_N ||
      compute_type != FAKE_BLAS_COMPUTE_32F || algo != FAKE_BLAS_ALGO_DEFAULT || m <= 0 || n <= 0 ||
      k <= 0 || lda < m || ldb < k || ldc < m) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  if (FAKE_CTL(ShouldFail)(FAKE_STR(FAKE_GEMM_EX))) return FAKE_BLAS_INVALID_VALUE;
  double flops = 2.0 * m * n * static_cast<double>(k);
  double rate = FAKE_CTL(Number)(key, DefaultTflops(a_type)) * 1e12;
  FAKE_CTL(Advance)(static_cast<FakeHandle*>(handle)->stream, flops / rate);
  return kBlasSuccess;
}
#endif

__attribute__((visibility("default"))) int FAKE_BLAS_V2(Saxpy)(void* handle, int n,
                                                               const float* alpha, const float* x,
                                                               int incx, float* y, int incy) {
  if (handle == nullptr || alpha == nullptr || x == nullptr || y == nullptr || n < 0 || incx != 1 ||
      incy != 1) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  // Reads x and y, writes y.
  double bytes = 3.0 * n * sizeof(float);
  double rate = FAKE_CTL(Number)("memory_gbps", 4000) * 1e9;
  FAKE_CTL(Advance)(static_cast<FakeHandle*>(handle)->stream, bytes / rate);
  return kBlasSuccess;
}

#if defined(FAKE_HIPBLAS_V3)
// New in hipBLAS 3.0; the loader takes it as the sign that plain
// hipblasGemmEx has the hipDataType / hipblasComputeType_t signature.
__attribute__((visibility("default"))) int hipblasSetWorkspace(void* handle, void* /*workspace*/,
                                                               size_t /*bytes*/) {
  return handle == nullptr ? FAKE_BLAS_INVALID_VALUE : kBlasSuccess;
}
#endif

}  // extern "C"
