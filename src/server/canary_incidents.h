// Canary verdicts as incidents: `gpufleet canary check|run --check --server
// URL` posts its failing verdicts to POST /api/v1/canary, and the server
// records each as an incident of kind "canary_regression" (team "platform").
//
// Payload (the `checks` objects are those of `canary check --json`):
//   {"node": "gpu-node-17",
//    "checks": [{"target": "model=h200-sxm;...", "benchmark": "gemm.bf16@8192",
//                "unit": "flop_per_second", "verdict": "regression",
//                "median": 6.4e14, "baseline_median": 7.1e14, "n": 5,
//                "baseline_n": 5, "worse_fraction": 0.099, "reason": "..."}]}
// Only "regression" and "fail" verdicts become incidents. One open incident
// per (node, target, benchmark): a repeated failure updates it. Unlike
// detector findings, a canary incident does not resolve by going stale: the
// incident life cycle (detect/incident_lifecycle.h) gives its kind the
// on-pass policy, so it stays open until a later push has verdict "pass" for
// the same (node, target, benchmark). "inconclusive", "no baseline" and
// other verdicts change nothing (detect::CanaryVerdictEffectOf).
// A newly opened incident fires an alert (AlertFromIncident), a repeat does
// not re-fire, and resolving sends the alert's resolve.
//
// Thread safety: pure functions. (The client side, canary::PushVerdicts, is in
// canary/verdict_push.h.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "detect/incident_book.h"

namespace gpufleet {

class AlertSender;

struct CanaryIncidents {
  std::vector<detect::IncidentRecord> incidents;  // one per "regression"/"fail" check
  std::vector<std::string> passed_keys;  // detect::CanaryIncidentKey of each "pass" check
  size_t ignored = 0;                     // checks that passed or could not tell
};

// InvalidArgument naming the field (e.g. "checks[2].benchmark") when the
// payload is malformed.
StatusOr<CanaryIncidents> CanaryIncidentsFromJson(std::string_view body, int64_t now_ns);

struct CanaryApplyResult {
  std::vector<int64_t> incidents;  // opened or updated, in check order
  size_t created = 0;              // of those, newly opened
  std::vector<int64_t> resolved;   // open incidents closed by a "pass"
  size_t ignored = 0;              // checks that changed nothing
};

// Records one push at now_ns through the incident life cycle: observes each
// failing check (open or update by its key), firing an alert on
// `alerts` (may be null) when an incident is newly opened, and resolves the
// open incident of each passing check, sending the alert's resolve. A pass
// with no open incident is ignored. Each incident is written before its
// alert is queued. Thread-safe as far as `store` and `alerts` are.
StatusOr<CanaryApplyResult> ApplyCanaryVerdicts(const CanaryIncidents& in,
                                                detect::IncidentBook& store, AlertSender* alerts,
                                                const std::string& external_url, int64_t now_ns);

}  // namespace gpufleet
