// The incident life cycle: findings -> open -> update -> resolve, by dedup
// key. One rule for the server (server/detector_loop.h), the canary path
// (server/canary_incidents.h) and the evaluation (detect/detect_eval.h).
//
// Each condition is an observation with a dedup key: a detector finding
// (IncidentFromFinding; key = Finding::key, e.g. "memory_contention/n1/3")
// or a failing canary check (key = CanaryIncidentKey). The first observation
// of a key opens an incident; later ones update it (IncidentBook's update
// rule) while it is open. How it resolves is the policy of its kind:
//   - on absence (every detector kind): at the first Step whose time is more
//     than resolve_after_ns of clock time after its last observation;
//   - on pass (canary_regression, budget_forecast_over): only by
//     ResolvePassed, when a later canary run passes the same check or the
//     budget check finds the forecast back under budget; absence never
//     resolves it.
// An observation after the incident resolved opens a new incident (new id).
// Within a Step, observations are recorded before the absence sweep, so a
// condition seen again at the very Step that would have resolved it keeps
// its incident open.
//
// The life cycle holds no state of its own (the book does) and does no I/O
// beyond the book: in memory for the evaluation, SQLite for the server.
// Thread safety: as thread-safe as its book.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "detect/finding.h"
#include "detect/incident_book.h"

namespace gpufleet::detect {

// The server's default `detect.resolve_after` (2 minutes).
inline constexpr int64_t kDefaultResolveAfterNs = 120'000'000'000;

// Canary incidents: kind, team and key of a failing canary check.
inline constexpr std::string_view kCanaryIncidentKind = "canary_regression";
// "canary_regression|<node>|<target>|<benchmark>".
std::string CanaryIncidentKey(std::string_view node, std::string_view target,
                              std::string_view benchmark);

// What a canary verdict does to the incident of its check: "regression" and
// "fail" open or update it, "pass" resolves it, anything else ("inconclusive",
// "no baseline", ...) changes nothing.
enum class CanaryVerdictEffect { kObserve, kResolve, kNone };
CanaryVerdictEffect CanaryVerdictEffectOf(std::string_view verdict);

// Budget incidents (server/budget_alerts.h): a team's month forecast over its
// budget. Resolved on pass too: when the forecast is back under the budget,
// or the month is over.
inline constexpr std::string_view kBudgetIncidentKind = "budget_forecast_over";
// A workload's cost per unit of work jumped (server/cost_jump_alerts.h);
// resolved on pass, when a check finds it back under the threshold.
inline constexpr std::string_view kCostJumpIncidentKind = "cost_per_unit_jump";

enum class ResolvePolicy {
  kOnAbsence,  // resolves resolve_after_ns after its last observation
  kOnPass,     // resolves only through ResolvePassed
};

struct LifecyclePolicy {
  int64_t resolve_after_ns = kDefaultResolveAfterNs;  // clock time; >= 0
  std::vector<std::string> on_pass_kinds = {std::string(kCanaryIncidentKind),
                                            std::string(kBudgetIncidentKind),
                                            std::string(kCostJumpIncidentKind)};

  ResolvePolicy PolicyOf(std::string_view kind) const;
};

// The observation the life cycle records for `finding` (key, kind, subject,
// devices, workloads, team, severity, summary, window, slowdown, causes,
// evidence; Evidence::since_ns goes into the evidence detail).
IncidentRecord IncidentFromFinding(const Finding& finding);

// The outcome of one Step.
struct LifecycleStep {
  // One per finding, in order: the incident it opened (created) or updated;
  // id 0 for a finding without a key (ignored) or whose write failed.
  std::vector<UpsertResult> observed;
  std::vector<IncidentRecord> resolved;  // resolved by absence at this Step
  size_t errors = 0;                     // failed book writes
  Status first_error;                    // OK when errors == 0
};

class IncidentLifecycle {
 public:
  // `book` must outlive the life cycle.
  explicit IncidentLifecycle(IncidentBook& book, LifecyclePolicy policy = {});

  // One evaluation at now_ns: observes every finding that has a key, then
  // resolves the on-absence incidents not observed for more than
  // resolve_after_ns. A failed write is counted and the rest still runs.
  LifecycleStep Step(const std::vector<Finding>& findings, int64_t now_ns);

  // Observes one condition at now_ns (opens or updates by its dedup key).
  StatusOr<UpsertResult> Observe(const IncidentRecord& observation, int64_t now_ns);
  // The absence sweep of Step alone.
  StatusOr<std::vector<IncidentRecord>> ResolveAbsent(int64_t now_ns);
  // A pass for `dedup_key` at now_ns: resolves its open incident and returns
  // it; nullopt when none is open.
  StatusOr<std::optional<IncidentRecord>> ResolvePassed(std::string_view dedup_key, int64_t now_ns);

  const LifecyclePolicy& policy() const { return policy_; }
  IncidentBook& book() { return book_; }

 private:
  IncidentBook& book_;
  const LifecyclePolicy policy_;
};

}  // namespace gpufleet::detect
