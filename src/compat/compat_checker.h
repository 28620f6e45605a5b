// Private to schema/: the state of one CheckCompat call, shared by the
// per-vendor rule files (compat_check_nvidia.cc, compat_check_amd.cc).
#pragma once

#include <string>
#include <string_view>

#include "compat/compat_check.h"

namespace gpufleet {

class CompatChecker {
 public:
  CompatChecker(const CompatCatalog& catalog, const NodeStack& node, const ImageStack* image,
                const WorkloadRequirements* workload, const CompatOptions& options);

  CompatReport Run();

 private:
  // Appends a finding for `rule` with its catalog severity and source.
  // REQUIRES: rule is in the catalog (rules.toml / traps.toml).
  void Emit(std::string_view rule, std::string message);

  // compat_check.cc
  void CheckVendorStacks();
  void CheckTraps();
  void CheckWorkload();
  // compat_check_nvidia.cc
  void CheckNvidia();
  void CheckNvidiaDriver();
  void CheckCudaRuntime(const std::string& subject, const Version& cuda, bool forward_compat);
  void CheckForwardCompat(const std::string& subject, const Version& cuda);
  void CheckCudaArch(const std::string& subject, const Version& cuda);
  void CheckImageCudaArchs();
  void CheckNcclBuild();
  // compat_check_amd.cc
  void CheckAmd();
  void CheckRocmGfx(const std::string& subject, const Version& rocm);
  void CheckRocmOs();
  void CheckRocmRccl(const std::string& subject, const Version& rocm, const Version& rccl);
  void CheckKmdWindow(const Version& kmd, const Version& userspace);

  // Versions in effect inside the job: the image's when it declares one.
  const Version& EffectiveNccl() const;
  const Version& EffectiveRccl() const;
  const Version& EffectiveRocm() const;
  // Value of an environment variable set by the image or the workload.
  std::string_view EnvValue(std::string_view name) const;

  std::string NodeSubject() const;
  std::string ImageSubject() const;
  // "H100 (sm_90)" or the name given.
  std::string GpuLabel() const;

  const CompatCatalog& catalog_;
  const NodeStack& node_;
  const ImageStack* image_;
  const WorkloadRequirements* workload_;
  const CompatOptions& options_;
  ResolvedGpu gpu_;
  Vendor vendor_ = Vendor::kUnknown;  // the node's GPU vendor, when known
  CompatReport report_;
};

}  // namespace gpufleet
