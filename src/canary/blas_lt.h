// BlasLt: fp8 GEMM through cuBLASLt (libcublasLt.so.12/13) or hipBLASLt
// (libhipblaslt.so.0), loaded with dlopen like the rest of the GPU stack.
// D (bf16, n x n) = op(A) * B with A and B n x n E4M3 fp8, fp32 compute and
// scale, A transposed ("TN", the layout fp8 requires on Hopper and MI300).
// Private to canary/ (gpu_runtime.cc owns one).
//
// Thread safety: none; one runner thread.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "canary/gpu_vendor_api.h"
#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet::canary {

class BlasLt;

// One problem shape on one device: handle, descriptors and the algorithm the
// library's heuristic chose. Destroys them on destruction (on the device
// that was current when it was made; the caller makes it current again).
class Fp8GemmPlan {
 public:
  ~Fp8GemmPlan();
  Fp8GemmPlan(const Fp8GemmPlan&) = delete;
  Fp8GemmPlan& operator=(const Fp8GemmPlan&) = delete;
  int n() const { return n_; }
  int data_type() const { return data_type_; }

 private:
  friend class BlasLt;
  explicit Fp8GemmPlan(const BlasLt& lt) : lt_(lt) {}
  const BlasLt& lt_;
  int n_ = 0;
  int data_type_ = 0;
  void* handle_ = nullptr;
  void* desc_ = nullptr;
  void* a_layout_ = nullptr;
  void* b_layout_ = nullptr;
  void* d_layout_ = nullptr;
  void* pref_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  // The heuristic result; the algorithm is its first member. Larger than
  // either vendor's struct (96 / 56 bytes).
  alignas(16) std::array<unsigned char, vendor::kLtHeuristicResultBufferBytes> result_{};
};

class BlasLt {
 public:
  // Never null. A missing library or symbol is kept in status(), not fatal.
  static std::unique_ptr<BlasLt> Load(const vendor::VendorSpec& spec, const std::string& dir);

  // OK, or Unavailable naming the library or the missing symbols.
  const Status& status() const { return status_; }
  const std::string& path() const;

  // Makes a plan for n x n x n with the fp8 `data_type` (CUDA_R_8F_E4M3 /
  // HIP_R_8F_E4M3(_FNUZ)) on the current device. `workspace` is device
  // memory of `workspace_bytes` the caller keeps alive as long as the plan.
  // Unimplemented when the heuristic finds no algorithm (the library has no
  // fp8 kernel for this GPU).
  StatusOr<std::unique_ptr<Fp8GemmPlan>> MakePlan(int n, int data_type, void* workspace,
                                                  size_t workspace_bytes) const;
  // Enqueues one GEMM on `stream`. a, b: n*n bytes; d: n*n bf16.
  Status Run(const Fp8GemmPlan& plan, const void* a, const void* b, void* d, void* stream) const;

 private:
  friend class Fp8GemmPlan;
  explicit BlasLt(const vendor::VendorSpec& spec) : spec_(spec) {}
  Status Check(int rc, const char* what) const;

  const vendor::VendorSpec& spec_;
  std::unique_ptr<DynamicLibrary> lib_;
  Status status_ = OkStatus();

  vendor::LtCreateFn* create_ = nullptr;
  vendor::LtDestroyFn* destroy_ = nullptr;
  vendor::LtMatmulDescCreateFn* desc_create_ = nullptr;
  vendor::LtSetAttributeFn* desc_set_ = nullptr;
  vendor::LtDestroyObjectFn* desc_destroy_ = nullptr;
  vendor::LtMatrixLayoutCreateFn* layout_create_ = nullptr;
  vendor::LtDestroyObjectFn* layout_destroy_ = nullptr;
  vendor::LtPreferenceCreateFn* pref_create_ = nullptr;
  vendor::LtSetAttributeFn* pref_set_ = nullptr;
  vendor::LtDestroyObjectFn* pref_destroy_ = nullptr;
  vendor::LtAlgoGetHeuristicFn* heuristic_ = nullptr;
  vendor::LtMatmulFn* matmul_ = nullptr;
};

}  // namespace gpufleet::canary
