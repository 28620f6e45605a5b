// Incidents as records, and the book that holds them.
//
// IncidentRecord is the incident of DESIGN.md ("Incident"): plain data, copy
// freely. IncidentBook is where they live: at most one *open* incident per
// dedup key, plus the resolved ones as history (they never change again).
// Two implementations: SQLite (detect/incident_store.h, the server's) and in
// memory (NewMemoryIncidentBook, the evaluation's and tests'). Both apply the
// same update rule, OpenIncident / MergeObservation below; *when* incidents
// open and resolve is decided by detect/incident_lifecycle.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/status.h"

namespace gpufleet::detect {

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
  int64_t id = 0;  // assigned by the book; ignored by Upsert
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
  int64_t acknowledged_at_ns = 0;  // 0 until a person acknowledges it (IncidentStore)
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  // 0.25 = the affected work runs 25% slower (the most seen while open)
  double estimated_slowdown = 0;
  std::vector<IncidentCause> causes;
  std::string capture_path;  // output of a deep-instrumentation capture, "" when none
  std::vector<IncidentEvidence> evidence;
  int64_t observations = 0;  // how many times the condition was seen
};

struct UpsertResult {
  int64_t id = 0;
  bool created = false;  // a new open incident was inserted
};

// The update rule, shared by every book. OpenIncident: the new open incident
// for a first `observation` at now_ns (first/last seen = now_ns, one
// observation, window defaulting to now_ns). MergeObservation: a repeat
// observation of the open incident `open` (last seen = now_ns; window start
// the earliest; window end, severity, summary, slowdown, causes and
// evidence replaced; team replaced unless the observation has none;
// devices and workloads merged in first-seen order; observations + 1; id,
// key, kind, subject, first seen and capture path kept).
IncidentRecord OpenIncident(const IncidentRecord& observation, int64_t now_ns);
void MergeObservation(IncidentRecord& open, const IncidentRecord& observation, int64_t now_ns);

class IncidentBook {
 public:
  virtual ~IncidentBook() = default;

  // Records one observation at `now_ns`: MergeObservation into the open
  // incident with the same dedup key, or OpenIncident as a new one (new id).
  // REQUIRES: !observation.dedup_key.empty().
  virtual StatusOr<UpsertResult> Upsert(const IncidentRecord& observation, int64_t now_ns) = 0;

  // Resolves every open incident last seen before now_ns - resolve_after_ns
  // (strictly), except those whose kind is in `keep_kinds`, and returns them
  // in id order (status resolved, resolved_at_ns = now_ns).
  virtual StatusOr<std::vector<IncidentRecord>> ResolveStale(
      int64_t now_ns, int64_t resolve_after_ns,
      const std::vector<std::string>& keep_kinds = {}) = 0;

  // Resolves the open incident with `dedup_key` at now_ns and returns it;
  // nullopt when none is open (nothing changes).
  virtual StatusOr<std::optional<IncidentRecord>> ResolveOpen(std::string_view dedup_key,
                                                              int64_t now_ns) = 0;

  // Records the capture output path of incident `id`. NotFound when absent.
  virtual Status SetCapturePath(int64_t id, std::string_view path) = 0;

  // nullopt when there is no incident `id`.
  virtual StatusOr<std::optional<IncidentRecord>> Get(int64_t id) = 0;
  // Newest first (by id). `status` nullopt = all. `limit` 0 = no limit.
  virtual StatusOr<std::vector<IncidentRecord>> List(std::optional<IncidentStatus> status,
                                                     size_t limit = 0) = 0;
  virtual StatusOr<int64_t> CountOpen() = 0;
};

// In memory; ids count from 1. Thread-safe. Never fails.
std::unique_ptr<IncidentBook> NewMemoryIncidentBook();

}  // namespace gpufleet::detect
