// `gpufleet compat check`: is a node's software stack (and optionally an
// image's declared stack and a workload's requirements) compatible? Rules
// come from the compatibility catalog (data/compat/); each finding names the
// rule, its severity, the components and versions involved, and the source
// of the fact. The placement engine calls the same function per node.
//
// Thread safety: CheckCompat is a pure function of its inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compat/compat_catalog.h"
#include "compat/compat_stack.h"

namespace gpufleet {

struct CompatFinding {
  std::string rule;  // id in data/compat/rules.toml or traps.toml
  CompatSeverity severity = CompatSeverity::kError;
  std::string message;
  CompatSource source;
};

struct CompatReport {
  std::vector<CompatFinding> findings;  // errors first, then warnings; stable otherwise

  int errors() const;
  int warnings() const;
  bool compatible() const { return errors() == 0; }
  bool Has(std::string_view rule) const;
};

struct CompatOptions {
  // "YYYY-MM" of today, for driver branch end-of-life; "" skips that rule so
  // results do not depend on the clock unless asked.
  std::string today;
};

// A node's GPU model resolved to vendor and architecture: from
// data/compat/gpus.toml, else data/hardware.toml (key or vendor name).
struct ResolvedGpu {
  bool known = false;
  std::string model;  // canonical model ("H100") or the name as given when unknown
  Vendor vendor = Vendor::kUnknown;
  std::string arch;            // "sm_90", "gfx942"
  Version compute_capability;  // NVIDIA only: 9.0
  bool datacenter = true;
  Version min_driver;
};
ResolvedGpu ResolveGpu(const CompatCatalog& catalog, std::string_view name);

// `image` and `workload` may be null.
CompatReport CheckCompat(const CompatCatalog& catalog, const NodeStack& node,
                         const ImageStack* image, const WorkloadRequirements* workload,
                         const CompatOptions& options = {});

// Human-readable table: one row per finding (severity, rule, message, source)
// and a verdict line.
std::string FormatCompatTable(const CompatReport& report);
// {"compatible":..., "errors":N, "warnings":N, "findings":[{rule, severity,
// message, source_file, source_url}]}
std::string FormatCompatJson(const CompatReport& report);

}  // namespace gpufleet
