// The compatibility catalog (data/compat/*.toml): CUDA toolkit minimum
// drivers and minor/forward-compatibility limits, compute capability support,
// datacenter driver branches, ROCm release matrix (OS, gfx targets, RCCL,
// KMD <-> user space), GPU model names, library version traps and the rule
// table (id, severity, source) of `gpufleet compat check`.
//
// Thread safety: immutable after construction. Errors name file:line and field.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compat/compat_version.h"
#include "core/status.h"
#include "schema/vendor.h"

namespace gpufleet {

enum class CompatSeverity { kWarning, kError };
std::string_view CompatSeverityName(CompatSeverity s);  // "warning", "error"

struct CompatSource {
  std::string file;  // where in ../shared the fact was read
  std::string url;   // upstream page ("" when the source is internal)
};

struct CudaToolkitRow {
  Version version;  // 12.4.1 = "12.4 Update 1"
  std::string release;
  Version min_driver;  // Linux x86_64
};

struct CudaFamilyRow {
  uint32_t major = 0;
  Version floor_driver;  // minor version compatibility floor
};

struct ForwardCompatBaseRow {
  uint32_t branch = 0;
  Version min_driver;
};

struct CudaArchRow {
  std::string architecture;
  std::vector<Version> compute_capabilities;
  std::string example_gpus;
  Version first_toolkit;
  uint32_t last_toolkit_major = 0;  // 0 = still supported
  uint32_t last_driver_branch = 0;  // 0 = still supported
};

struct DriverBranchRow {
  uint32_t branch = 0;
  std::string designation;  // "LTSB", "Production Branch", "New Feature Branch"
  std::string eol;          // "YYYY-MM"
  uint32_t max_cuda_major = 0;
};

struct GfxTargetRow {
  std::string target;  // "gfx942"
  std::vector<std::string> products;
  std::string architecture;
  Version first_rocm;  // empty = no known floor
};

struct RocmReleaseRow {
  Version version;
  std::vector<std::string> os;
  std::vector<std::string> os_mi300x_only;
  std::vector<std::string> os_single_node_only;
  std::vector<std::string> gfx;
  Version rccl;
  std::vector<Version> kmd_tested_userspace;  // major.minor
};

struct AmdgpuDriverRow {
  Version version_prefix;     // "30.30" matches 30.30.x
  std::vector<Version> rocm;  // major.minor
};

struct OsKernelExclusionRow {
  Version rocm;
  std::string gfx;
  std::string os;
  std::string kernel_prefix;
};

struct GpuModelRow {
  std::string model;
  std::vector<std::string> names;
  Vendor vendor = Vendor::kUnknown;
  std::string arch;  // "sm_90", "gfx942"
  bool datacenter = true;
  Version min_driver;  // empty = no known floor
};

struct CompatRuleInfo {
  std::string id;
  CompatSeverity severity = CompatSeverity::kError;
  std::string summary;
  CompatSource source;
};

struct CompatTrapRow {
  CompatRuleInfo rule;
  std::string library;  // "nccl", "rccl", "rocm"
  Version min;          // inclusive; empty = open
  Version below;        // exclusive; empty = open
  std::vector<std::string> archs;
  std::vector<std::string> models;
  bool nvswitch_only = false;
  std::vector<std::string> mitigation_env;  // "NAME=VALUE"
  std::string remedy;
};

class CompatCatalog {
 public:
  // One entry per data file: its path relative to data/ ("compat/cuda.toml")
  // and its text. Files are recognised by name: cuda, rocm, gpus, traps, rules.
  struct File {
    std::string name;
    std::string_view text;
  };
  static StatusOr<CompatCatalog> Parse(const std::vector<File>& files);
  // The tables compiled into the binary; CHECK-fails if they do not parse
  // (a test parses them, so that is a bug).
  static const CompatCatalog& Default();

  // The row of the same major.minor with the largest patch <= `cuda`'s
  // (12.4 -> 12.4 GA; 12.6.77 -> 12.6 Update 3); nullptr when that minor
  // release is not in the table.
  const CudaToolkitRow* FindToolkit(const Version& cuda) const;
  const CudaFamilyRow* FindFamily(uint32_t major) const;
  const ForwardCompatBaseRow* FindForwardCompatBase(uint32_t branch) const;
  const CudaArchRow* FindArch(const Version& compute_capability) const;
  const DriverBranchRow* FindBranch(uint32_t branch) const;
  const GfxTargetRow* FindGfx(std::string_view target) const;
  // Exact release (6.2 == 6.2.0); nullptr when not in the matrix.
  const RocmReleaseRow* FindRocmRelease(const Version& rocm) const;
  // Newest matrix release with the same major.minor; nullptr when none.
  const RocmReleaseRow* FindRocmMinor(const Version& rocm) const;
  const AmdgpuDriverRow* FindAmdgpuDriver(const Version& driver) const;
  // Position of rocm's major.minor in the release sequence; -1 when absent.
  int RocmReleaseIndex(const Version& rocm) const;
  // Case-insensitive, ignoring ' ', '-' and '_'; nullptr when unknown.
  const GpuModelRow* FindGpu(std::string_view name) const;
  const CompatRuleInfo* FindRule(std::string_view id) const;

  const std::vector<CompatRuleInfo>& rules() const { return rules_; }
  const std::vector<CompatTrapRow>& traps() const { return traps_; }
  const std::vector<OsKernelExclusionRow>& os_kernel_exclusions() const { return exclusions_; }
  const std::vector<CudaToolkitRow>& toolkits() const { return toolkits_; }
  const std::vector<RocmReleaseRow>& rocm_releases() const { return rocm_releases_; }
  // "cuda.toolkits" -> source, from each file's [sources.*] tables.
  const std::map<std::string, CompatSource>& sources() const { return sources_; }

  // "H100-SXM5" -> "h100sxm5".
  static std::string NormalizeModelName(std::string_view name);

 private:
  friend class CompatCatalogParser;

  std::vector<CudaToolkitRow> toolkits_;
  std::vector<CudaFamilyRow> families_;
  std::vector<ForwardCompatBaseRow> forward_compat_;
  std::vector<CudaArchRow> archs_;
  std::vector<DriverBranchRow> branches_;
  std::vector<GfxTargetRow> gfx_;
  std::vector<RocmReleaseRow> rocm_releases_;
  std::vector<Version> rocm_sequence_;
  std::vector<AmdgpuDriverRow> amdgpu_drivers_;
  std::vector<OsKernelExclusionRow> exclusions_;
  std::vector<GpuModelRow> gpus_;
  std::vector<CompatRuleInfo> rules_;
  std::vector<CompatTrapRow> traps_;
  std::map<std::string, CompatSource> sources_;
};

}  // namespace gpufleet
