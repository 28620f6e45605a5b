// WorkMeter: units of work per workload and minute, in the state database
// (migration "cost_work"), so the ledger's charges can be divided by work:
// cost per step and per million tokens (cost/unit_cost.h).
//
//   gpu_workload_step_duration_seconds  one sample per step: counts a step
//                                       and adds its seconds
//   gpu_workload_tokens_total           counter: per-minute increase (the
//                                       first sample of a series is its
//                                       baseline; a decrease is a reset and
//                                       the new value is the increase)
//
// A series is keyed by its metric and workload_name (else workload_pod) and
// workload_pod; its workload is workload_name, else workload_pod, and its
// team workload_team. Series with neither label are counted as skipped.
// Idempotent like the Meter: a sample at or before its series' cursor is a
// duplicate; each minute row keeps the series' last timestamp and value, and
// a restarted WorkMeter takes its cursors from the newest row per series, so
// a write sent again after a restart (or kill -9) is not counted twice.
// Record commits one transaction per write.
//
// Thread safety: Record and Totals are serialized by an internal mutex.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "cost/meter.h"
#include "expo/remote_write.h"
#include "store/state_db.h"

namespace gpufleet::cost {

struct WorkTotals {
  std::string team;
  int64_t steps = 0;
  double step_seconds = 0;
  double tokens = 0;
};

inline constexpr char kPodKeyPrefix[] = "pod:";

struct WorkCounters {
  uint64_t samples_metered = 0;
  uint64_t samples_duplicate = 0;
  uint64_t samples_skipped = 0;  // no workload_name / workload_pod label, or not finite
};

// Whether a series named `name` is one the WorkMeter reads.
bool IsWorkSeries(std::string_view name);

class WorkMeter {
 public:
  // `db` must outlive the meter and have CostMigrations() applied.
  explicit WorkMeter(StateDb* db) : db_(db) {}

  Status Record(const std::vector<RemoteWriteSeries>& series);
  // The same, reading only the series whose keys[i].work is set
  // (cost::MeterKeyOf, computed by the caller).
  Status Record(const std::vector<RemoteWriteSeries>& series, const std::vector<MeterKey>& keys);
  // Work over the minutes in [from_s, to_s) per workload, and again per pod
  // under kPodKeyPrefix + pod (so a ledger holder whose gpu_workload_info
  // names only its pod still meets its steps).
  StatusOr<std::map<std::string, WorkTotals>> Totals(int64_t from_s, int64_t to_s);
  WorkCounters counters();

 private:
  struct Cursor {
    int64_t last_ms = -1;
    double last_value = 0;
  };
  Status LoadLocked();
  // Reads only the series whose keys[i].work is set.
  Status RecordLocked(const std::vector<RemoteWriteSeries>& series,
                      const std::vector<MeterKey>& keys,
                      std::unordered_map<std::string, Cursor>& moved, WorkCounters& delta);

  std::mutex mu_;
  StateDb* db_;                                      // guarded by mu_
  bool loaded_ = false;                              // guarded by mu_
  std::unordered_map<std::string, Cursor> cursors_;  // guarded by mu_
  WorkCounters counters_;                            // guarded by mu_
};

}  // namespace gpufleet::cost
