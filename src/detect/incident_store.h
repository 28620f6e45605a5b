// IncidentStore: the server's IncidentBook, durable in the SQLite state
// database (tables `incidents` and `incident_evidence`, migration component
// "incidents"). A partial unique index enforces at most one open incident
// per dedup key in the schema, so a crash between statements cannot leave
// two. The update rule is the book's (detect/incident_book.h); when to open
// and resolve is the life cycle's (detect/incident_lifecycle.h).
//
// Every write is one transaction; when a call returns OK the change is on
// disk (WAL, synchronous=FULL for this connection) and survives kill -9.
// Stored rows that do not decode are DataLoss naming the row.
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

#include "core/status.h"
#include "detect/incident_book.h"
#include "store/state_db.h"

namespace gpufleet::detect {

// The "incidents" component's migrations; pass them to StateDb::Open.
const std::vector<Migration>& IncidentMigrations();

class IncidentStore : public IncidentBook {
 public:
  // `db` must outlive the store and have IncidentMigrations() applied.
  explicit IncidentStore(StateDb* db);

  StatusOr<UpsertResult> Upsert(const IncidentRecord& observation, int64_t now_ns) override;
  StatusOr<std::vector<IncidentRecord>> ResolveStale(
      int64_t now_ns, int64_t resolve_after_ns,
      const std::vector<std::string>& keep_kinds = {}) override;
  StatusOr<std::optional<IncidentRecord>> ResolveOpen(std::string_view dedup_key,
                                                      int64_t now_ns) override;
  Status SetCapturePath(int64_t id, std::string_view path) override;
  StatusOr<std::optional<IncidentRecord>> Get(int64_t id) override;
  StatusOr<std::vector<IncidentRecord>> List(std::optional<IncidentStatus> status,
                                             size_t limit = 0) override;
  StatusOr<int64_t> CountOpen() override;

  // The console's writes (POST /api/v1/incidents/{id}/ack and /resolve).
  // Acknowledge records now_ns as acknowledged_at_ns once (a repeat keeps the
  // first time); Resolve resolves incident `id` if open (a resolved one is
  // returned unchanged). Both return the updated record; nullopt when there
  // is no incident `id`. Detector observations keep the acknowledgement
  // while the incident stays open.
  StatusOr<std::optional<IncidentRecord>> Acknowledge(int64_t id, int64_t now_ns);
  StatusOr<std::optional<IncidentRecord>> Resolve(int64_t id, int64_t now_ns);

 private:
  StatusOr<std::optional<IncidentRecord>> GetLocked(int64_t id);
  StatusOr<UpsertResult> UpsertLocked(const IncidentRecord& obs, int64_t now_ns);
  Status ReplaceEvidenceLocked(int64_t id, const std::vector<IncidentEvidence>& evidence);

  std::mutex mu_;
  StateDb* db_;  // guarded by mu_
};

}  // namespace gpufleet::detect
