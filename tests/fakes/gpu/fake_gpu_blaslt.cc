// The fake BLASLt library (libcublasLt.so.12 / libhipblaslt.so.0): fp8 GEMM
// as src/canary/blas_lt.cc drives it. Every descriptor value is checked
// against what fp8 needs (E4M3 A and B, bf16 C/D, A transposed, fp32
// compute and scale) with the vendor's enum values, so a wrong number in
// src/canary/gpu_vendor_api.cc fails here. Matmul advances the clock by
// 2 n^3 / gemm_tflops.fp8.
#include <cstdint>
#include <cstring>

#include "tests/fakes/gpu/fake_gpu_control.h"
#include "tests/fakes/gpu/fake_gpu_vendor.h"

namespace {

constexpr int kOk = 0;
constexpr int kTypeFp32 = 0, kTypeBf16 = 14, kTypeE4m3 = 28;
constexpr int kPrefMaxWorkspace = 1;
constexpr uint64_t kAlgoMarker = 0x6670384c74414c47ULL;

struct Handle {
  int device;
};
struct Desc {
  int compute, scale;
  int transa = -1, transb = -1;
};
struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
};
struct Pref {
  uint64_t max_workspace = 0;
};

// The fp8 type this fake GPU takes: OCP E4M3 on CUDA and on gfx950, FNUZ
// on gfx94x.
int Fp8Type() {
#if defined(FAKE_GPU_HIP)
  constexpr int kTypeE4m3Fnuz = 1000;
  return FAKE_CTL(Number)("cc_minor", FAKE_DEFAULT_CC_MINOR) == 4 ? kTypeE4m3Fnuz : kTypeE4m3;
#else
  return kTypeE4m3;
#endif
}

bool Fp8Problem(const Desc* d, const Layout* a, const Layout* b, const Layout* c,
                const Layout* dl) {
  return d != nullptr && a != nullptr && b != nullptr && c != nullptr && dl != nullptr &&
         d->compute == FAKE_BLAS_COMPUTE_32F && d->scale == kTypeFp32 &&
         d->transa == FAKE_BLAS_OP_T && d->transb == FAKE_BLAS_OP_N && a->type == Fp8Type() &&
         b->type == Fp8Type() && c->type == kTypeBf16 && dl->type == kTypeBf16 &&
         a->rows == b->rows && a->ld >= static_cast<int64_t>(a->rows) &&
         b->ld >= static_cast<int64_t>(b->rows) && dl->rows == a->cols && dl->cols == b->cols;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int FAKE_LT(Create)(void** handle) {
  if (handle == nullptr) return FAKE_BLAS_INVALID_VALUE;
  *handle = new Handle{FAKE_CTL(CurrentDevice)()};
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(Destroy)(void* handle) {
  delete static_cast<Handle*>(handle);
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulDescCreate)(void** desc, int compute,
                                                                    int scale) {
  if (desc == nullptr) return FAKE_BLAS_INVALID_VALUE;
  *desc = new Desc{compute, scale};
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulDescSetAttribute)(void* desc, int attr,
                                                                          const void* value,
                                                                          size_t bytes) {
  auto* d = static_cast<Desc*>(desc);
  if (d == nullptr || value == nullptr || bytes != sizeof(int32_t)) return FAKE_BLAS_INVALID_VALUE;
  int32_t v = 0;
  std::memcpy(&v, value, sizeof(v));
  if (attr == FAKE_LT_DESC_TRANSA) {
    d->transa = v;
  } else if (attr == FAKE_LT_DESC_TRANSB) {
    d->transb = v;
  } else {
    return FAKE_BLAS_INVALID_VALUE;
  }
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulDescDestroy)(void* desc) {
  delete static_cast<Desc*>(desc);
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatrixLayoutCreate)(void** layout, int type,
                                                                      uint64_t rows, uint64_t cols,
                                                                      int64_t ld) {
  if (layout == nullptr || rows == 0 || cols == 0 || ld <= 0) return FAKE_BLAS_INVALID_VALUE;
  *layout = new Layout{type, rows, cols, ld};
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatrixLayoutDestroy)(void* layout) {
  delete static_cast<Layout*>(layout);
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulPreferenceCreate)(void** pref) {
  if (pref == nullptr) return FAKE_BLAS_INVALID_VALUE;
  *pref = new Pref();
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulPreferenceSetAttribute)(
    void* pref, int attr, const void* value, size_t bytes) {
  if (pref == nullptr || value == nullptr || attr != kPrefMaxWorkspace ||
      bytes != sizeof(uint64_t)) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  std::memcpy(&static_cast<Pref*>(pref)->max_workspace, value, sizeof(uint64_t));
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulPreferenceDestroy)(void* pref) {
  delete static_cast<Pref*>(pref);
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(MatmulAlgoGetHeuristic)(
    void* handle, void* desc, void* a, void* b, void* c, void* d, void* pref, int requested,
    void* results, int* returned) {
  if (handle == nullptr || pref == nullptr || requested < 1 || results == nullptr ||
      returned == nullptr) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  if (!Fp8Problem(static_cast<Desc*>(desc), static_cast<Layout*>(a), static_cast<Layout*>(b),
                  static_cast<Layout*>(c), static_cast<Layout*>(d))) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  *returned = 0;
  if (FAKE_CTL(Number)("fp8_no_algorithm", 0) != 0) return kOk;
  auto* out = static_cast<unsigned char*>(results);
  std::memcpy(out, &kAlgoMarker, sizeof(kAlgoMarker));
  int32_t state = kOk;
  std::memcpy(out + FAKE_LT_STATE_OFFSET, &state, sizeof(state));
  *returned = 1;
  return kOk;
}

__attribute__((visibility("default"))) int FAKE_LT(Matmul)(
    void* handle, void* desc, const void* alpha, const void* a, void* a_desc, const void* b,
    void* b_desc, const void* beta, const void* c, void* c_desc, void* d, void* d_desc,
    const void* algo, void* workspace, size_t workspace_bytes, void* stream) {
  if (handle == nullptr || alpha == nullptr || beta == nullptr || a == nullptr || b == nullptr ||
      c == nullptr || d == nullptr || algo == nullptr ||
      (workspace_bytes > 0 && workspace == nullptr)) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  uint64_t marker = 0;
  std::memcpy(&marker, algo, sizeof(marker));
  auto* dl = static_cast<Layout*>(d_desc);
  if (marker != kAlgoMarker ||
      !Fp8Problem(static_cast<Desc*>(desc), static_cast<Layout*>(a_desc),
                  static_cast<Layout*>(b_desc), static_cast<Layout*>(c_desc), dl)) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  if (static_cast<Handle*>(handle)->device != FAKE_CTL(CurrentDevice)()) {
    return FAKE_BLAS_INVALID_VALUE;
  }
  if (FAKE_CTL(ShouldFail)(FAKE_STR(FAKE_LT(Matmul)))) return FAKE_BLAS_INVALID_VALUE;
  double k = static_cast<double>(static_cast<Layout*>(a_desc)->rows);
  double flops = 2.0 * static_cast<double>(dl->rows) * static_cast<double>(dl->cols) * k;
  FAKE_CTL(Advance)(stream, flops / (FAKE_CTL(Number)("gemm_tflops.fp8", 1500) * 1e12));
  return kOk;
}

}  // extern "C"
