#include "compat/compat_check.h"

#include <algorithm>

#include "compat/compat_checker.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {

namespace {

// "sm_90" -> 9.0 (the hardware catalog's arch field).
Version ComputeCapabilityFromArch(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return Version();
  std::string_view digits = arch.substr(3);
  auto v = Version::Parse(digits);
  if (!v.ok() || digits.size() < 2) return Version();
  uint32_t n = v->major();
  auto cc = Version::Parse(std::to_string(n / 10) + "." + std::to_string(n % 10));
  return cc.ok() ? *cc : Version();
}

}  // namespace

int CompatReport::errors() const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.severity == CompatSeverity::kError;
  }));
}

int CompatReport::warnings() const { return static_cast<int>(findings.size()) - errors(); }

bool CompatReport::Has(std::string_view rule) const {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const CompatFinding& f) { return f.rule == rule; });
}

ResolvedGpu ResolveGpu(const CompatCatalog& catalog, std::string_view name) {
  ResolvedGpu g;
  g.model = std::string(name);
  if (const GpuModelRow* row = catalog.FindGpu(name)) {
    g.known = true;
    g.model = row->model;
    g.vendor = row->vendor;
    g.arch = row->arch;
    g.datacenter = row->datacenter;
    g.min_driver = row->min_driver;
  } else if (const GpuModelSpec* spec = HardwareCatalog::Default().Find(name)) {
    g.known = !spec->arch.empty();
    g.vendor = spec->vendor;
    g.arch = spec->arch;
  }
  if (g.vendor == Vendor::kNvidia) g.compute_capability = ComputeCapabilityFromArch(g.arch);
  return g;
}

CompatReport CheckCompat(const CompatCatalog& catalog, const NodeStack& node,
                         const ImageStack* image, const WorkloadRequirements* workload,
                         const CompatOptions& options) {
  return CompatChecker(catalog, node, image, workload, options).Run();
}

CompatChecker::CompatChecker(const CompatCatalog& catalog, const NodeStack& node,
                             const ImageStack* image, const WorkloadRequirements* workload,
                             const CompatOptions& options)
    : catalog_(catalog), node_(node), image_(image), workload_(workload), options_(options) {}

CompatReport CompatChecker::Run() {
  if (!node_.gpu.empty()) {
    gpu_ = ResolveGpu(catalog_, node_.gpu);
    if (!gpu_.known) {
      Emit("gpu_unknown", NodeSubject() + ": GPU model '" + node_.gpu +
                              "' is in neither data/compat/gpus.toml nor data/hardware.toml; "
                              "architecture rules skipped");
    }
  }
  vendor_ = gpu_.vendor;
  CheckVendorStacks();
  CheckNvidia();
  CheckAmd();
  CheckTraps();
  CheckWorkload();
  std::stable_sort(report_.findings.begin(), report_.findings.end(),
                   [](const CompatFinding& a, const CompatFinding& b) {
                     return a.severity == CompatSeverity::kError &&
                            b.severity != CompatSeverity::kError;
                   });
  return std::move(report_);
}

void CompatChecker::Emit(std::string_view rule, std::string message) {
  const CompatRuleInfo* info = catalog_.FindRule(rule);
  if (info == nullptr) {
    CheckFailed(__FILE__, __LINE__, "compat rule in catalog", std::string(rule));
  }
  report_.findings.push_back({info->id, info->severity, std::move(message), info->source});
}

std::string CompatChecker::NodeSubject() const {
  return node_.name.empty() ? "node" : "node " + node_.name;
}

std::string CompatChecker::ImageSubject() const {
  if (image_ == nullptr || image_->name.empty()) return "image";
  return "image " + image_->name;
}

std::string CompatChecker::GpuLabel() const {
  if (!gpu_.known) return node_.gpu;
  return gpu_.model + " (" + gpu_.arch + ")";
}

const Version& CompatChecker::EffectiveNccl() const {
  if (image_ != nullptr && !image_->nccl.version.empty()) return image_->nccl.version;
  return node_.nccl.version;
}

const Version& CompatChecker::EffectiveRccl() const {
  if (image_ != nullptr && !image_->rccl.empty()) return image_->rccl;
  return node_.rccl;
}

const Version& CompatChecker::EffectiveRocm() const {
  if (image_ != nullptr && !image_->rocm.empty()) return image_->rocm;
  return node_.rocm;
}

std::string_view CompatChecker::EnvValue(std::string_view name) const {
  // The workload's setting wins over the image's default.
  if (workload_ != nullptr) {
    auto it = workload_->env.find(std::string(name));
    if (it != workload_->env.end()) return it->second;
  }
  if (image_ != nullptr) {
    auto it = image_->env.find(std::string(name));
    if (it != image_->env.end()) return it->second;
  }
  return {};
}

void CompatChecker::CheckVendorStacks() {
  if (image_ == nullptr) return;
  if (!image_->cuda.empty()) {
    if (vendor_ != Vendor::kUnknown && vendor_ != Vendor::kNvidia) {
      Emit("vendor_stack_mismatch", ImageSubject() + " needs CUDA " + image_->cuda.text() +
                                        " but " + NodeSubject() + " has " + GpuLabel() + ", a " +
                                        std::string(VendorName(vendor_)) + " GPU");
    } else if (node_.driver.empty()) {
      Emit("vendor_stack_mismatch", ImageSubject() + " needs CUDA " + image_->cuda.text() +
                                        " but " + NodeSubject() + " declares no NVIDIA driver");
    }
  }
  if (!image_->rocm.empty()) {
    if (vendor_ != Vendor::kUnknown && vendor_ != Vendor::kAmd) {
      Emit("vendor_stack_mismatch", ImageSubject() + " needs ROCm " + image_->rocm.text() +
                                        " but " + NodeSubject() + " has " + GpuLabel() + ", a " +
                                        std::string(VendorName(vendor_)) + " GPU");
    } else if (node_.rocm.empty() && node_.rocm_kmd.empty() && node_.amdgpu_driver.empty()) {
      Emit("vendor_stack_mismatch", ImageSubject() + " needs ROCm " + image_->rocm.text() +
                                        " but " + NodeSubject() +
                                        " declares no ROCm or amdgpu driver");
    }
  }
}

void CompatChecker::CheckTraps() {
  for (const CompatTrapRow& trap : catalog_.traps()) {
    const Version* v = nullptr;
    if (trap.library == "nccl") v = &EffectiveNccl();
    if (trap.library == "rccl") v = &EffectiveRccl();
    if (trap.library == "rocm") v = &EffectiveRocm();
    if (v == nullptr || v->empty()) continue;
    if (!trap.min.empty() && *v < trap.min) continue;
    if (!trap.below.empty() && *v >= trap.below) continue;
    if (!trap.archs.empty() &&
        std::find(trap.archs.begin(), trap.archs.end(), gpu_.arch) == trap.archs.end()) {
      continue;
    }
    if (!trap.models.empty()) {
      bool match = std::any_of(trap.models.begin(), trap.models.end(), [&](const std::string& m) {
        return gpu_.known && CompatCatalog::NormalizeModelName(m) ==
                                 CompatCatalog::NormalizeModelName(gpu_.model);
      });
      if (!match) continue;
    }
    if (trap.nvswitch_only && !node_.nvswitch) continue;
    bool mitigated = std::any_of(
        trap.mitigation_env.begin(), trap.mitigation_env.end(), [&](const std::string& kv) {
          size_t eq = kv.find('=');
          return eq != std::string::npos && EnvValue(kv.substr(0, eq)) == kv.substr(eq + 1);
        });
    if (mitigated) continue;
    std::string msg = NodeSubject() + ": " + trap.library + " " + v->text() + " on " + GpuLabel() +
                      ": " + trap.rule.summary;
    if (!trap.remedy.empty()) msg += "; " + trap.remedy;
    Emit(trap.rule.id, std::move(msg));
  }
}

}  // namespace gpufleet
