// The inputs of a compatibility check: what a node runs, what an image
// declares, what a workload requires. Read from TOML files (format in
// docs/compat.md) or filled in by callers (the placement engine, CLI flags).
// An empty Version / string means "not declared": rules needing it are skipped.
//
// Thread safety: plain values. Parse errors name origin:line and field.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compat/compat_version.h"
#include "core/status.h"
#include "schema/vendor.h"

namespace gpufleet {

struct NodeStack {
  std::string name;
  std::string gpu;        // model name: "H100-SXM5", "MI300X", or a data/hardware.toml key/name
  std::string os;         // "Ubuntu 22.04.4"
  std::string kernel;     // "6.5.0-41-generic"
  bool nvswitch = false;  // HGX/DGX NVSwitch system (needs Fabric Manager)
  // NVIDIA
  Version driver;                // user-space driver, nvidia-smi "Driver Version"
  Version driver_kernel_module;  // /proc/driver/nvidia/version
  Version cuda;                  // CUDA runtime/toolkit run on the host
  std::string fabric_manager;    // nv-fabricmanager version string
  PackageVersion nccl;
  // AMD
  Version rocm;           // ROCm user space on the host
  Version rocm_kmd;       // ROCm release of the loaded amdgpu kernel driver (default: rocm)
  Version amdgpu_driver;  // amdgpu driver package version, e.g. 30.30.0
  Version rccl;
};

struct ImageStack {
  std::string name;
  Version cuda;                      // CUDA runtime in the image
  bool cuda_forward_compat = false;  // ships cuda-compat-<major>-<minor>
  // Device code in the image's fat binaries: "sm_90" (SASS), "sm_90a"
  // (arch-specific SASS), "compute_90" (PTX).
  std::vector<std::string> cuda_archs;
  Version rocm;
  std::vector<std::string> gfx_targets;  // --offload-arch list, "gfx942" ("gfx90a:xnack-" ok)
  PackageVersion nccl;
  Version rccl;
  std::map<std::string, std::string> env;
};

struct WorkloadRequirements {
  std::string name;
  Vendor vendor = Vendor::kUnknown;     // kUnknown = any
  std::vector<std::string> gpu_models;  // allow-list; empty = any
  Version min_compute_capability;
  std::vector<std::string> gfx_targets;  // allow-list; empty = any
  Version min_driver;
  Version min_cuda;  // the node's driver must natively support this CUDA release
  Version min_rocm;
  Version min_nccl;
  Version min_rccl;
  Version nccl;  // the version every other rank of the job runs
  Version rccl;
  bool multi_node = false;
  std::map<std::string, std::string> env;
};

StatusOr<NodeStack> ParseNodeStack(std::string_view toml_text, std::string_view origin);
StatusOr<ImageStack> ParseImageStack(std::string_view toml_text, std::string_view origin);
StatusOr<WorkloadRequirements> ParseWorkloadRequirements(std::string_view toml_text,
                                                         std::string_view origin);

// Checks one entry of ImageStack::cuda_archs / gfx_targets: "sm_90",
// "sm_90a", "compute_90", or "gfx942[:feature...]".
Status ValidateCudaArch(std::string_view arch);
Status ValidateGfxTarget(std::string_view target);

}  // namespace gpufleet
