// IncidentStore: durable incidents and their evidence in the SQLite state
// database (tables `incidents` and `incident_evidence`, component "incidents").
//
// Life cycle: a detector finding is observed again and again while its
// condition holds. Upsert() turns each observation into at most one *open*
// incident per dedup key (a partial unique index enforces it in the schema,
// so a crash between statements cannot leave two). ResolveStale() closes open
// incidents whose finding has not been seen for `resolve_after_ns`. A later
// observation with the same key opens a new incident (a new id): resolved
// incidents are history and never change again.
//
// The records here are plain data: store sits below detect, so the server maps
// detect::Finding onto IncidentRecord.
//
// Every write is one transaction; when a call returns OK the change is on
// disk (WAL, synchronous=FULL for this connection) and survives kill -9.
//
// Thread safety: all methods are thread-safe (serialized by an internal
// mutex). The StateDb must not be used by anything else concurrently.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/status.h"
#include "store/state_db.h"

namespace gpufleet {

// The "incidents" component's migrations; pass them to StateDb::Open.
const std::vector<Migration>& IncidentMigrations();

enum class IncidentStatus { kOpen, kResolved };
std::string_view IncidentStatusName(IncidentStatus s);  // "open", "resolved"
std::optional<IncidentStatus> ParseIncidentStatus(std::string_view s);

// One share of the estimated slowdown, e.g. {"neighbour_bandwidth", 0.7, "..."}.
struct IncidentCause {
  std::string name;
  double share = 0;  // 0..1 of the slowdown attributed to this cause
  std::string explanation;
  friend bool operator==(const IncidentCause&, const IncidentCause&) = default;
};

// What tripped: the series, the condition and the value seen.
struct IncidentEvidence {
  std::string series;     // `gpu_memory_bandwidth_ratio{gpu_uuid="GPU-1",...}`
  std::string condition;  // "> 0.9 for 300s"
  double threshold = 0;
  double value = 0;
  std::string detail;  // free text, may be empty
  friend bool operator==(const IncidentEvidence&, const IncidentEvidence&) = default;
};

struct IncidentRecord {
  int64_t id = 0;  // assigned by the store; ignored by Upsert
  std::string dedup_key;
  std::string kind;  // "memory_contention", "baseline_deviation", ...
  IncidentStatus status = IncidentStatus::kOpen;
  Labels subject;                      // routing/identity labels: node, gpu, cloud, workload...
  std::vector<std::string> devices;    // gpu uuids (or node/index when none)
  std::vector<std::string> workloads;  // workload ids
  std::string team;
  std::string severity;  // "info", "warning", "critical"
  std::string summary;
  int64_t first_seen_ns = 0;
  int64_t last_seen_ns = 0;
  int64_t resolved_at_ns = 0;  // 0 while open
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  double estimated_slowdown = 0;  // 0.25 = the affected work runs 25% slower
  std::vector<IncidentCause> causes;
  std::string capture_path;  // output of a deep-instrumentation capture, "" when none
  std::vector<IncidentEvidence> evidence;
  int64_t observations = 0;  // how many times the finding was seen
};

struct UpsertResult {
  int64_t id = 0;
  bool created = false;  // a new open incident was inserted
};

class IncidentStore {
 public:
  // `db` must outlive the store and have IncidentMigrations() applied.
  explicit IncidentStore(StateDb* db);

  // Records one observation at `now_ns`. An open incident with the same dedup
  // key is updated (last_seen, window end, slowdown, summary, severity,
  // causes, evidence replaced; devices and workloads merged); otherwise a new
  // open incident is inserted with first_seen = now_ns.
  // REQUIRES: !observation.dedup_key.empty().
  StatusOr<UpsertResult> Upsert(const IncidentRecord& observation, int64_t now_ns);

  // Resolves every open incident last seen before now_ns - resolve_after_ns
  // and returns them (status resolved, resolved_at_ns = now_ns). Incidents
  // whose kind is in `keep_kinds` are left open: they are not observed
  // continuously (e.g. "canary_regression" stays true until a canary run
  // passes) and are resolved by ResolveOpen instead.
  StatusOr<std::vector<IncidentRecord>> ResolveStale(
      int64_t now_ns, int64_t resolve_after_ns, const std::vector<std::string>& keep_kinds = {});

  // Resolves the open incident with `dedup_key` at now_ns and returns it;
  // nullopt when none is open (nothing changes).
  StatusOr<std::optional<IncidentRecord>> ResolveOpen(std::string_view dedup_key, int64_t now_ns);

  // Records the capture output path of incident `id`. NotFound when absent.
  Status SetCapturePath(int64_t id, std::string_view path);

  // nullopt when there is no incident `id`.
  StatusOr<std::optional<IncidentRecord>> Get(int64_t id);
  // Newest first (by id). `status` nullopt = all. `limit` 0 = no limit.
  StatusOr<std::vector<IncidentRecord>> List(std::optional<IncidentStatus> status,
                                             size_t limit = 0);
  StatusOr<int64_t> CountOpen();

 private:
  StatusOr<std::optional<IncidentRecord>> GetLocked(int64_t id);
  StatusOr<UpsertResult> UpsertLocked(const IncidentRecord& obs, int64_t now_ns);
  Status ReplaceEvidenceLocked(int64_t id, const std::vector<IncidentEvidence>& evidence);

  std::mutex mu_;
  StateDb* db_;  // guarded by mu_
};

}  // namespace gpufleet
