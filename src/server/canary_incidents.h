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
// Only "regression" and "fail" verdicts become incidents; the others are
// counted as ignored. One open incident per (node, target, benchmark): a
// repeated failure updates it.
//
// Thread safety: pure functions, except PushCanaryVerdicts (network I/O).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/incident_store.h"

namespace gpufleet {

inline constexpr std::string_view kCanaryIncidentKind = "canary_regression";

struct CanaryIncidents {
  std::vector<IncidentRecord> incidents;
  size_t ignored = 0;  // checks that passed or could not tell
};

// InvalidArgument naming the field (e.g. "checks[2].benchmark") when the
// payload is malformed.
StatusOr<CanaryIncidents> CanaryIncidentsFromJson(std::string_view body, int64_t now_ns);

// Posts `gate_json` (the output of canary::FormatGateJson) with `node` to
// `server_url` + /api/v1/canary. Returns the server's reply body; an error
// naming the URL and the HTTP status otherwise.
StatusOr<std::string> PushCanaryVerdicts(const std::string& server_url, const std::string& token,
                                         const std::string& node, const std::string& gate_json,
                                         int timeout_ms = 10000);

}  // namespace gpufleet
