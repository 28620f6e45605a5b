#include "place/compat_hook.h"

#include <optional>
#include <string>

#include "compat/compat_check.h"
#include "compat/compat_stack.h"

namespace gpufleet::place {

namespace {

// Parses `map[key]` into `*out` when present; an error names key and value.
std::optional<std::string> ReadVersion(const std::map<std::string, std::string>& map,
                                       const std::string& key, std::string_view who,
                                       Version* out) {
  auto it = map.find(key);
  if (it == map.end() || it->second.empty()) return std::nullopt;
  StatusOr<Version> v = Version::Parse(it->second);
  if (!v.ok()) return std::string(who) + " software " + key + ": " + v.status().message();
  *out = *std::move(v);
  return std::nullopt;
}

std::optional<std::string> ReadPackage(const std::map<std::string, std::string>& map,
                                       const std::string& key, std::string_view who,
                                       PackageVersion* out) {
  auto it = map.find(key);
  if (it == map.end() || it->second.empty()) return std::nullopt;
  StatusOr<PackageVersion> v = ParsePackageVersion(it->second);
  if (!v.ok()) return std::string(who) + " software " + key + ": " + v.status().message();
  *out = *std::move(v);
  return std::nullopt;
}

bool IsCatalogWorkloadKey(const std::string& key) {
  return key == "driver" || key == "cuda" || key == "rocm" || key == "nccl" || key == "rccl" ||
         key == "compute_capability";
}

Vendor VendorOf(std::string_view name) {
  if (name == "nvidia") return Vendor::kNvidia;
  if (name == "amd") return Vendor::kAmd;
  if (name == "intel") return Vendor::kIntel;
  return Vendor::kUnknown;
}

}  // namespace

SoftwareCompatHook CatalogCompatHook(const CompatCatalog& catalog) {
  return [&catalog](const NodeSpec& node,
                    const WorkloadRequest& req) -> std::optional<std::string> {
    const auto& sw = node.software;
    NodeStack stack;
    stack.name = node.name;
    stack.gpu = node.gpu_model;
    if (auto it = sw.find("os"); it != sw.end()) stack.os = it->second;
    if (auto it = sw.find("kernel"); it != sw.end()) stack.kernel = it->second;
    if (auto it = sw.find("fabric_manager"); it != sw.end()) stack.fabric_manager = it->second;
    if (auto it = sw.find("nvswitch"); it != sw.end()) stack.nvswitch = it->second == "true";
    const std::string who = "node " + node.name;
    for (auto [key, field] : {std::pair{"driver", &stack.driver},
                              std::pair{"driver_kernel_module", &stack.driver_kernel_module},
                              std::pair{"cuda", &stack.cuda}, std::pair{"rocm", &stack.rocm},
                              std::pair{"rocm_kmd", &stack.rocm_kmd},
                              std::pair{"amdgpu_driver", &stack.amdgpu_driver},
                              std::pair{"rccl", &stack.rccl}}) {
      if (auto err = ReadVersion(sw, key, who, field)) return err;
    }
    if (auto err = ReadPackage(sw, "nccl", who, &stack.nccl)) return err;

    WorkloadRequirements w;
    w.name = req.name;
    w.vendor = VendorOf(req.vendor);
    w.gpu_models = req.gpu_models;
    const std::string wl = "workload " + req.name;
    for (auto [key, field] : {std::pair{"driver", &w.min_driver}, std::pair{"cuda", &w.min_cuda},
                              std::pair{"rocm", &w.min_rocm}, std::pair{"nccl", &w.min_nccl},
                              std::pair{"rccl", &w.min_rccl},
                              std::pair{"compute_capability", &w.min_compute_capability}}) {
      if (auto err = ReadVersion(req.software, key, wl, field)) return err;
    }
    // Components the catalog does not know are matched exactly, as before.
    for (const auto& [key, value] : req.software) {
      if (IsCatalogWorkloadKey(key)) continue;
      auto it = sw.find(key);
      if (it == sw.end()) return "software " + key + " " + value + " required, node has none";
      if (it->second != value) {
        return "software " + key + " " + value + " required, node has " + it->second;
      }
    }
    CompatReport report = CheckCompat(catalog, stack, nullptr, &w);
    for (const CompatFinding& f : report.findings) {
      if (f.severity == CompatSeverity::kError) return f.rule + ": " + f.message;
    }
    return std::nullopt;
  };
}

}  // namespace gpufleet::place
