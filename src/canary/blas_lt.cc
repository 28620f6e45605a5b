#include "canary/blas_lt.h"

#include <cstdint>
#include <cstring>

namespace gpufleet::canary {

std::unique_ptr<BlasLt> BlasLt::Load(const vendor::VendorSpec& spec, const std::string& dir) {
  std::unique_ptr<BlasLt> lt(new BlasLt(spec));
  StatusOr<std::unique_ptr<DynamicLibrary>> lib = DynamicLibrary::OpenIn(dir, spec.blaslt_libraries);
  if (!lib.ok()) {
    lt->status_ = UnavailableError(lib.status().message());
    return lt;
  }
  lt->lib_ = std::move(lib).value();
  lt->lib_->KeepLoadedAtDestruction();
  const DynamicLibrary& l = *lt->lib_;
  const std::string& p = spec.lt_prefix;
  std::string missing;
  l.Require(p + "Create", lt->create_, &missing);
  l.Require(p + "Destroy", lt->destroy_, &missing);
  l.Require(p + "MatmulDescCreate", lt->desc_create_, &missing);
  l.Require(p + "MatmulDescSetAttribute", lt->desc_set_, &missing);
  l.Require(p + "MatmulDescDestroy", lt->desc_destroy_, &missing);
  l.Require(p + "MatrixLayoutCreate", lt->layout_create_, &missing);
  l.Require(p + "MatrixLayoutDestroy", lt->layout_destroy_, &missing);
  l.Require(p + "MatmulPreferenceCreate", lt->pref_create_, &missing);
  l.Require(p + "MatmulPreferenceSetAttribute", lt->pref_set_, &missing);
  l.Require(p + "MatmulPreferenceDestroy", lt->pref_destroy_, &missing);
  l.Require(p + "MatmulAlgoGetHeuristic", lt->heuristic_, &missing);
  l.Require(p + "Matmul", lt->matmul_, &missing);
  if (!missing.empty()) lt->status_ = UnavailableError(l.path() + " lacks symbol(s): " + missing);
  return lt;
}

const std::string& BlasLt::path() const {
  static const std::string* const kNone = new std::string();
  return lib_ != nullptr ? lib_->path() : *kNone;
}

Status BlasLt::Check(int rc, const char* what) const {
  if (rc == 0) return OkStatus();
  return InternalError(spec_.lt_prefix + what + " failed with status " + std::to_string(rc));
}

StatusOr<std::unique_ptr<Fp8GemmPlan>> BlasLt::MakePlan(int n, int data_type, void* workspace,
                                                        size_t workspace_bytes) const {
  RETURN_IF_ERROR(status_);
  std::unique_ptr<Fp8GemmPlan> plan(new Fp8GemmPlan(*this));
  plan->n_ = n;
  plan->data_type_ = data_type;
  plan->workspace_ = workspace;
  plan->workspace_bytes_ = workspace_bytes;
  RETURN_IF_ERROR(Check(create_(&plan->handle_), "Create"));
  RETURN_IF_ERROR(
      Check(desc_create_(&plan->desc_, spec_.compute_32f, spec_.type_fp32), "MatmulDescCreate"));
  // int32 operation enums: A transposed, B not.
  const int32_t op_t = spec_.op_t;
  const int32_t op_n = spec_.op_n;
  RETURN_IF_ERROR(Check(desc_set_(plan->desc_, spec_.lt_desc_transa, &op_t, sizeof(op_t)),
                        "MatmulDescSetAttribute(TRANSA)"));
  RETURN_IF_ERROR(Check(desc_set_(plan->desc_, spec_.lt_desc_transb, &op_n, sizeof(op_n)),
                        "MatmulDescSetAttribute(TRANSB)"));
  // Column-major n x n everywhere; op(A) = A^T is k x m stored as n x n.
  const uint64_t dim = static_cast<uint64_t>(n);
  RETURN_IF_ERROR(
      Check(layout_create_(&plan->a_layout_, data_type, dim, dim, n), "MatrixLayoutCreate(A)"));
  RETURN_IF_ERROR(
      Check(layout_create_(&plan->b_layout_, data_type, dim, dim, n), "MatrixLayoutCreate(B)"));
  RETURN_IF_ERROR(Check(layout_create_(&plan->d_layout_, spec_.type_bf16, dim, dim, n),
                        "MatrixLayoutCreate(D)"));
  RETURN_IF_ERROR(Check(pref_create_(&plan->pref_), "MatmulPreferenceCreate"));
  const uint64_t ws = workspace_bytes;
  RETURN_IF_ERROR(Check(pref_set_(plan->pref_, spec_.lt_pref_max_workspace, &ws, sizeof(ws)),
                        "MatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"));
  int returned = 0;
  // C has D's layout (bf16); beta = 0.
  RETURN_IF_ERROR(Check(heuristic_(plan->handle_, plan->desc_, plan->a_layout_, plan->b_layout_,
                                   plan->d_layout_, plan->d_layout_, plan->pref_, 1,
                                   plan->result_.data(), &returned),
                        "MatmulAlgoGetHeuristic"));
  int32_t state = 0;
  std::memcpy(&state, plan->result_.data() + spec_.lt_heuristic_state_offset, sizeof(state));
  if (returned < 1 || state != 0) {
    return UnimplementedError(spec_.lt_prefix + "MatmulAlgoGetHeuristic found no fp8 algorithm (" +
                              std::to_string(returned) + " returned, state " +
                              std::to_string(state) + ") for n=" + std::to_string(n));
  }
  return plan;
}

Status BlasLt::Run(const Fp8GemmPlan& plan, const void* a, const void* b, void* d,
                   void* stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  return Check(matmul_(plan.handle_, plan.desc_, &alpha, a, plan.a_layout_, b, plan.b_layout_,
                       &beta, d, plan.d_layout_, d, plan.d_layout_, plan.result_.data(),
                       plan.workspace_, plan.workspace_bytes_, stream),
               "Matmul");
}

Fp8GemmPlan::~Fp8GemmPlan() {
  if (pref_ != nullptr) lt_.pref_destroy_(pref_);
  if (d_layout_ != nullptr) lt_.layout_destroy_(d_layout_);
  if (b_layout_ != nullptr) lt_.layout_destroy_(b_layout_);
  if (a_layout_ != nullptr) lt_.layout_destroy_(a_layout_);
  if (desc_ != nullptr) lt_.desc_destroy_(desc_);
  if (handle_ != nullptr) lt_.destroy_(handle_);
}

}  // namespace gpufleet::canary
