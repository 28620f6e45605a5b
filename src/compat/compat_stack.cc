#include "compat/compat_stack.h"

#include "compat/compat_toml.h"
#include "core/toml_reader.h"

namespace gpufleet {

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Status CheckList(const toml::table& t, std::string_view key, const std::vector<std::string>& items,
                 Status (*validate)(std::string_view), std::string_view origin) {
  for (const std::string& s : items) {
    Status st = validate(s);
    if (!st.ok()) {
      return InvalidArgumentError(TomlWhere(origin, *t.get(key)) + "field '" + std::string(key) +
                                  "': " + st.message());
    }
  }
  return OkStatus();
}

}  // namespace

Status ValidateCudaArch(std::string_view arch) {
  std::string_view digits;
  if (arch.substr(0, 3) == "sm_") {
    digits = arch.substr(3);
    if (!digits.empty() && digits.back() == 'a') digits.remove_suffix(1);
  } else if (arch.substr(0, 8) == "compute_") {
    digits = arch.substr(8);
  }
  if (!AllDigits(digits) || digits.size() < 2 || digits.size() > 3) {
    return InvalidArgumentError("bad CUDA arch '" + std::string(arch) +
                                "' (expected sm_XY, sm_XYa or compute_XY)");
  }
  return OkStatus();
}

Status ValidateGfxTarget(std::string_view target) {
  std::string_view base = target.substr(0, target.find(':'));
  if (base.substr(0, 3) != "gfx" || base.size() < 6 || base.size() > 8) {
    return InvalidArgumentError("bad gfx target '" + std::string(target) +
                                "' (expected e.g. gfx942 or gfx90a:xnack-)");
  }
  for (char c : base.substr(3)) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!ok) {
      return InvalidArgumentError("bad gfx target '" + std::string(target) +
                                  "' (expected e.g. gfx942 or gfx90a:xnack-)");
    }
  }
  return OkStatus();
}

StatusOr<NodeStack> ParseNodeStack(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, origin));
  RETURN_IF_ERROR(CheckKnownKeys(
      t,
      {"name", "gpu", "os", "kernel", "nvswitch", "driver", "driver_kernel_module", "cuda",
       "fabric_manager", "nccl", "rocm", "rocm_kmd", "amdgpu_driver", "rccl"},
      origin));
  NodeStack n;
  ASSIGN_OR_RETURN(n.name, OptionalString(t, "name", origin));
  ASSIGN_OR_RETURN(n.gpu, OptionalString(t, "gpu", origin));
  ASSIGN_OR_RETURN(n.os, OptionalString(t, "os", origin));
  ASSIGN_OR_RETURN(n.kernel, OptionalString(t, "kernel", origin));
  ASSIGN_OR_RETURN(n.nvswitch, OptionalBoolField(t, "nvswitch", false, origin));
  ASSIGN_OR_RETURN(n.driver, OptionalVersionField(t, "driver", origin));
  ASSIGN_OR_RETURN(n.driver_kernel_module, OptionalVersionField(t, "driver_kernel_module", origin));
  ASSIGN_OR_RETURN(n.cuda, OptionalVersionField(t, "cuda", origin));
  ASSIGN_OR_RETURN(Version fm, OptionalVersionField(t, "fabric_manager", origin));
  n.fabric_manager = fm.text();
  ASSIGN_OR_RETURN(n.nccl, OptionalPackageVersionField(t, "nccl", origin));
  ASSIGN_OR_RETURN(n.rocm, OptionalVersionField(t, "rocm", origin));
  ASSIGN_OR_RETURN(n.rocm_kmd, OptionalVersionField(t, "rocm_kmd", origin));
  ASSIGN_OR_RETURN(n.amdgpu_driver, OptionalVersionField(t, "amdgpu_driver", origin));
  ASSIGN_OR_RETURN(n.rccl, OptionalVersionField(t, "rccl", origin));
  return n;
}

StatusOr<ImageStack> ParseImageStack(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, origin));
  RETURN_IF_ERROR(CheckKnownKeys(t,
                                 {"name", "cuda", "cuda_forward_compat", "cuda_archs", "rocm",
                                  "gfx_targets", "nccl", "rccl", "env"},
                                 origin));
  ImageStack im;
  ASSIGN_OR_RETURN(im.name, OptionalString(t, "name", origin));
  ASSIGN_OR_RETURN(im.cuda, OptionalVersionField(t, "cuda", origin));
  ASSIGN_OR_RETURN(im.cuda_forward_compat,
                   OptionalBoolField(t, "cuda_forward_compat", false, origin));
  ASSIGN_OR_RETURN(im.cuda_archs, StringArrayField(t, "cuda_archs", origin));
  RETURN_IF_ERROR(CheckList(t, "cuda_archs", im.cuda_archs, &ValidateCudaArch, origin));
  ASSIGN_OR_RETURN(im.rocm, OptionalVersionField(t, "rocm", origin));
  ASSIGN_OR_RETURN(im.gfx_targets, StringArrayField(t, "gfx_targets", origin));
  RETURN_IF_ERROR(CheckList(t, "gfx_targets", im.gfx_targets, &ValidateGfxTarget, origin));
  ASSIGN_OR_RETURN(im.nccl, OptionalPackageVersionField(t, "nccl", origin));
  ASSIGN_OR_RETURN(im.rccl, OptionalVersionField(t, "rccl", origin));
  ASSIGN_OR_RETURN(im.env, StringMapField(t, "env", origin));
  return im;
}

StatusOr<WorkloadRequirements> ParseWorkloadRequirements(std::string_view text,
                                                         std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, origin));
  RETURN_IF_ERROR(CheckKnownKeys(
      t,
      {"name", "vendor", "gpu_models", "min_compute_capability", "gfx_targets", "min_driver",
       "min_cuda", "min_rocm", "min_nccl", "min_rccl", "nccl", "rccl", "multi_node", "env"},
      origin));
  WorkloadRequirements w;
  ASSIGN_OR_RETURN(w.name, OptionalString(t, "name", origin));
  ASSIGN_OR_RETURN(std::string vendor, OptionalString(t, "vendor", origin));
  if (!vendor.empty()) {
    w.vendor = ParseVendor(vendor);
    if (w.vendor == Vendor::kUnknown) {
      return InvalidArgumentError(TomlWhere(origin, *t.get("vendor")) +
                                  "field 'vendor': expected nvidia, amd or intel, got '" + vendor +
                                  "'");
    }
  }
  ASSIGN_OR_RETURN(w.gpu_models, StringArrayField(t, "gpu_models", origin));
  ASSIGN_OR_RETURN(w.min_compute_capability,
                   OptionalVersionField(t, "min_compute_capability", origin));
  ASSIGN_OR_RETURN(w.gfx_targets, StringArrayField(t, "gfx_targets", origin));
  RETURN_IF_ERROR(CheckList(t, "gfx_targets", w.gfx_targets, &ValidateGfxTarget, origin));
  ASSIGN_OR_RETURN(w.min_driver, OptionalVersionField(t, "min_driver", origin));
  ASSIGN_OR_RETURN(w.min_cuda, OptionalVersionField(t, "min_cuda", origin));
  ASSIGN_OR_RETURN(w.min_rocm, OptionalVersionField(t, "min_rocm", origin));
  ASSIGN_OR_RETURN(w.min_nccl, OptionalVersionField(t, "min_nccl", origin));
  ASSIGN_OR_RETURN(w.min_rccl, OptionalVersionField(t, "min_rccl", origin));
  ASSIGN_OR_RETURN(w.nccl, OptionalVersionField(t, "nccl", origin));
  ASSIGN_OR_RETURN(w.rccl, OptionalVersionField(t, "rccl", origin));
  ASSIGN_OR_RETURN(w.multi_node, OptionalBoolField(t, "multi_node", false, origin));
  ASSIGN_OR_RETURN(w.env, StringMapField(t, "env", origin));
  return w;
}

}  // namespace gpufleet
