// CanaryRuns: every gate report posted to POST /api/v1/canary, kept in the
// SQLite state database (table `canary_runs`, migration component
// "canary_runs"), for GET /api/v1/canary/runs. Failures also become
// incidents (server/canary_incidents.h); this keeps passes too.
//
// A run is one push: {"node", ["image"], "checks": [...]} as
// server/canary_incidents.h describes. Its verdict is "fail" when any check
// is "regression" or "fail", else "warn" when any is not "pass" (inconclusive,
// no baseline), else "pass". Each check is listed as
//   {"name": benchmark, "target", "verdict", "value": median,
//    "baseline": baseline median or null, "delta_ratio": (value - baseline) /
//    baseline or null, "unit", "message": reason}.
//
// Errors: Record returns InvalidArgument naming the field for a payload that
// does not decode (the caller has parsed it already, so this is rare);
// storage errors as StateDb reports them.
//
// Thread safety: thread-safe (an internal mutex); the StateDb must not be
// used by anything else concurrently.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/state_db.h"

namespace gpufleet {

const std::vector<Migration>& CanaryRunMigrations();

inline constexpr int64_t kCanaryRunsMaxLimit = 1000;

class CanaryRuns {
 public:
  // `db` must outlive this and have CanaryRunMigrations() applied.
  explicit CanaryRuns(StateDb* db) : db_(db) {}

  // Stores one push received at now_ns; returns the run id.
  StatusOr<int64_t> Record(std::string_view body, int64_t now_ns);

  // {"runs": [...]} newest first; `target` "" = all, else runs whose node
  // or any check's target equals it; with `latest_per_node`, only each
  // node's newest run (however old). REQUIRES: 0 < limit <= kCanaryRunsMaxLimit.
  StatusOr<std::string> ListJson(const std::string& target, int64_t limit,
                                 bool latest_per_node = false);

 private:
  std::mutex mu_;
  StateDb* db_;  // guarded by mu_
};

}  // namespace gpufleet
