#include "detect/detect_eval.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/strings.h"

namespace gpufleet::detect {
namespace {

int64_t RuleWindow(const DetectConfig& c, const Finding& f) {
  for (const RuleConfig& r : c.rules) {
    if (r.name == f.kind) return r.for_ns;
  }
  if (f.kind == kKindVariance) return c.variance.window_ns;
  if (f.kind == kKindCloudSpecific) return c.cross_cloud.window_ns;
  if (f.kind == kKindBaselineDeviation) return c.baseline.for_ns;
  for (const CaptureTriggerConfig& t : c.captures) {
    if (t.name == f.capture_name) return t.for_ns;
  }
  return 0;
}

// The class an incident is scored under; "" for findings not scored.
std::string ClassOf(const Finding& f) {
  if (IsContentionKind(f.kind)) return "contention";
  // A capture trigger's condition on a device with work is an incident named
  // after the trigger (detect/actionable.h).
  if (f.kind == "low_utilization") return "idle";
  if (f.kind == kKindMemoryBound || f.kind == kKindHostBound) return "";  // informational
  if (f.kind == f.capture_name) return "";
  if (f.kind == kKindBaselineDeviation) return "baseline";
  return f.kind;
}

}  // namespace

EvalIncidentTracker::EvalIncidentTracker(const DetectConfig& config, LifecyclePolicy policy)
    : config_(config), book_(NewMemoryIncidentBook()), lifecycle_(*book_, std::move(policy)) {}

Status EvalIncidentTracker::Add(const std::vector<Finding>& findings, int64_t now_ns) {
  std::vector<Finding> scored;
  std::vector<std::string> classes;
  for (const Finding& f : findings) {
    std::string cls = ClassOf(f);
    if (cls.empty()) continue;
    scored.push_back(f);
    classes.push_back(std::move(cls));
  }
  LifecycleStep step = lifecycle_.Step(scored, now_ns);
  RETURN_IF_ERROR(step.first_error);
  for (size_t i = 0; i < scored.size(); ++i) {
    const Finding& f = scored[i];
    const UpsertResult& up = step.observed[i];
    if (up.id == 0) continue;  // no key: the server ignores it too
    if (up.created) {
      EvalIncident& inc = scored_[up.id];
      inc.cls = classes[i];
      inc.label = inc.cls == "contention" ? "" : inc.cls;
      inc.bound_ns = RuleWindow(config_, f) + 2 * config_.interval_ns;
    }
    EvalIncident& inc = scored_[up.id];
    if (inc.cls == "contention" && inc.label.empty() && !f.causes.empty()) {
      inc.label = f.causes.front().cause;
    }
  }
  return OkStatus();
}

StatusOr<std::vector<EvalIncident>> EvalIncidentTracker::Incidents() const {
  ASSIGN_OR_RETURN(std::vector<IncidentRecord> all, book_->List(std::nullopt));
  std::vector<EvalIncident> out;
  out.reserve(all.size());
  for (auto r = all.rbegin(); r != all.rend(); ++r) {  // List is newest first
    auto it = scored_.find(r->id);
    if (it == scored_.end()) continue;
    EvalIncident inc = it->second;
    inc.devices = r->devices;
    inc.first_ns = r->first_seen_ns;
    inc.last_ns = r->last_seen_ns;
    if (inc.label.empty()) inc.label = "unclassified";
    out.push_back(std::move(inc));
  }
  return out;
}

}  // namespace gpufleet::detect
