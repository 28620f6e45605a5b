#include "compat/compat_check.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

struct RuleCase {
  const char* name;
  const char* rule;
  const char* source;  // where the rule's fact comes from; must appear in the finding's source
  const char* node;
  const char* image;     // "" = no image
  const char* workload;  // "" = no workload
  bool expect;           // finding present?
};

// One or more rows per rule: a case that fires and a close case that must not.
const RuleCase kCases[] = {
    // CUDA minor version compatibility (cuda_toolkit_min_driver.csv + minor-version-compat doc).
    {"cuda 12.4 on 550.54.14 is native", "cuda_minor_compat_features",
     "cuda_toolkit_min_driver.csv", "gpu='H100'\ndriver='550.54.14'", "cuda='12.4'", "", false},
    {"cuda 12.4 on 535 runs via minor compat", "cuda_minor_compat_features",
     "cuda_toolkit_min_driver.csv", "gpu='H100'\ndriver='535.104.05'", "cuda='12.4'", "", true},
    {"cuda 12.8.1 needs 570.124.06, not 570.86.15", "cuda_minor_compat_features",
     "cuda_toolkit_min_driver.csv", "gpu='H100'\ndriver='570.86.15'", "cuda='12.8.1'", "", true},
    {"cuda 12.8.1 on 570.124.06 is native", "cuda_minor_compat_features",
     "cuda_toolkit_min_driver.csv", "gpu='H100'\ndriver='570.124.06'", "cuda='12.8.1'", "", false},
    {"cuda 12.x below 525 floor", "cuda_minor_compat_floor", "minor_version_compat_family_floor",
     "gpu='H100'\ndriver='520.61.05'", "cuda='12.0'", "", true},
    {"cuda 13.0 on R575", "cuda_minor_compat_floor", "minor_version_compat_family_floor",
     "gpu='H100'\ndriver='575.57.08'", "cuda='13.0'", "", true},
    {"cuda 11.8 on 450.80.02 floor", "cuda_minor_compat_floor", "minor_version_compat_family_floor",
     "gpu='A100'\ndriver='450.80.02'", "cuda='11.8'", "", false},
    {"node host toolkit checked too", "cuda_minor_compat_floor",
     "minor_version_compat_family_floor", "gpu='H100'\ndriver='470.57.02'\ncuda='12.2'", "", "",
     true},
    {"cuda 12.10 not in table", "cuda_toolkit_unknown", "cuda_toolkit_min_driver.csv",
     "gpu='H100'\ndriver='580.65.06'", "cuda='12.10'", "", true},
    // Forward compatibility scope.
    {"FC on datacenter GPU, R535 >= 535.86", "cuda_forward_compat_in_use", "ecosystem.md 2.1",
     "gpu='H100'\ndriver='535.104.05'", "cuda='13.0'\ncuda_forward_compat=true", "", true},
    {"FC on R535 below 535.86", "forward_compat_scope", "forward_compat_scope",
     "gpu='H100'\ndriver='535.54.03'", "cuda='13.0'\ncuda_forward_compat=true", "", true},
    {"FC on a non-FC branch", "forward_compat_scope", "forward_compat_scope",
     "gpu='H100'\ndriver='560.35.03'", "cuda='13.0'\ncuda_forward_compat=true", "", true},
    {"FC on a GeForce", "forward_compat_scope", "forward_compat_scope",
     "gpu='RTX 3090'\ndriver='535.104.05'", "cuda='13.0'\ncuda_forward_compat=true", "", true},
    // Compute capability per toolkit (nvidia_arch_support.csv).
    {"B200 needs CUDA 12.8", "cuda_arch_not_supported", "nvidia_arch_support.csv",
     "gpu='B200'\ndriver='570.133.20'", "cuda='12.4'", "", true},
    {"B200 with CUDA 12.8", "cuda_arch_not_supported", "nvidia_arch_support.csv",
     "gpu='B200'\ndriver='570.133.20'", "cuda='12.8'", "", false},
    {"V100 with CUDA 13", "arch_dropped_cuda13", "nvidia_arch_support.csv",
     "gpu='V100'\ndriver='580.65.06'", "cuda='13.0'", "", true},
    {"V100 with CUDA 12.9", "arch_dropped_cuda13", "nvidia_arch_support.csv",
     "gpu='V100'\ndriver='580.65.06'", "cuda='12.9'", "", false},
    {"K80 with CUDA 12", "arch_dropped_cuda13", "nvidia_arch_support.csv",
     "gpu='K80'\ndriver='470.57.02'", "cuda='12.0'", "", true},
    {"V100 on R590", "driver_arch_dropped", "nvidia_arch_support.csv",
     "gpu='Tesla V100-SXM2-32GB'\ndriver='590.44.01'", "", "", true},
    {"V100 on R580", "driver_arch_dropped", "nvidia_arch_support.csv",
     "gpu='V100'\ndriver='580.95.05'", "", "", false},
    {"B200 hardware floor", "gpu_min_driver", "ecosystem.md 2.1", "gpu='B200'\ndriver='570.124.06'",
     "", "", true},
    // Fat-binary contents.
    {"sm_80-only image on H100", "sm_arch_missing", "version_traps.csv",
     "gpu='H100'\ndriver='550.54.15'", "cuda='12.4'\ncuda_archs=['sm_80','sm_86']", "", true},
    {"sm_80 cubin runs on sm_86", "sm_arch_missing", "version_traps.csv",
     "gpu='A10'\ndriver='550.54.15'", "cuda='12.4'\ncuda_archs=['sm_80']", "", false},
    {"sm_90a only runs on 9.0, not on sm_100", "sm_arch_missing", "version_traps.csv",
     "gpu='B200'\ndriver='570.133.20'", "cuda='12.8'\ncuda_archs=['sm_90a']", "", true},
    {"PTX JIT from a newer toolkit", "ptx_jit_newer_than_driver", "version_traps.csv",
     "gpu='H100'\ndriver='535.104.05'", "cuda='12.4'\ncuda_archs=['sm_80','compute_80']", "", true},
    {"PTX JIT with a new enough driver", "ptx_jit_only", "ecosystem.md 2.1",
     "gpu='H100'\ndriver='550.54.15'", "cuda='12.4'\ncuda_archs=['compute_80']", "", true},
    // Node-level driver facts.
    {"Fabric Manager differs", "fabric_manager_mismatch", "version_traps.csv",
     "gpu='H100'\nnvswitch=true\ndriver='550.54.15'\nfabric_manager='550.54.14'", "", "", true},
    {"Fabric Manager equal", "fabric_manager_mismatch", "version_traps.csv",
     "gpu='H100'\nnvswitch=true\ndriver='550.54.15'\nfabric_manager='550.54.15'", "", "", false},
    {"NVSwitch without Fabric Manager", "fabric_manager_missing", "version_traps.csv",
     "gpu='H200'\nnvswitch=true\ndriver='550.54.15'", "", "", true},
    {"driver upgraded without reboot", "nvml_lib_rm_mismatch", "version_traps.csv",
     "gpu='H100'\ndriver='550.54.15'\ndriver_kernel_module='550.54.14'", "", "", true},
    // NCCL.
    {"NCCL built for CUDA 12.4 on R520", "nccl_cuda_build", "version_traps.csv",
     "gpu='A100'\ndriver='520.61.05'", "nccl='2.21.5-1+cuda12.4'", "", true},
    {"NCCL built for CUDA 12.4 on R535", "nccl_cuda_build", "version_traps.csv",
     "gpu='A100'\ndriver='535.104.05'", "nccl='2.21.5-1+cuda12.4'", "", false},
    {"NCCL 2.18.1 on HGX H100", "nccl_ll128_hgx_h100", "version_traps.csv",
     "gpu='H100'\nnvswitch=true\ndriver='535.104.05'\nfabric_manager='535.104.05'\nnccl='2.18.1'",
     "", "", true},
    {"NCCL 2.18.1 with NCCL_PROTO=^LL128", "nccl_ll128_hgx_h100", "version_traps.csv",
     "gpu='H100'\nnvswitch=true\ndriver='535.104.05'\nfabric_manager='535.104.05'",
     "nccl='2.18.1'\n[env]\nNCCL_PROTO='^LL128'", "", false},
    {"NCCL 2.18.3 on HGX H100", "nccl_ll128_hgx_h100", "version_traps.csv",
     "gpu='H100'\nnvswitch=true\ndriver='535.104.05'\nfabric_manager='535.104.05'\nnccl='2.18.3'",
     "", "", false},
    {"GB200 with NCCL 2.26", "nccl_gb200_min", "version_traps.csv",
     "gpu='GB200'\ndriver='570.133.20'", "nccl='2.26.2'", "", true},
    {"GB200 with NCCL 2.27.5", "nccl_gb200_min", "version_traps.csv",
     "gpu='GB200'\ndriver='570.133.20'", "nccl='2.27.5'", "", false},
    {"ranks on different NCCL", "nccl_rank_mismatch", "version_traps.csv",
     "gpu='H100'\ndriver='550.54.15'\nnccl='2.21.5'", "", "nccl='2.20.3'", true},
    // ROCm.
    {"MI355X on ROCm 6.4", "rocm_gfx_unsupported", "amd_gpu_targets.csv",
     "gpu='MI355X'\nrocm='6.4.0'", "", "", true},
    {"MI355X on ROCm 7.0", "rocm_gfx_unsupported", "amd_gpu_targets.csv",
     "gpu='MI355X'\nrocm='7.0.0'", "", "", false},
    {"MI300X on ROCm 6.0.2", "rocm_gfx_unsupported", "amd_gpu_targets.csv",
     "gpu='MI300X'\nrocm='6.0.2'", "", "", false},
    {"image without gfx942", "rocm_gfx_target_missing", "version_traps.csv",
     "gpu='MI300X'\nrocm='6.2.0'", "rocm='6.2.0'\ngfx_targets=['gfx90a','gfx908']", "", true},
    {"image with gfx942:xnack-", "rocm_gfx_target_missing", "version_traps.csv",
     "gpu='MI300X'\nrocm='6.2.0'", "rocm='6.2.0'\ngfx_targets=['gfx942:xnack-']", "", false},
    {"Ubuntu 24.04 with ROCm 6.1.2", "rocm_os_unsupported", "compatibility-matrix-historical-6.0",
     "gpu='MI250X'\nrocm='6.1.2'\nos='Ubuntu 24.04'", "", "", true},
    {"Ubuntu 22.04.4 with ROCm 6.1.2", "rocm_os_unsupported", "compatibility-matrix-historical-6.0",
     "gpu='MI250X'\nrocm='6.1.2'\nos='ubuntu  22.04.4'", "", "", false},
    {"Oracle Linux is MI300X-only", "rocm_os_unsupported", "compatibility-matrix-historical-6.0",
     "gpu='MI210'\nrocm='6.3.3'\nos='Oracle Linux 8.10'", "", "", true},
    {"Oracle Linux with MI300X", "rocm_os_unsupported", "compatibility-matrix-historical-6.0",
     "gpu='MI300X'\nrocm='6.3.3'\nos='Oracle Linux 8.10'", "", "", false},
    {"Debian 12 multi-node", "rocm_os_unsupported", "compatibility-matrix-historical-6.0",
     "gpu='MI300X'\nrocm='6.3.3'\nos='Debian 12'", "", "multi_node=true", true},
    {"MI300X 6.2.0 on 22.04.5 6.8 HWE", "rocm_mi300x_os_kernel", "ecosystem.md 2.3",
     "gpu='MI300X'\nrocm='6.2.0'\nos='Ubuntu 22.04.5'\nkernel='6.8.0-45-generic'", "", "", true},
    {"MI300X 6.2.0 on 22.04.5 5.15 GA kernel", "rocm_mi300x_os_kernel", "ecosystem.md 2.3",
     "gpu='MI300X'\nrocm='6.2.0'\nos='Ubuntu 22.04.5'\nkernel='5.15.0-119-generic'", "", "", false},
    {"RCCL other than the release's", "rocm_rccl_version", "compatibility-matrix-historical-6.0",
     "gpu='MI300X'\nrocm='6.2.4'\nrccl='2.18.6'", "", "", true},
    {"RCCL of the release", "rocm_rccl_version", "compatibility-matrix-historical-6.0",
     "gpu='MI300X'\nrocm='6.2.4'\nrccl='2.20.5'", "", "", false},
    {"user space 6.0 on 6.3 KMD", "rocm_kmd_userspace_window",
     "compatibility-matrix-historical-6.0", "gpu='MI300X'\nrocm='6.3.3'", "rocm='6.0.2'", "", true},
    {"user space 5.7 on 6.1 KMD", "rocm_kmd_userspace_window",
     "compatibility-matrix-historical-6.0", "gpu='MI300X'\nrocm_kmd='6.1.0'\nrocm='6.1.0'",
     "rocm='5.7.1'", "", false},
    {"user space 7.2 on 6.4 KMD (+3)", "rocm_kmd_userspace_window", "version_traps.csv",
     "gpu='MI300X'\nrocm_kmd='6.4.0'\nrocm='6.4.0'", "rocm='7.2.0'", "", true},
    {"user space 7.0 on 6.4 KMD (+1)", "rocm_kmd_userspace_window", "version_traps.csv",
     "gpu='MI300X'\nrocm_kmd='6.4.0'\nrocm='6.4.0'", "rocm='7.0.0'", "", false},
    {"amdgpu 30.30 with ROCm 6.2", "amdgpu_driver_window", "version_traps.csv",
     "gpu='MI300X'\namdgpu_driver='30.30.1'\nrocm='6.2.4'", "", "", true},
    {"amdgpu 30.30 with ROCm 6.4", "amdgpu_driver_window", "version_traps.csv",
     "gpu='MI300X'\namdgpu_driver='30.30.1'\nrocm='6.4.1'", "", "", false},
    {"MI300 ROCm 6.2 RCCL scratch", "rccl_hsa_scratch", "version_traps.csv",
     "gpu='MI300X'\nrocm='6.2.0'", "", "", true},
    {"MI300 ROCm 6.2 with HSA_NO_SCRATCH_RECLAIM", "rccl_hsa_scratch", "version_traps.csv",
     "gpu='MI300X'\nrocm='6.2.0'", "", "env={HSA_NO_SCRATCH_RECLAIM='1'}", false},
    // Vendor and workload.
    {"CUDA image on an AMD node", "vendor_stack_mismatch", "ecosystem.md",
     "gpu='MI300X'\nrocm='6.2.0'", "cuda='12.4'", "", true},
    {"ROCm image on an NVIDIA node", "vendor_stack_mismatch", "ecosystem.md",
     "gpu='H100'\ndriver='550.54.15'", "rocm='6.2.0'", "", true},
    {"unknown GPU", "gpu_unknown", "gpus.toml", "gpu='Z9000'\ndriver='550.54.15'", "", "", true},
    {"hardware.toml fallback", "gpu_unknown", "gpus.toml",
     "gpu='Intel(R) Data Center GPU Max 1550'", "", "", false},
    {"workload wants AMD", "workload_vendor", "issue 4", "gpu='H100'\ndriver='550.54.15'", "",
     "vendor='amd'", true},
    {"workload model allow-list", "workload_gpu_model", "issue 4",
     "gpu='H100-SXM5'\ndriver='550.54.15'", "", "gpu_models=['H200','B200']", true},
    {"workload model allow-list by alias", "workload_gpu_model", "issue 4",
     "gpu='NVIDIA H100 80GB HBM3'\ndriver='550.54.15'", "", "gpu_models=['H100-SXM5']", false},
    {"workload needs sm_90", "workload_compute_capability", "nvidia_arch_support.csv",
     "gpu='A100'\ndriver='550.54.15'", "", "min_compute_capability='9.0'", true},
    {"workload gfx targets", "workload_gfx_target", "amd_gpu_targets.csv",
     "gpu='MI250X'\nrocm='6.2.0'", "", "gfx_targets=['gfx942']", true},
    {"workload needs native CUDA 12.4", "workload_min_version", "cuda_toolkit_min_driver.csv",
     "gpu='H100'\ndriver='535.104.05'", "", "min_cuda='12.4'", true},
    {"workload min ROCm from the image", "workload_min_version", "cuda_toolkit_min_driver.csv",
     "gpu='MI300X'\nrocm='6.3.0'", "rocm='6.2.0'", "min_rocm='6.3'", true},
};

Status Parse(const RuleCase& c, NodeStack* node, ImageStack* image, WorkloadRequirements* w) {
  ASSIGN_OR_RETURN(*node, ParseNodeStack(c.node, "node"));
  if (*c.image) {
    ASSIGN_OR_RETURN(*image, ParseImageStack(c.image, "image"));
  }
  if (*c.workload) {
    ASSIGN_OR_RETURN(*w, ParseWorkloadRequirements(c.workload, "workload"));
  }
  return OkStatus();
}

TEST(CompatCheckTest, EachRuleFiresOnlyWhereItsSourceSays) {
  const CompatCatalog& cat = CompatCatalog::Default();
  for (const RuleCase& c : kCases) {
    SCOPED_TRACE(c.name);
    NodeStack node;
    ImageStack image;
    WorkloadRequirements w;
    Status st = Parse(c, &node, &image, &w);
    ASSERT_TRUE(st.ok()) << st.ToString();
    CompatReport r =
        CheckCompat(cat, node, *c.image ? &image : nullptr, *c.workload ? &w : nullptr);
    ASSERT_NE(cat.FindRule(c.rule), nullptr) << c.rule;
    EXPECT_NE(cat.FindRule(c.rule)->source.file.find(c.source), std::string::npos)
        << c.rule << " source is " << cat.FindRule(c.rule)->source.file;
    EXPECT_EQ(r.Has(c.rule), c.expect) << FormatCompatTable(r);
    for (const CompatFinding& f : r.findings) {
      if (f.rule != c.rule) continue;
      EXPECT_EQ(f.severity, cat.FindRule(c.rule)->severity);
      EXPECT_EQ(f.source.file, cat.FindRule(c.rule)->source.file);
    }
  }
}

TEST(CompatCheckTest, EveryRuleHasACase) {
  for (const CompatRuleInfo& rule : CompatCatalog::Default().rules()) {
    if (rule.id == "driver_branch_eol") continue;  // needs a date: DriverBranchEol below
    bool fires = false;
    for (const RuleCase& c : kCases) fires |= c.expect && rule.id == c.rule;
    EXPECT_TRUE(fires) << "no firing test case for rule " << rule.id;
  }
}

TEST(CompatCheckTest, MessagesNameComponentsAndVersions) {
  auto node = ParseNodeStack("name='hgx-17'\ngpu='H100-SXM5'\ndriver='535.104.05'", "n");
  auto image = ParseImageStack("name='trainer:1'\ncuda='12.8.1'", "i");
  ASSERT_TRUE(node.ok() && image.ok());
  CompatReport r = CheckCompat(CompatCatalog::Default(), *node, &*image, nullptr);
  ASSERT_EQ(r.findings.size(), 1u) << FormatCompatTable(r);
  const CompatFinding& f = r.findings[0];
  EXPECT_EQ(f.rule, "cuda_minor_compat_features");
  EXPECT_EQ(f.severity, CompatSeverity::kWarning);
  for (const char* part :
       {"image trainer:1", "CUDA 12.8.1", "535.104.05", "570.124.06", "12.x floor 525.60.13"}) {
    EXPECT_NE(f.message.find(part), std::string::npos) << part << " in " << f.message;
  }
  EXPECT_TRUE(r.compatible());
}

TEST(CompatCheckTest, DriverBranchEol) {
  auto node = ParseNodeStack("gpu='H100'\ndriver='535.104.05'", "n");
  ASSERT_TRUE(node.ok());
  const CompatCatalog& cat = CompatCatalog::Default();
  EXPECT_FALSE(CheckCompat(cat, *node, nullptr, nullptr, {}).Has("driver_branch_eol"));
  EXPECT_FALSE(CheckCompat(cat, *node, nullptr, nullptr, {"2026-06"}).Has("driver_branch_eol"));
  CompatReport r = CheckCompat(cat, *node, nullptr, nullptr, {"2026-12"});
  ASSERT_TRUE(r.Has("driver_branch_eol"));
  EXPECT_EQ(r.findings[0].severity, CompatSeverity::kWarning);
  EXPECT_NE(r.findings[0].message.find("R535 (LTSB), end of life 2026-06"), std::string::npos);
}

TEST(CompatCheckTest, ErrorsSortFirstAndDecideCompatibility) {
  auto node = ParseNodeStack(
      "gpu='H100'\nnvswitch=true\ndriver='520.61.05'\nfabric_manager='520.61.04'", "n");
  auto image = ParseImageStack("cuda='12.10'", "i");
  ASSERT_TRUE(node.ok() && image.ok());
  CompatReport r = CheckCompat(CompatCatalog::Default(), *node, &*image, nullptr);
  EXPECT_FALSE(r.compatible());
  EXPECT_EQ(r.errors(), 2);    // fabric manager, below the 12.x floor
  EXPECT_EQ(r.warnings(), 1);  // 12.10 unknown
  EXPECT_EQ(r.findings.back().severity, CompatSeverity::kWarning);
  std::string table = FormatCompatTable(r);
  EXPECT_NE(table.find("result: INCOMPATIBLE (2 errors, 1 warning)"), std::string::npos) << table;
  std::string json = FormatCompatJson(r);
  EXPECT_EQ(json.rfind("{\"compatible\":false,\"errors\":2,\"warnings\":1,", 0), 0u) << json;
}

TEST(CompatCheckTest, CleanStackHasNoFindings) {
  auto node = ParseNodeStack(
      "gpu='H200'\nnvswitch=true\ndriver='570.124.06'\nfabric_manager='570.124.06'\n"
      "cuda='12.8'\nnccl='2.26.2-1+cuda12.8'",
      "n");
  auto image =
      ParseImageStack("cuda='12.8.1'\ncuda_archs=['sm_90','compute_90']\nnccl='2.26.2'", "i");
  ASSERT_TRUE(node.ok() && image.ok());
  CompatReport r = CheckCompat(CompatCatalog::Default(), *node, &*image, nullptr);
  EXPECT_TRUE(r.findings.empty()) << FormatCompatTable(r);
  EXPECT_EQ(FormatCompatTable(r), "no findings\nresult: compatible (0 errors, 0 warnings)\n");
}

}  // namespace
}  // namespace gpufleet
