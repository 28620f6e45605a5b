// Workload rules of CheckCompat: the workload's vendor, model allow-list,
// architecture and minimum versions against the node (and image), and the
// NCCL/RCCL version every rank of the job must share.
#include <algorithm>

#include "compat/compat_checker.h"

namespace gpufleet {

void CompatChecker::CheckWorkload() {
  if (workload_ == nullptr) return;
  const WorkloadRequirements& w = *workload_;
  std::string who = w.name.empty() ? "workload" : "workload " + w.name;
  std::string where =
      NodeSubject() + " (" + (node_.gpu.empty() ? "GPU undeclared" : GpuLabel()) + ")";

  if (w.vendor != Vendor::kUnknown && vendor_ != w.vendor) {
    Emit("workload_vendor", who + " needs an " + std::string(VendorName(w.vendor)) + " GPU; " +
                                where + " is " + std::string(VendorName(vendor_)));
  }
  if (!w.gpu_models.empty()) {
    bool ok = std::any_of(w.gpu_models.begin(), w.gpu_models.end(), [&](const std::string& m) {
      const GpuModelRow* row = catalog_.FindGpu(m);
      std::string want = CompatCatalog::NormalizeModelName(row != nullptr ? row->model : m);
      return !node_.gpu.empty() && (want == CompatCatalog::NormalizeModelName(gpu_.model) ||
                                    want == CompatCatalog::NormalizeModelName(node_.gpu));
    });
    if (!ok) {
      std::string list;
      for (const std::string& m : w.gpu_models) list += (list.empty() ? "" : ", ") + m;
      Emit("workload_gpu_model",
           who + " allows GPU models [" + list + "]; " + where + " is not one");
    }
  }
  if (!w.min_compute_capability.empty()) {
    if (gpu_.compute_capability.empty()) {
      Emit("workload_compute_capability",
           who + " needs compute capability >= " + w.min_compute_capability.text() + "; " + where +
               " has none known");
    } else if (gpu_.compute_capability < w.min_compute_capability) {
      Emit("workload_compute_capability",
           who + " needs compute capability >= " + w.min_compute_capability.text() + "; " + where +
               " is " + gpu_.compute_capability.text());
    }
  }
  if (!w.gfx_targets.empty()) {
    bool ok = std::any_of(w.gfx_targets.begin(), w.gfx_targets.end(), [&](const std::string& t) {
      return !gpu_.arch.empty() && t.substr(0, t.find(':')) == gpu_.arch;
    });
    if (!ok)
      Emit("workload_gfx_target", who + " runs on its gfx targets only; " + where + " is not one");
  }

  auto require = [&](std::string_view component, const Version& have, const Version& need,
                     const std::string& subject) {
    if (need.empty()) return;
    if (have.empty()) {
      Emit("workload_min_version", who + " needs " + std::string(component) + " >= " + need.text() +
                                       "; " + subject + " declares none");
    } else if (have < need) {
      Emit("workload_min_version", who + " needs " + std::string(component) + " >= " + need.text() +
                                       "; " + subject + " has " + have.text());
    }
  };
  require("driver", node_.driver, w.min_driver, NodeSubject());
  if (!w.min_cuda.empty()) {
    // Natively supported: the driver is at least the toolkit's own minimum,
    // not merely the minor-version-compatibility floor.
    if (const CudaToolkitRow* tk = catalog_.FindToolkit(w.min_cuda)) {
      require("driver (native CUDA " + w.min_cuda.text() + ")", node_.driver, tk->min_driver,
              NodeSubject());
    } else {
      Emit("cuda_toolkit_unknown", who + ": CUDA " + w.min_cuda.text() +
                                       " is not in the toolkit table; min_cuda not checked");
    }
  }
  bool image_rocm = image_ != nullptr && !image_->rocm.empty();
  require("ROCm", EffectiveRocm(), w.min_rocm, image_rocm ? ImageSubject() : NodeSubject());
  bool image_nccl = image_ != nullptr && !image_->nccl.version.empty();
  require("NCCL", EffectiveNccl(), w.min_nccl, image_nccl ? ImageSubject() : NodeSubject());
  bool image_rccl = image_ != nullptr && !image_->rccl.empty();
  require("RCCL", EffectiveRccl(), w.min_rccl, image_rccl ? ImageSubject() : NodeSubject());

  auto same = [&](std::string_view lib, const Version& have, const Version& ranks, bool in_image) {
    if (ranks.empty() || have.empty() || have == ranks) return;
    Emit("nccl_rank_mismatch",
         who + ": its other ranks run " + std::string(lib) + " " + ranks.text() + " but " +
             (in_image ? ImageSubject() : NodeSubject()) + " has " + have.text());
  };
  same("NCCL", EffectiveNccl(), w.nccl, image_nccl);
  same("RCCL", EffectiveRccl(), w.rccl, image_rccl);
}

}  // namespace gpufleet
