// NVIDIA rules of CheckCompat: driver vs CUDA runtime (minor version and
// forward compatibility), compute capability support, fat-binary contents,
// Fabric Manager, driver branch life cycle, NCCL's CUDA build.
#include <algorithm>

#include "compat/compat_checker.h"
#include "core/strings.h"

namespace gpufleet {

namespace {

// "sm_90" / "sm_90a" / "compute_90" -> 90; -1 when not of that form.
int ArchNumber(std::string_view arch, std::string_view prefix, bool* arch_specific) {
  if (!StartsWith(arch, prefix)) return -1;
  std::string_view digits = arch.substr(prefix.size());
  *arch_specific = !digits.empty() && digits.back() == 'a';
  if (*arch_specific) digits.remove_suffix(1);
  auto n = ParseUint64(digits);
  return n && *n < 10000 ? static_cast<int>(*n) : -1;
}

}  // namespace

void CompatChecker::CheckNvidia() {
  if (!node_.driver.empty()) CheckNvidiaDriver();
  if (!node_.cuda.empty()) {
    CheckCudaRuntime(NodeSubject(), node_.cuda, /*forward_compat=*/false);
    CheckCudaArch(NodeSubject(), node_.cuda);
  }
  if (image_ != nullptr && !image_->cuda.empty()) {
    CheckCudaRuntime(ImageSubject(), image_->cuda, image_->cuda_forward_compat);
    CheckCudaArch(ImageSubject(), image_->cuda);
  }
  CheckImageCudaArchs();
  CheckNcclBuild();
}

void CompatChecker::CheckNvidiaDriver() {
  const Version& d = node_.driver;
  if (!node_.driver_kernel_module.empty() && node_.driver_kernel_module != d) {
    Emit("nvml_lib_rm_mismatch",
         NodeSubject() + ": user-space driver " + d.text() + " but kernel module " +
             node_.driver_kernel_module.text() +
             " is loaded (upgraded without reboot?): NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  }
  if (!node_.fabric_manager.empty() && node_.fabric_manager != d.text()) {
    Emit("fabric_manager_mismatch", NodeSubject() + ": Fabric Manager " + node_.fabric_manager +
                                        " != driver " + d.text() +
                                        " (must be the identical version string)");
  } else if (node_.nvswitch && node_.fabric_manager.empty()) {
    Emit("fabric_manager_missing", NodeSubject() + ": NVSwitch system with driver " + d.text() +
                                       " but no Fabric Manager (needs nv-fabricmanager " +
                                       d.text() + ")");
  }
  if (!gpu_.min_driver.empty() && d < gpu_.min_driver) {
    Emit("gpu_min_driver", NodeSubject() + ": " + GpuLabel() + " needs driver >= " +
                               gpu_.min_driver.text() + ", node has " + d.text());
  }
  if (const CudaArchRow* arch = catalog_.FindArch(gpu_.compute_capability)) {
    if (arch->last_driver_branch != 0 && d.major() > arch->last_driver_branch) {
      Emit("driver_arch_dropped", NodeSubject() + ": driver " + d.text() + " (R" +
                                      std::to_string(d.major()) + ") no longer supports " +
                                      arch->architecture + " (" + GpuLabel() + "): last branch R" +
                                      std::to_string(arch->last_driver_branch));
    }
  }
  if (!options_.today.empty()) {
    if (const DriverBranchRow* b = catalog_.FindBranch(d.major())) {
      if (options_.today > b->eol) {
        Emit("driver_branch_eol", NodeSubject() + ": driver " + d.text() + " is on R" +
                                      std::to_string(b->branch) + " (" + b->designation +
                                      "), end of life " + b->eol);
      }
    }
  }
}

void CompatChecker::CheckCudaRuntime(const std::string& subject, const Version& cuda,
                                     bool forward_compat) {
  const Version& d = node_.driver;
  if (d.empty()) return;  // reported by CheckVendorStacks for images
  const CudaToolkitRow* tk = catalog_.FindToolkit(cuda);
  const CudaFamilyRow* fam = catalog_.FindFamily(cuda.major());
  std::string family = std::to_string(cuda.major()) + ".x";
  if (tk == nullptr) {
    Emit("cuda_toolkit_unknown",
         subject + ": CUDA " + cuda.text() + " is not in the toolkit table; " +
             (fam != nullptr
                  ? "only the " + family + " floor " + fam->floor_driver.text() + " was checked"
                  : std::string("no driver check possible")));
  }
  if (tk != nullptr && d >= tk->min_driver) return;
  if (fam != nullptr && d >= fam->floor_driver) {
    if (tk != nullptr) {
      Emit("cuda_minor_compat_features",
           subject + ": CUDA " + cuda.text() + " on driver " + d.text() + ", older than " +
               tk->min_driver.text() + " (CUDA " + tk->release +
               " minimum): runs through minor version compatibility (" + family + " floor " +
               fam->floor_driver.text() + ") with a limited feature set");
    }
    return;
  }
  if (tk == nullptr && fam == nullptr) return;
  if (forward_compat) {
    CheckForwardCompat(subject, cuda);
    return;
  }
  std::string need = tk != nullptr ? tk->min_driver.text() : fam->floor_driver.text();
  std::string floor =
      fam != nullptr ? " and below the " + family + " floor " + fam->floor_driver.text() : "";
  Emit("cuda_minor_compat_floor", subject + ": CUDA " + cuda.text() + " needs driver >= " + need +
                                      "; node driver " + d.text() + " is older" + floor +
                                      ": cudaErrorInsufficientDriver (35)");
}

void CompatChecker::CheckForwardCompat(const std::string& subject, const Version& cuda) {
  const Version& d = node_.driver;
  std::vector<std::string> why;
  if (gpu_.known && !gpu_.datacenter) why.push_back(GpuLabel() + " is not a datacenter GPU");
  const ForwardCompatBaseRow* base = catalog_.FindForwardCompatBase(d.major());
  if (base == nullptr) {
    why.push_back("R" + std::to_string(d.major()) + " is not a forward-compatible base branch");
  } else if (d < base->min_driver) {
    why.push_back("R" + std::to_string(base->branch) + " needs >= " + base->min_driver.text() +
                  " as a forward-compatible base");
  }
  std::string what =
      subject + ": CUDA " + cuda.text() + " through cuda-compat on driver " + d.text();
  if (why.empty()) {
    Emit("cuda_forward_compat_in_use",
         what + ": forward compatibility only (user-mode driver from the image)");
    return;
  }
  std::string reasons;
  for (const std::string& w : why) reasons += (reasons.empty() ? "" : "; ") + w;
  Emit("forward_compat_scope", what + ": " + reasons +
                                   " (cudaErrorCompatNotSupportedOnDevice 804 / "
                                   "cudaErrorSystemDriverMismatch 803)");
}

void CompatChecker::CheckCudaArch(const std::string& subject, const Version& cuda) {
  const CudaArchRow* arch = catalog_.FindArch(gpu_.compute_capability);
  if (arch == nullptr) return;
  if (cuda < arch->first_toolkit) {
    Emit("cuda_arch_not_supported", subject + ": CUDA " + cuda.text() + " predates " +
                                        arch->architecture + " " + GpuLabel() +
                                        ": first supported in CUDA " + arch->first_toolkit.text());
  }
  if (arch->last_toolkit_major != 0 && cuda.major() > arch->last_toolkit_major) {
    Emit("arch_dropped_cuda13", subject + ": CUDA " + cuda.text() + " no longer supports " +
                                    arch->architecture + " " + GpuLabel() + ": last toolkit " +
                                    std::to_string(arch->last_toolkit_major) + ".x");
  }
}

void CompatChecker::CheckImageCudaArchs() {
  if (image_ == nullptr || image_->cuda_archs.empty() || gpu_.compute_capability.empty()) return;
  int cc = static_cast<int>(gpu_.compute_capability.major() * 10 + gpu_.compute_capability.minor());
  bool sass = false;
  bool ptx = false;
  for (const std::string& a : image_->cuda_archs) {
    bool specific = false;
    int n = ArchNumber(a, "sm_", &specific);
    if (n >= 0) {
      // A cubin runs on the same major with an equal or higher minor; the
      // arch-specific ("a") variant only on exactly its own target.
      sass |= specific ? n == cc : (n / 10 == cc / 10 && n % 10 <= cc % 10);
      continue;
    }
    n = ArchNumber(a, "compute_", &specific);
    if (n >= 0) ptx |= n <= cc;
  }
  if (sass) return;
  std::string list;
  for (const std::string& a : image_->cuda_archs) list += (list.empty() ? "" : ",") + a;
  std::string sm = "sm_" + std::to_string(cc);
  if (!ptx) {
    Emit("sm_arch_missing", ImageSubject() + ": device code [" + list + "] has nothing for " + sm +
                                " (" + GpuLabel() +
                                "): 'no kernel image is available for execution on the device'");
    return;
  }
  const CudaToolkitRow* tk = image_->cuda.empty() ? nullptr : catalog_.FindToolkit(image_->cuda);
  if (tk != nullptr && !node_.driver.empty() && node_.driver < tk->min_driver) {
    Emit("ptx_jit_newer_than_driver",
         ImageSubject() + ": only PTX for " + sm + " in [" + list + "], built by CUDA " +
             image_->cuda.text() + " (driver >= " + tk->min_driver.text() + "); driver " +
             node_.driver.text() + " cannot JIT it: cudaErrorUnsupportedPtxVersion (222)");
    return;
  }
  Emit("ptx_jit_only", ImageSubject() + ": no SASS for " + sm + " in [" + list +
                           "]; kernels are JIT-compiled from PTX at load");
}

void CompatChecker::CheckNcclBuild() {
  const PackageVersion& nccl =
      image_ != nullptr && !image_->nccl.version.empty() ? image_->nccl : node_.nccl;
  const Version& d = node_.driver;
  if (nccl.cuda.empty() || d.empty()) return;
  if (image_ != nullptr && image_->cuda_forward_compat) return;  // judged by forward compat
  const CudaToolkitRow* tk = catalog_.FindToolkit(nccl.cuda);
  const CudaFamilyRow* fam = catalog_.FindFamily(nccl.cuda.major());
  if (tk == nullptr && fam == nullptr) return;
  if ((tk != nullptr && d >= tk->min_driver) || (fam != nullptr && d >= fam->floor_driver)) {
    return;
  }
  std::string need = fam != nullptr ? fam->floor_driver.text() : tk->min_driver.text();
  std::string who = &nccl == &node_.nccl ? NodeSubject() : ImageSubject();
  Emit("nccl_cuda_build", who + ": NCCL " + nccl.version.text() + " built for CUDA " +
                              nccl.cuda.text() + " needs driver >= " + need + "; node driver " +
                              d.text() + ": 'unhandled cuda error'");
}

}  // namespace gpufleet
