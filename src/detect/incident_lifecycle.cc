#include "detect/incident_lifecycle.h"

#include <algorithm>
#include <utility>

#include "core/duration.h"

namespace gpufleet::detect {

std::string CanaryIncidentKey(std::string_view node, std::string_view target,
                              std::string_view benchmark) {
  std::string key(kCanaryIncidentKind);
  key.append("|").append(node).append("|").append(target).append("|").append(benchmark);
  return key;
}

CanaryVerdictEffect CanaryVerdictEffectOf(std::string_view verdict) {
  if (verdict == "regression" || verdict == "fail") return CanaryVerdictEffect::kObserve;
  if (verdict == "pass") return CanaryVerdictEffect::kResolve;
  return CanaryVerdictEffect::kNone;
}

ResolvePolicy LifecyclePolicy::PolicyOf(std::string_view kind) const {
  return std::find(on_pass_kinds.begin(), on_pass_kinds.end(), kind) != on_pass_kinds.end()
             ? ResolvePolicy::kOnPass
             : ResolvePolicy::kOnAbsence;
}

IncidentRecord IncidentFromFinding(const Finding& f) {
  IncidentRecord r;
  r.dedup_key = f.key;
  r.kind = f.kind;
  r.subject = f.subject;
  r.devices = f.devices;
  r.workloads = f.workloads;
  r.team = f.team;
  r.severity = f.severity;
  r.summary = f.summary;
  r.window_start_ns = f.window_start_ns;
  r.window_end_ns = f.window_end_ns;
  r.estimated_slowdown = f.estimated_slowdown;
  for (const CauseShare& c : f.causes) r.causes.push_back({c.cause, c.share, c.explanation});
  for (const Evidence& e : f.evidence) {
    std::string detail;
    // "since 2026-12-05T04:56:44Z": when its run of points began.
    if (e.since_ns != 0) detail = "since " + IsoTime(e.since_ns / 1'000'000'000);
    r.evidence.push_back({e.series, e.condition, e.threshold, e.observed, detail});
  }
  return r;
}

IncidentLifecycle::IncidentLifecycle(IncidentBook& book, LifecyclePolicy policy)
    : book_(book), policy_(std::move(policy)) {}

LifecycleStep IncidentLifecycle::Step(const std::vector<Finding>& findings, int64_t now_ns) {
  LifecycleStep out;
  out.observed.reserve(findings.size());
  auto failed = [&out](const Status& st) {
    ++out.errors;
    if (out.first_error.ok()) out.first_error = st;
  };
  for (const Finding& f : findings) {
    if (f.key.empty()) {
      out.observed.push_back({});
      continue;
    }
    StatusOr<UpsertResult> up = Observe(IncidentFromFinding(f), now_ns);
    if (!up.ok()) failed(up.status());
    out.observed.push_back(up.ok() ? *up : UpsertResult{});
  }
  StatusOr<std::vector<IncidentRecord>> resolved = ResolveAbsent(now_ns);
  if (!resolved.ok()) {
    failed(resolved.status());
  } else {
    out.resolved = std::move(*resolved);
  }
  return out;
}

StatusOr<UpsertResult> IncidentLifecycle::Observe(const IncidentRecord& observation,
                                                  int64_t now_ns) {
  return book_.Upsert(observation, now_ns);
}

StatusOr<std::vector<IncidentRecord>> IncidentLifecycle::ResolveAbsent(int64_t now_ns) {
  return book_.ResolveStale(now_ns, policy_.resolve_after_ns, policy_.on_pass_kinds);
}

StatusOr<std::optional<IncidentRecord>> IncidentLifecycle::ResolvePassed(std::string_view dedup_key,
                                                                         int64_t now_ns) {
  return book_.ResolveOpen(dedup_key, now_ns);
}

}  // namespace gpufleet::detect
