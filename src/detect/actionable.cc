#include "detect/actionable.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

namespace gpufleet::detect {
namespace {

std::string_view NodeOf(std::string_view device_key) {
  return device_key.substr(0, device_key.find('/'));
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Why `f` is contention, or "" when nothing shows it.
std::string ContentionEvidence(const EvalContext& ctx, const Finding& f) {
  const std::string& device = f.devices.front();
  auto it = ctx.workloads_by_device.find(device);
  if (it != ctx.workloads_by_device.end() && it->second.size() >= 2) {
    return "neighbour on the device: workloads " + Join(it->second);
  }
  // Another partition (MIG / XCP / tile) of the same GPU with work on it.
  const std::string partitions = device.substr(0, device.find("/p", device.find('/') + 1)) + "/p";
  for (const auto& [other, workloads] : ctx.workloads_by_device) {
    if (other == device || workloads.empty() || !other.starts_with(partitions)) continue;
    return "neighbour on another partition of the GPU: " + other + " (" + Join(workloads) + ")";
  }
  return f.slowdown_evidence;
}

}  // namespace

void KeepActionable(const EvalContext& ctx, std::vector<Finding>& findings,
                    ActionableStats& stats) {
  std::set<std::string_view> attributed_nodes;
  for (const auto& [device, workloads] : ctx.workloads_by_device) {
    if (!workloads.empty()) attributed_nodes.insert(NodeOf(device));
  }
  auto idle = [&](const std::string& device) {
    if (!attributed_nodes.contains(NodeOf(device))) return false;
    auto it = ctx.workloads_by_device.find(device);
    return it == ctx.workloads_by_device.end() || it->second.empty();
  };
  auto all_idle = [&](const Finding& f) {
    if (f.devices.empty()) return false;  // workload-level findings (variance, cross-cloud)
    for (const std::string& d : f.devices) {
      if (!idle(d)) return false;
    }
    return true;
  };

  std::vector<Finding> kept;
  std::vector<Finding> captures;
  kept.reserve(findings.size());
  for (Finding& f : findings) {
    if (all_idle(f)) {
      ++stats.idle_device_findings;
      continue;
    }
    (f.kind == kKindCaptureTrigger ? captures : kept).push_back(std::move(f));
  }
  for (Finding& c : captures) {
    Finding* served = nullptr;
    for (Finding& f : kept) {
      if (!f.capture_command.empty()) continue;
      for (const std::string& d : f.devices) {
        for (const std::string& cd : c.devices) served = d == cd ? &f : served;
      }
      if (served != nullptr) break;
    }
    if (served == nullptr) {
      // The trigger's own condition on a device that has work is the
      // incident (a job allocated a GPU and left it near idle; a page-fault
      // storm): named after the trigger, with its capture.
      ++stats.captures_as_incident;
      c.kind = c.capture_name;
      c.key = c.kind + "/" + (c.devices.empty() ? std::string() : c.devices.front());
      if (c.summary.starts_with("capture ")) c.summary.erase(0, 8);
      kept.push_back(std::move(c));
      continue;
    }
    served->capture_name = std::move(c.capture_name);
    served->capture_command = std::move(c.capture_command);
    ++stats.captures_attached;
  }
  // Contention needs evidence; else it is a job memory-bound on its own.
  std::vector<Finding> out;
  out.reserve(kept.size());
  for (Finding& f : kept) {
    if (!IsContentionKind(f.kind) || f.devices.empty()) {
      out.push_back(std::move(f));
      continue;
    }
    std::string why = ContentionEvidence(ctx, f);
    if (!why.empty()) {
      f.summary += "; evidence of contention: " + why;
      Evidence e;
      e.series = "contention_evidence";
      e.condition = why;
      f.evidence.push_back(std::move(e));
      out.push_back(std::move(f));
      continue;
    }
    ++stats.memory_bound;
    f.rule = f.kind;
    f.kind = kKindMemoryBound;
    f.key = std::string(kKindMemoryBound) + "/" + f.rule + "/" + f.devices.front();
    f.severity = "info";
    f.summary = "memory_bound on " + f.devices.front() + " (" + f.rule +
                " conditions held, but no neighbour on the device and no slowdown against its "
                "own baseline that a neighbour explains: informational)";
    f.causes.clear();
    out.push_back(std::move(f));
  }
  // A baseline deviation is evidence for the finding that names its cause
  // on the same device; alone it names none: a lead, not an incident.
  std::vector<Finding> deviations;
  std::erase_if(out, [&](Finding& f) {
    if (f.kind != kKindBaselineDeviation) return false;
    deviations.push_back(std::move(f));
    return true;
  });
  for (Finding& d : deviations) {
    Finding* explained = nullptr;
    for (Finding& f : out) {
      if (f.severity == "info" || f.kind == kKindBaselineDeviation) continue;
      for (const std::string& dev : f.devices) {
        if (std::find(d.devices.begin(), d.devices.end(), dev) != d.devices.end()) explained = &f;
      }
      if (explained != nullptr) break;
    }
    if (explained != nullptr) {
      ++stats.baseline_folded;
      for (Evidence& e : d.evidence) explained->evidence.push_back(std::move(e));
      continue;
    }
    ++stats.baseline_informational;
    d.severity = "info";
    d.summary += " (no detector names a cause: informational)";
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const Finding& a, const Finding& b) { return a.key < b.key; });
  findings = std::move(out);
}

}  // namespace gpufleet::detect
