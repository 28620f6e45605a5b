// LoadedGpuRuntime's optional libraries: BLAS (GemmEx, saxpy), BLASLt (fp8
// GEMM) and the collective library (all-reduce). Contract in
// loaded_gpu_runtime.h and gpu_runtime.h.
#include "canary/loaded_gpu_runtime.h"

#include <string>
#include <utility>
#include <vector>

namespace gpufleet::canary {

using namespace vendor;  // NOLINT(build/namespaces): the function pointer types

Status LoadedGpuRuntime::Gemm(GemmPrecision precision, int n, const void* a, const void* b, void* c,
                              void* stream) {
  // fp8 needs only BLASLt, not the BLAS library.
  if (precision == GemmPrecision::kFp8) return Fp8Gemm(n, a, b, c, stream);
  RETURN_IF_ERROR(blas_status_);
  int type = 0;
  switch (precision) {
    case GemmPrecision::kFp32:
      type = spec_.type_fp32;
      break;
    case GemmPrecision::kFp16:
      type = spec_.type_fp16;
      break;
    case GemmPrecision::kBf16:
      type = spec_.type_bf16;
      break;
    case GemmPrecision::kFp8:
      break;  // handled above
  }
  ASSIGN_OR_RETURN(void* handle, BlasHandle(stream));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  return Check(gemm_ex_(handle, spec_.op_n, spec_.op_n, n, n, n, &alpha, a, type, n, b, type, n,
                        &beta, c, type, n, spec_.compute_32f, spec_.gemm_algo_default),
               spec_.blas_gemm_ex, /*blas=*/true);
}

Status LoadedGpuRuntime::Axpy(int n, float alpha, const void* x, void* y, void* stream) {
  RETURN_IF_ERROR(blas_status_);
  ASSIGN_OR_RETURN(void* handle, BlasHandle(stream));
  return Check(
      saxpy_(handle, n, &alpha, static_cast<const float*>(x), 1, static_cast<float*>(y), 1),
      spec_.blas_saxpy, /*blas=*/true);
}

Status LoadedGpuRuntime::AllReduceSum(const std::vector<void*>& send,
                                      const std::vector<void*>& recv, size_t count,
                                      const std::vector<void*>& streams) {
  RETURN_IF_ERROR(ccl_status_);
  size_t n = static_cast<size_t>(device_count_);
  if (send.size() != n || recv.size() != n || streams.size() != n) {
    return InvalidArgumentError("AllReduceSum: need one buffer pair and stream per device (" +
                                std::to_string(n) + ")");
  }
  if (comms_.empty()) {
    std::vector<void*> comms(n, nullptr);
    std::vector<int> devs(n);
    for (size_t i = 0; i < n; ++i) devs[i] = static_cast<int>(i);
    RETURN_IF_ERROR(
        CclCheck(ccl_comm_init_all_(comms.data(), device_count_, devs.data()), "ncclCommInitAll"));
    comms_ = std::move(comms);
  }
  RETURN_IF_ERROR(CclCheck(ccl_group_start_(), "ncclGroupStart"));
  Status launch = OkStatus();
  for (size_t i = 0; i < n && launch.ok(); ++i) {
    launch = CclCheck(ccl_all_reduce_(send[i], recv[i], count, spec_.ccl_float32, spec_.ccl_sum,
                                      comms_[i], streams[i]),
                      "ncclAllReduce");
  }
  Status end = CclCheck(ccl_group_end_(), "ncclGroupEnd");
  RETURN_IF_ERROR(launch);
  return end;
}

Status LoadedGpuRuntime::Fp8Gemm(int n, const void* a, const void* b, void* c, void* stream) {
  Fp8State& st = fp8_[static_cast<size_t>(current_device_)];
  if (st.plan == nullptr || st.plan->n() != n) {
    if (device_get_attribute_ == nullptr) {
      return UnavailableError(runtime_->path() + " lacks " + spec_.runtime_prefix +
                              "DeviceGetAttribute (needed to tell whether the GPU has fp8)");
    }
    int major = 0, minor = 0;
    RETURN_IF_ERROR(Check(device_get_attribute_(&major, spec_.attr_cc_major, current_device_),
                          spec_.runtime_prefix + "DeviceGetAttribute"));
    RETURN_IF_ERROR(Check(device_get_attribute_(&minor, spec_.attr_cc_minor, current_device_),
                          spec_.runtime_prefix + "DeviceGetAttribute"));
    ASSIGN_OR_RETURN(Fp8Support support, Fp8SupportFor(spec_, major, minor));
    RETURN_IF_ERROR(blas_lt_->status());
    st.plan.reset();
    if (st.workspace == nullptr) {
      RETURN_IF_ERROR(
          Check(malloc_(&st.workspace, kLtWorkspaceBytes), spec_.runtime_prefix + "Malloc"));
    }
    ASSIGN_OR_RETURN(st.plan,
                     blas_lt_->MakePlan(n, support.data_type, st.workspace, kLtWorkspaceBytes));
  }
  return blas_lt_->Run(*st.plan, a, b, c, stream);
}

void LoadedGpuRuntime::LoadBlas(const std::string& dir) {
  StatusOr<std::unique_ptr<DynamicLibrary>> lib = OpenVendorLibrary(dir, spec_.blas_libraries);
  if (!lib.ok()) {
    blas_status_ = lib.status();
    return;
  }
  blas_ = std::move(lib).value();
  std::string missing;
  blas_->Require(spec_.blas_create, blas_create_, &missing);
  blas_->Require(spec_.blas_destroy, blas_destroy_, &missing);
  blas_->Require(spec_.blas_set_stream, blas_set_stream_, &missing);
  if (!blas_->Bind(spec_.blas_gemm_ex, gemm_ex_) && !spec_.blas_gemm_ex_fallback.empty() &&
      blas_->Symbol(spec_.blas_gemm_ex_fallback_marker.c_str()) != nullptr) {
    blas_->Bind(spec_.blas_gemm_ex_fallback, gemm_ex_);
  }
  if (gemm_ex_ == nullptr) missing += (missing.empty() ? "" : ", ") + spec_.blas_gemm_ex;
  blas_->Require(spec_.blas_saxpy, saxpy_, &missing);
  if (!spec_.blas_get_version.empty()) blas_->Bind(spec_.blas_get_version, blas_get_version_);
  if (!missing.empty()) {
    blas_status_ = UnavailableError(blas_->path() + " lacks symbol(s): " + missing);
    return;
  }
  // A handle for device 0 up front, so Target() can ask for the version.
  if (set_device_(0) == 0) {
    void* h = nullptr;
    int rc = blas_create_(&h);
    if (rc != 0) {
      blas_status_ =
          UnavailableError(spec_.blas_create + " failed with status " + std::to_string(rc));
      return;
    }
    blas_handles_[0] = h;
  }
}

void LoadedGpuRuntime::LoadCollectives(const std::string& dir) {
  StatusOr<std::unique_ptr<DynamicLibrary>> lib = OpenVendorLibrary(dir, spec_.ccl_libraries);
  if (!lib.ok()) {
    ccl_status_ = lib.status();
    return;
  }
  ccl_ = std::move(lib).value();
  std::string missing;
  ccl_->Require("ncclCommInitAll", ccl_comm_init_all_, &missing);
  ccl_->Require("ncclCommDestroy", ccl_comm_destroy_, &missing);
  ccl_->Require("ncclAllReduce", ccl_all_reduce_, &missing);
  ccl_->Require("ncclGroupStart", ccl_group_start_, &missing);
  ccl_->Require("ncclGroupEnd", ccl_group_end_, &missing);
  ccl_->Bind("ncclGetVersion", ccl_get_version_);
  ccl_->Bind("ncclGetErrorString", ccl_get_error_string_);
  if (!missing.empty())
    ccl_status_ = UnavailableError(ccl_->path() + " lacks symbol(s): " + missing);
}

StatusOr<void*> LoadedGpuRuntime::BlasHandle(void* stream) {
  void*& h = blas_handles_[static_cast<size_t>(current_device_)];
  if (h == nullptr) RETURN_IF_ERROR(Check(blas_create_(&h), spec_.blas_create, true));
  RETURN_IF_ERROR(Check(blas_set_stream_(h, stream), spec_.blas_set_stream, true));
  return h;
}

Status LoadedGpuRuntime::CclCheck(int rc, const std::string& call) const {
  if (rc == 0) return OkStatus();
  std::string what = std::to_string(rc);
  if (ccl_get_error_string_ != nullptr) {
    const char* s = ccl_get_error_string_(rc);
    if (s != nullptr) what += " (" + std::string(s) + ")";
  }
  return InternalError(spec_.ccl_name + ": " + call + " failed with " + what);
}

}  // namespace gpufleet::canary
