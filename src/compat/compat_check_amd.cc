// AMD rules of CheckCompat: gfx target support per ROCm release, the ROCm
// OS matrix and its footnoted exclusions, RCCL per release, amdgpu KMD <->
// user space window, amdgpu driver package window, image offload targets.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "compat/compat_checker.h"
#include "core/strings.h"

namespace gpufleet {

namespace {

// OS names compare case-insensitively with runs of spaces collapsed.
std::string NormalizeOs(std::string_view os) {
  std::string out;
  for (char c : TrimWhitespace(os)) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool ContainsOs(const std::vector<std::string>& list, std::string_view os) {
  std::string want = NormalizeOs(os);
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return NormalizeOs(s) == want; });
}

std::string JoinMinor(const std::vector<Version>& vs) {
  std::string out;
  for (const Version& v : vs) {
    out += (out.empty() ? "" : ", ") + std::to_string(v.major()) + "." + std::to_string(v.minor()) +
           ".x";
  }
  return out;
}

std::string MinorText(const Version& v) {
  return std::to_string(v.major()) + "." + std::to_string(v.minor());
}

}  // namespace

void CompatChecker::CheckAmd() {
  if (!node_.rocm.empty()) {
    CheckRocmGfx(NodeSubject(), node_.rocm);
    CheckRocmOs();
    CheckRocmRccl(NodeSubject(), node_.rocm, node_.rccl);
  }
  if (image_ != nullptr && !image_->rocm.empty()) {
    CheckRocmGfx(ImageSubject(), image_->rocm);
    CheckRocmRccl(ImageSubject(), image_->rocm, image_->rccl);
  }
  if (image_ != nullptr && !image_->gfx_targets.empty() && gpu_.vendor == Vendor::kAmd) {
    bool found =
        std::any_of(image_->gfx_targets.begin(), image_->gfx_targets.end(),
                    [&](const std::string& t) { return t.substr(0, t.find(':')) == gpu_.arch; });
    if (!found) {
      std::string list;
      for (const std::string& t : image_->gfx_targets) list += (list.empty() ? "" : ",") + t;
      Emit("rocm_gfx_target_missing",
           ImageSubject() + ": offload targets [" + list + "] lack " + gpu_.arch + " (" +
               gpu_.model + "): 'invalid device function' / no TensileLibrary for the GPU arch");
    }
  }
  const Version& userspace = EffectiveRocm();
  // Inside a container the host's kernel driver is what the image's user
  // space talks to; absent an explicit KMD release, the host's ROCm stands in.
  const Version& kmd = !node_.rocm_kmd.empty() ? node_.rocm_kmd : node_.rocm;
  if (!userspace.empty() && !kmd.empty()) CheckKmdWindow(kmd, userspace);
  if (!userspace.empty() && !node_.amdgpu_driver.empty()) {
    if (const AmdgpuDriverRow* row = catalog_.FindAmdgpuDriver(node_.amdgpu_driver)) {
      bool ok = std::any_of(row->rocm.begin(), row->rocm.end(),
                            [&](const Version& v) { return v.SamePrefix(userspace, 2); });
      if (!ok) {
        Emit("amdgpu_driver_window", NodeSubject() + ": amdgpu driver " +
                                         node_.amdgpu_driver.text() + " supports ROCm " +
                                         JoinMinor(row->rocm) + ", not ROCm " + userspace.text());
      }
    }
  }
}

void CompatChecker::CheckRocmGfx(const std::string& subject, const Version& rocm) {
  if (gpu_.vendor != Vendor::kAmd || gpu_.arch.empty()) return;
  const GfxTargetRow* row = catalog_.FindGfx(gpu_.arch);
  if (row != nullptr && !row->first_rocm.empty() && rocm < row->first_rocm) {
    Emit("rocm_gfx_unsupported", subject + ": ROCm " + rocm.text() + " predates " + gpu_.arch +
                                     " (" + gpu_.model + "): first supported in ROCm " +
                                     row->first_rocm.text());
    return;
  }
  const RocmReleaseRow* rel = catalog_.FindRocmRelease(rocm);
  if (rel != nullptr && std::find(rel->gfx.begin(), rel->gfx.end(), gpu_.arch) == rel->gfx.end()) {
    Emit("rocm_gfx_unsupported", subject + ": ROCm " + rocm.text() + " does not list " + gpu_.arch +
                                     " (" + gpu_.model + ") in its GPU targets");
  }
}

void CompatChecker::CheckRocmOs() {
  const RocmReleaseRow* rel = catalog_.FindRocmRelease(node_.rocm);
  if (rel != nullptr && !node_.os.empty()) {
    std::string head = NodeSubject() + ": " + node_.os + " with ROCm " + node_.rocm.text();
    if (ContainsOs(rel->os, node_.os)) {
      // listed
    } else if (ContainsOs(rel->os_mi300x_only, node_.os)) {
      if (!gpu_.known || CompatCatalog::NormalizeModelName(gpu_.model) != "mi300x") {
        Emit("rocm_os_unsupported", head + ": supported for MI300X only, node has " +
                                        (node_.gpu.empty() ? "an undeclared GPU" : GpuLabel()));
      }
    } else if (ContainsOs(rel->os_single_node_only, node_.os)) {
      if (workload_ != nullptr && workload_->multi_node) {
        Emit("rocm_os_unsupported", head + ": supported single-node only, workload is multi-node");
      }
    } else {
      std::string list;
      for (const std::string& s : rel->os) list += (list.empty() ? "" : ", ") + s;
      Emit("rocm_os_unsupported", head + ": OS not in the release's matrix (" + list + ")");
    }
  }
  for (const OsKernelExclusionRow& ex : catalog_.os_kernel_exclusions()) {
    if (ex.rocm != node_.rocm || ex.gfx != gpu_.arch) continue;
    if (NormalizeOs(ex.os) != NormalizeOs(node_.os)) continue;
    if (!StartsWith(node_.kernel, ex.kernel_prefix)) continue;
    Emit("rocm_mi300x_os_kernel", NodeSubject() + ": ROCm " + node_.rocm.text() + " excludes " +
                                      gpu_.arch + " on " + node_.os + " with kernel " +
                                      node_.kernel + " (" + ex.kernel_prefix + " HWE)");
  }
}

void CompatChecker::CheckRocmRccl(const std::string& subject, const Version& rocm,
                                  const Version& rccl) {
  if (rccl.empty()) return;
  const RocmReleaseRow* rel = catalog_.FindRocmMinor(rocm);
  if (rel == nullptr || rel->rccl == rccl) return;
  Emit("rocm_rccl_version", subject + ": RCCL " + rccl.text() + " with ROCm " + rocm.text() +
                                ", which ships RCCL " + rel->rccl.text());
}

void CompatChecker::CheckKmdWindow(const Version& kmd, const Version& userspace) {
  std::string what = NodeSubject() + ": ROCm user space " + userspace.text() +
                     " on the amdgpu KMD of ROCm " + kmd.text();
  if (const RocmReleaseRow* rel = catalog_.FindRocmMinor(kmd)) {
    bool ok = std::any_of(rel->kmd_tested_userspace.begin(), rel->kmd_tested_userspace.end(),
                          [&](const Version& v) { return v.SamePrefix(userspace, 2); });
    if (!ok) {
      Emit("rocm_kmd_userspace_window",
           what + ": that KMD supports user space " + JoinMinor(rel->kmd_tested_userspace));
    }
    return;
  }
  int k = catalog_.RocmReleaseIndex(kmd);
  int u = catalog_.RocmReleaseIndex(userspace);
  if (k < 0 || u < 0 || std::abs(k - u) <= 2) return;
  Emit("rocm_kmd_userspace_window", what + ": " + MinorText(userspace) + " is " +
                                        std::to_string(std::abs(k - u)) + " releases from " +
                                        MinorText(kmd) + " (window +/- 2)");
}

}  // namespace gpufleet
