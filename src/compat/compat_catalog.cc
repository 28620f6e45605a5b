#include "compat/compat_catalog.h"

#include <algorithm>
#include <cctype>

#include "compat/compat_toml.h"
#include "core/embedded.h"
#include "core/toml_reader.h"

namespace gpufleet {

std::string_view CompatSeverityName(CompatSeverity s) {
  return s == CompatSeverity::kError ? "error" : "warning";
}

// Reads the data files into a CompatCatalog. A class (rather than free
// functions) so it may fill the catalog's private tables.
class CompatCatalogParser {
 public:
  explicit CompatCatalogParser(CompatCatalog* cat) : cat_(cat) {}

  Status ParseFile(const CompatCatalog::File& f) {
    origin_ = "data/" + f.name;
    ASSIGN_OR_RETURN(toml::table root, ParseToml(f.text, origin_));
    std::string stem = f.name;
    size_t slash = stem.rfind('/');
    if (slash != std::string::npos) stem = stem.substr(slash + 1);
    if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".toml") {
      stem = stem.substr(0, stem.size() - 5);
    }
    RETURN_IF_ERROR(ParseSources(root, stem));
    if (stem == "cuda") return ParseCuda(root);
    if (stem == "rocm") return ParseRocm(root);
    if (stem == "gpus") return ParseGpus(root);
    if (stem == "traps") return ParseTraps(root);
    if (stem == "rules") return ParseRules(root);
    return InvalidArgumentError(origin_ +
                                ": unknown compatibility table (expected cuda, rocm, "
                                "gpus, traps or rules)");
  }

 private:
  // Calls fn(table) for every [[name]] entry.
  template <typename Fn>
  Status ForEach(const toml::table& root, std::string_view name, bool required, Fn fn) {
    const toml::node* n = root.get(name);
    if (n == nullptr) {
      if (!required) return OkStatus();
      return InvalidArgumentError(origin_ + ": no [[" + std::string(name) + "]] entries");
    }
    const toml::array* arr = n->as_array();
    if (arr == nullptr) {
      return InvalidArgumentError(TomlWhere(origin_, *n) + "'" + std::string(name) +
                                  "' must be an array of tables");
    }
    for (const toml::node& e : *arr) {
      const toml::table* t = e.as_table();
      if (t == nullptr) {
        return InvalidArgumentError(TomlWhere(origin_, e) + "[[" + std::string(name) +
                                    "]] must be a table");
      }
      RETURN_IF_ERROR(fn(*t));
    }
    return OkStatus();
  }

  Status ParseSources(const toml::table& root, const std::string& stem) {
    const toml::table* s = root["sources"].as_table();
    if (s == nullptr) return OkStatus();
    for (const auto& [k, v] : *s) {
      const toml::table* t = v.as_table();
      if (t == nullptr)
        return InvalidArgumentError(TomlWhere(origin_, v) + "sources must be tables");
      CompatSource src;
      ASSIGN_OR_RETURN(src.file, RequiredString(*t, "file", origin_));
      ASSIGN_OR_RETURN(src.url, RequiredString(*t, "url", origin_));
      cat_->sources_[stem + "." + std::string(k.str())] = std::move(src);
    }
    return OkStatus();
  }

  Status ParseCuda(const toml::table& root) {
    RETURN_IF_ERROR(ForEach(root, "toolkit", true, [&](const toml::table& t) -> Status {
      CudaToolkitRow r;
      ASSIGN_OR_RETURN(r.version, RequiredVersionField(t, "version", origin_));
      ASSIGN_OR_RETURN(r.release, RequiredString(t, "release", origin_));
      ASSIGN_OR_RETURN(r.min_driver, RequiredVersionField(t, "min_driver", origin_));
      cat_->toolkits_.push_back(std::move(r));
      return OkStatus();
    }));
    RETURN_IF_ERROR(ForEach(root, "family", true, [&](const toml::table& t) -> Status {
      CudaFamilyRow r;
      ASSIGN_OR_RETURN(r.major, OptionalUintField(t, "major", 0, origin_));
      ASSIGN_OR_RETURN(r.floor_driver, RequiredVersionField(t, "floor_driver", origin_));
      cat_->families_.push_back(std::move(r));
      return OkStatus();
    }));
    RETURN_IF_ERROR(ForEach(root, "forward_compat_base", true, [&](const toml::table& t) -> Status {
      ForwardCompatBaseRow r;
      ASSIGN_OR_RETURN(r.branch, OptionalUintField(t, "branch", 0, origin_));
      ASSIGN_OR_RETURN(r.min_driver, RequiredVersionField(t, "min_driver", origin_));
      cat_->forward_compat_.push_back(std::move(r));
      return OkStatus();
    }));
    RETURN_IF_ERROR(ForEach(root, "arch", true, [&](const toml::table& t) -> Status {
      CudaArchRow r;
      ASSIGN_OR_RETURN(r.architecture, RequiredString(t, "architecture", origin_));
      ASSIGN_OR_RETURN(std::vector<std::string> ccs,
                       StringArrayField(t, "compute_capabilities", origin_));
      if (ccs.empty()) {
        return InvalidArgumentError(TomlWhere(origin_, t) + "missing field 'compute_capabilities'");
      }
      for (const std::string& cc : ccs) {
        auto v = Version::Parse(cc);
        if (!v.ok()) {
          return InvalidArgumentError(TomlWhere(origin_, t) +
                                      "field 'compute_capabilities': " + v.status().message());
        }
        r.compute_capabilities.push_back(std::move(v).value());
      }
      ASSIGN_OR_RETURN(r.example_gpus, OptionalString(t, "example_gpus", origin_));
      ASSIGN_OR_RETURN(r.first_toolkit, RequiredVersionField(t, "first_toolkit", origin_));
      ASSIGN_OR_RETURN(r.last_toolkit_major,
                       OptionalUintField(t, "last_toolkit_major", 0, origin_));
      ASSIGN_OR_RETURN(r.last_driver_branch,
                       OptionalUintField(t, "last_driver_branch", 0, origin_));
      cat_->archs_.push_back(std::move(r));
      return OkStatus();
    }));
    return ForEach(root, "branch", true, [&](const toml::table& t) -> Status {
      DriverBranchRow r;
      ASSIGN_OR_RETURN(r.branch, OptionalUintField(t, "branch", 0, origin_));
      ASSIGN_OR_RETURN(r.designation, RequiredString(t, "designation", origin_));
      ASSIGN_OR_RETURN(r.eol, RequiredString(t, "eol", origin_));
      if (r.eol.size() != 7 || r.eol[4] != '-') {
        return InvalidArgumentError(TomlWhere(origin_, t) + "field 'eol': expected YYYY-MM");
      }
      ASSIGN_OR_RETURN(r.max_cuda_major, OptionalUintField(t, "max_cuda_major", 0, origin_));
      cat_->branches_.push_back(std::move(r));
      return OkStatus();
    });
  }

  Status ParseMinorList(const toml::table& t, std::string_view key, std::vector<Version>* out) {
    ASSIGN_OR_RETURN(std::vector<std::string> items, StringArrayField(t, key, origin_));
    for (const std::string& s : items) {
      auto v = Version::Parse(s);
      if (!v.ok()) {
        return InvalidArgumentError(TomlWhere(origin_, t) + "field '" + std::string(key) +
                                    "': " + v.status().message());
      }
      out->push_back(std::move(v).value());
    }
    return OkStatus();
  }

  Status ParseRocm(const toml::table& root) {
    RETURN_IF_ERROR(ParseMinorList(root, "release_sequence", &cat_->rocm_sequence_));
    RETURN_IF_ERROR(ForEach(root, "gfx_target", true, [&](const toml::table& t) -> Status {
      GfxTargetRow r;
      ASSIGN_OR_RETURN(r.target, RequiredString(t, "target", origin_));
      ASSIGN_OR_RETURN(r.products, StringArrayField(t, "products", origin_));
      ASSIGN_OR_RETURN(r.architecture, OptionalString(t, "architecture", origin_));
      ASSIGN_OR_RETURN(r.first_rocm, OptionalVersionField(t, "first_rocm", origin_));
      cat_->gfx_.push_back(std::move(r));
      return OkStatus();
    }));
    RETURN_IF_ERROR(ForEach(root, "amdgpu_driver", false, [&](const toml::table& t) -> Status {
      AmdgpuDriverRow r;
      ASSIGN_OR_RETURN(r.version_prefix, RequiredVersionField(t, "version_prefix", origin_));
      RETURN_IF_ERROR(ParseMinorList(t, "rocm", &r.rocm));
      cat_->amdgpu_drivers_.push_back(std::move(r));
      return OkStatus();
    }));
    RETURN_IF_ERROR(
        ForEach(root, "os_kernel_exclusion", false, [&](const toml::table& t) -> Status {
          OsKernelExclusionRow r;
          ASSIGN_OR_RETURN(r.rocm, RequiredVersionField(t, "rocm", origin_));
          ASSIGN_OR_RETURN(r.gfx, RequiredString(t, "gfx", origin_));
          ASSIGN_OR_RETURN(r.os, RequiredString(t, "os", origin_));
          ASSIGN_OR_RETURN(r.kernel_prefix, RequiredString(t, "kernel_prefix", origin_));
          cat_->exclusions_.push_back(std::move(r));
          return OkStatus();
        }));
    return ForEach(root, "release", true, [&](const toml::table& t) -> Status {
      RocmReleaseRow r;
      ASSIGN_OR_RETURN(r.version, RequiredVersionField(t, "version", origin_));
      ASSIGN_OR_RETURN(r.os, StringArrayField(t, "os", origin_));
      ASSIGN_OR_RETURN(r.os_mi300x_only, StringArrayField(t, "os_mi300x_only", origin_));
      ASSIGN_OR_RETURN(r.os_single_node_only, StringArrayField(t, "os_single_node_only", origin_));
      ASSIGN_OR_RETURN(r.gfx, StringArrayField(t, "gfx", origin_));
      ASSIGN_OR_RETURN(r.rccl, RequiredVersionField(t, "rccl", origin_));
      RETURN_IF_ERROR(ParseMinorList(t, "kmd_tested_userspace", &r.kmd_tested_userspace));
      cat_->rocm_releases_.push_back(std::move(r));
      return OkStatus();
    });
  }

  Status ParseGpus(const toml::table& root) {
    return ForEach(root, "gpu", true, [&](const toml::table& t) -> Status {
      GpuModelRow r;
      ASSIGN_OR_RETURN(r.model, RequiredString(t, "model", origin_));
      ASSIGN_OR_RETURN(r.names, StringArrayField(t, "names", origin_));
      r.names.push_back(r.model);
      ASSIGN_OR_RETURN(std::string vendor, RequiredString(t, "vendor", origin_));
      r.vendor = ParseVendor(vendor);
      if (r.vendor == Vendor::kUnknown) {
        return InvalidArgumentError(TomlWhere(origin_, t) + "field 'vendor': unknown vendor '" +
                                    vendor + "'");
      }
      ASSIGN_OR_RETURN(r.arch, RequiredString(t, "arch", origin_));
      ASSIGN_OR_RETURN(r.datacenter, OptionalBoolField(t, "datacenter", true, origin_));
      ASSIGN_OR_RETURN(r.min_driver, OptionalVersionField(t, "min_driver", origin_));
      for (const std::string& n : r.names) {
        if (cat_->FindGpu(n) != nullptr) {
          return InvalidArgumentError(TomlWhere(origin_, t) + "GPU name '" + n + "' listed twice");
        }
      }
      cat_->gpus_.push_back(std::move(r));
      return OkStatus();
    });
  }

  StatusOr<CompatRuleInfo> ParseRuleInfo(const toml::table& t) {
    CompatRuleInfo r;
    ASSIGN_OR_RETURN(r.id, RequiredString(t, "id", origin_));
    ASSIGN_OR_RETURN(std::string sev, RequiredString(t, "severity", origin_));
    if (sev == "error") {
      r.severity = CompatSeverity::kError;
    } else if (sev == "warning") {
      r.severity = CompatSeverity::kWarning;
    } else {
      return InvalidArgumentError(TomlWhere(origin_, t) +
                                  "field 'severity': expected 'error' or 'warning'");
    }
    ASSIGN_OR_RETURN(r.summary, RequiredString(t, "summary", origin_));
    ASSIGN_OR_RETURN(r.source.file, RequiredString(t, "file", origin_));
    ASSIGN_OR_RETURN(r.source.url, RequiredString(t, "url", origin_));
    if (cat_->FindRule(r.id) != nullptr) {
      return InvalidArgumentError(TomlWhere(origin_, t) + "rule '" + r.id + "' defined twice");
    }
    return r;
  }

  Status ParseRules(const toml::table& root) {
    return ForEach(root, "rule", true, [&](const toml::table& t) -> Status {
      ASSIGN_OR_RETURN(CompatRuleInfo r, ParseRuleInfo(t));
      cat_->rules_.push_back(std::move(r));
      return OkStatus();
    });
  }

  Status ParseTraps(const toml::table& root) {
    return ForEach(root, "trap", true, [&](const toml::table& t) -> Status {
      CompatTrapRow r;
      ASSIGN_OR_RETURN(r.rule, ParseRuleInfo(t));
      ASSIGN_OR_RETURN(r.library, RequiredString(t, "library", origin_));
      if (r.library != "nccl" && r.library != "rccl" && r.library != "rocm") {
        return InvalidArgumentError(TomlWhere(origin_, t) +
                                    "field 'library': expected nccl, rccl or rocm");
      }
      ASSIGN_OR_RETURN(r.min, OptionalVersionField(t, "min", origin_));
      ASSIGN_OR_RETURN(r.below, OptionalVersionField(t, "below", origin_));
      ASSIGN_OR_RETURN(r.archs, StringArrayField(t, "archs", origin_));
      ASSIGN_OR_RETURN(r.models, StringArrayField(t, "models", origin_));
      ASSIGN_OR_RETURN(r.nvswitch_only, OptionalBoolField(t, "nvswitch_only", false, origin_));
      ASSIGN_OR_RETURN(r.mitigation_env, StringArrayField(t, "mitigation_env", origin_));
      ASSIGN_OR_RETURN(r.remedy, OptionalString(t, "remedy", origin_));
      // Traps are rules too: register them so findings resolve uniformly.
      cat_->rules_.push_back(r.rule);
      cat_->traps_.push_back(std::move(r));
      return OkStatus();
    });
  }

  CompatCatalog* cat_;
  std::string origin_;
};

StatusOr<CompatCatalog> CompatCatalog::Parse(const std::vector<File>& files) {
  CompatCatalog cat;
  CompatCatalogParser parser(&cat);
  for (const File& f : files) RETURN_IF_ERROR(parser.ParseFile(f));
  // Newest first, so FindToolkit / FindRocmMinor take the first match.
  std::sort(cat.toolkits_.begin(), cat.toolkits_.end(),
            [](const CudaToolkitRow& a, const CudaToolkitRow& b) { return a.version > b.version; });
  std::sort(cat.rocm_releases_.begin(), cat.rocm_releases_.end(),
            [](const RocmReleaseRow& a, const RocmReleaseRow& b) { return a.version > b.version; });
  return cat;
}

const CompatCatalog& CompatCatalog::Default() {
  static const CompatCatalog* catalog = [] {
    std::vector<File> files;
    for (std::string_view name : EmbeddedFileNames()) {
      if (name.substr(0, 7) != "compat/") continue;
      files.push_back({std::string(name), *FindEmbeddedFile(name)});
    }
    StatusOr<CompatCatalog> c = Parse(files);
    if (!c.ok()) CheckFailed(__FILE__, __LINE__, "default compat catalog", c.status().ToString());
    return new CompatCatalog(std::move(c).value());
  }();
  return *catalog;
}

const CudaToolkitRow* CompatCatalog::FindToolkit(const Version& cuda) const {
  for (const CudaToolkitRow& r : toolkits_) {
    if (r.version.SamePrefix(cuda, 2) && r.version <= cuda) return &r;
  }
  return nullptr;
}

const CudaFamilyRow* CompatCatalog::FindFamily(uint32_t major) const {
  for (const CudaFamilyRow& r : families_) {
    if (r.major == major) return &r;
  }
  return nullptr;
}

const ForwardCompatBaseRow* CompatCatalog::FindForwardCompatBase(uint32_t branch) const {
  for (const ForwardCompatBaseRow& r : forward_compat_) {
    if (r.branch == branch) return &r;
  }
  return nullptr;
}

const CudaArchRow* CompatCatalog::FindArch(const Version& cc) const {
  for (const CudaArchRow& r : archs_) {
    for (const Version& v : r.compute_capabilities) {
      if (v == cc) return &r;
    }
  }
  return nullptr;
}

const DriverBranchRow* CompatCatalog::FindBranch(uint32_t branch) const {
  for (const DriverBranchRow& r : branches_) {
    if (r.branch == branch) return &r;
  }
  return nullptr;
}

const GfxTargetRow* CompatCatalog::FindGfx(std::string_view target) const {
  for (const GfxTargetRow& r : gfx_) {
    if (r.target == target) return &r;
  }
  return nullptr;
}

const RocmReleaseRow* CompatCatalog::FindRocmRelease(const Version& rocm) const {
  for (const RocmReleaseRow& r : rocm_releases_) {
    if (r.version == rocm) return &r;
  }
  return nullptr;
}

const RocmReleaseRow* CompatCatalog::FindRocmMinor(const Version& rocm) const {
  for (const RocmReleaseRow& r : rocm_releases_) {
    if (r.version.SamePrefix(rocm, 2)) return &r;
  }
  return nullptr;
}

const AmdgpuDriverRow* CompatCatalog::FindAmdgpuDriver(const Version& driver) const {
  for (const AmdgpuDriverRow& r : amdgpu_drivers_) {
    if (r.version_prefix.SamePrefix(driver, r.version_prefix.components().size())) return &r;
  }
  return nullptr;
}

int CompatCatalog::RocmReleaseIndex(const Version& rocm) const {
  for (size_t i = 0; i < rocm_sequence_.size(); ++i) {
    if (rocm_sequence_[i].SamePrefix(rocm, 2)) return static_cast<int>(i);
  }
  return -1;
}

std::string CompatCatalog::NormalizeModelName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const GpuModelRow* CompatCatalog::FindGpu(std::string_view name) const {
  std::string want = NormalizeModelName(name);
  if (want.empty()) return nullptr;
  for (const GpuModelRow& r : gpus_) {
    for (const std::string& n : r.names) {
      if (NormalizeModelName(n) == want) return &r;
    }
  }
  return nullptr;
}

const CompatRuleInfo* CompatCatalog::FindRule(std::string_view id) const {
  for (const CompatRuleInfo& r : rules_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace gpufleet
