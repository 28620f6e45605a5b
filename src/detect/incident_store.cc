#include "detect/incident_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace gpufleet::detect {
namespace {

using nlohmann::json;

constexpr char kColumns[] =
    "id, dedup_key, kind, status, subject, devices, workloads, team, severity, summary, "
    "first_seen_ns, last_seen_ns, resolved_at_ns, window_start_ns, window_end_ns, "
    "estimated_slowdown, causes, capture_path, observations, acknowledged_at_ns";

std::string EncodeStrings(const std::vector<std::string>& v) { return json(v).dump(); }

std::string EncodeLabels(const Labels& labels) {
  json o = json::object();
  for (const auto& [k, v] : labels.pairs()) o[k] = v;
  return o.dump();
}

std::string EncodeCauses(const std::vector<IncidentCause>& causes) {
  json a = json::array();
  for (const IncidentCause& c : causes) {
    a.push_back({{"name", c.name}, {"share", c.share}, {"explanation", c.explanation}});
  }
  return a.dump();
}

// Our own rows that do not decode mean corruption: DataLoss naming the row.
Status DecodeRow(const std::string& where, const std::string& subject, const std::string& devices,
                 const std::string& workloads, const std::string& causes, IncidentRecord& r) {
  json s = json::parse(subject, nullptr, /*allow_exceptions=*/false);
  json d = json::parse(devices, nullptr, false);
  json w = json::parse(workloads, nullptr, false);
  json c = json::parse(causes, nullptr, false);
  if (!s.is_object() || !d.is_array() || !w.is_array() || !c.is_array()) {
    return DataLossError(where + ": stored JSON column does not decode");
  }
  for (const auto& [k, v] : s.items()) {
    if (v.is_string()) r.subject.Set(k, v.get<std::string>());
  }
  for (const json& x : d) {
    if (x.is_string()) r.devices.push_back(x.get<std::string>());
  }
  for (const json& x : w) {
    if (x.is_string()) r.workloads.push_back(x.get<std::string>());
  }
  for (const json& x : c) {
    if (!x.is_object()) continue;
    IncidentCause cause;
    cause.name = x.value("name", "");
    cause.share = x.value("share", 0.0);
    cause.explanation = x.value("explanation", "");
    r.causes.push_back(std::move(cause));
  }
  return OkStatus();
}

}  // namespace

const std::vector<Migration>& IncidentMigrations() {
  static const std::vector<Migration> kMigrations = {
      {"incidents", 1,
       "CREATE TABLE incidents ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " dedup_key TEXT NOT NULL,"
       " kind TEXT NOT NULL,"
       " status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),"
       " subject TEXT NOT NULL,"
       " devices TEXT NOT NULL,"
       " workloads TEXT NOT NULL,"
       " team TEXT NOT NULL,"
       " severity TEXT NOT NULL,"
       " summary TEXT NOT NULL,"
       " first_seen_ns INTEGER NOT NULL,"
       " last_seen_ns INTEGER NOT NULL,"
       " resolved_at_ns INTEGER NOT NULL DEFAULT 0,"
       " window_start_ns INTEGER NOT NULL,"
       " window_end_ns INTEGER NOT NULL,"
       " estimated_slowdown REAL NOT NULL,"
       " causes TEXT NOT NULL,"
       " capture_path TEXT NOT NULL DEFAULT '',"
       " observations INTEGER NOT NULL DEFAULT 1);"
       // At most one open incident per key, whatever happens between statements.
       "CREATE UNIQUE INDEX incidents_open_key ON incidents (dedup_key) WHERE status = 'open';"
       "CREATE INDEX incidents_by_status ON incidents (status, id);"
       "CREATE TABLE incident_evidence ("
       " incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,"
       " seq INTEGER NOT NULL,"
       " series TEXT NOT NULL,"
       " condition TEXT NOT NULL,"
       " threshold REAL NOT NULL,"
       " value REAL NOT NULL,"
       " detail TEXT NOT NULL,"
       " PRIMARY KEY (incident_id, seq));"},
      // Acknowledgement by a person (the console); 0 = not acknowledged.
      {"incidents", 2,
       "ALTER TABLE incidents ADD COLUMN acknowledged_at_ns INTEGER NOT NULL DEFAULT 0;"},
  };
  return kMigrations;
}

IncidentStore::IncidentStore(StateDb* db) : db_(db) {
  // An acknowledged incident must survive power loss, not only a process
  // crash; WAL's default NORMAL only guarantees the latter.
  db_->Exec("PRAGMA synchronous=FULL").IgnoreError();
}

StatusOr<UpsertResult> IncidentStore::Upsert(const IncidentRecord& observation, int64_t now_ns) {
  GPUFLEET_CHECK(!observation.dedup_key.empty());
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(UpsertResult result, UpsertLocked(observation, now_ns));
  RETURN_IF_ERROR(ReplaceEvidenceLocked(result.id, observation.evidence));
  RETURN_IF_ERROR(tx.Commit());
  return result;
}

StatusOr<UpsertResult> IncidentStore::UpsertLocked(const IncidentRecord& obs, int64_t now_ns) {
  int64_t open_id = 0;
  {
    ASSIGN_OR_RETURN(Statement find, db_->Prepare("SELECT id FROM incidents "
                                                  "WHERE dedup_key = ? AND status = 'open'"));
    find.Bind(1, obs.dedup_key);
    ASSIGN_OR_RETURN(bool found, find.Step());
    if (found) open_id = find.ColumnInt64(0);
  }
  if (open_id != 0) {
    ASSIGN_OR_RETURN(std::optional<IncidentRecord> open, GetLocked(open_id));
    if (!open.has_value()) return InternalError(db_->path() + ": open incident vanished");
    MergeObservation(*open, obs, now_ns);
    ASSIGN_OR_RETURN(
        Statement up,
        db_->Prepare("UPDATE incidents SET devices = ?, workloads = ?, severity = ?, summary = ?, "
                     "last_seen_ns = ?, window_start_ns = ?, window_end_ns = ?, "
                     "estimated_slowdown = ?, causes = ?, observations = ?, team = ? "
                     "WHERE id = ?"));
    up.Bind(1, EncodeStrings(open->devices))
        .Bind(2, EncodeStrings(open->workloads))
        .Bind(3, open->severity)
        .Bind(4, open->summary)
        .Bind(5, open->last_seen_ns)
        .Bind(6, open->window_start_ns)
        .Bind(7, open->window_end_ns)
        .Bind(8, open->estimated_slowdown)
        .Bind(9, EncodeCauses(open->causes))
        .Bind(10, open->observations)
        .Bind(11, open->team)
        .Bind(12, open_id);
    RETURN_IF_ERROR(up.Run());
    return UpsertResult{open_id, false};
  }
  const IncidentRecord r = OpenIncident(obs, now_ns);
  ASSIGN_OR_RETURN(
      Statement ins,
      db_->Prepare("INSERT INTO incidents (dedup_key, kind, status, subject, devices, workloads, "
                   "team, severity, summary, first_seen_ns, last_seen_ns, window_start_ns, "
                   "window_end_ns, estimated_slowdown, causes, capture_path, observations) "
                   "VALUES (?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins.Bind(1, r.dedup_key)
      .Bind(2, r.kind)
      .Bind(3, EncodeLabels(r.subject))
      .Bind(4, EncodeStrings(r.devices))
      .Bind(5, EncodeStrings(r.workloads))
      .Bind(6, r.team)
      .Bind(7, r.severity)
      .Bind(8, r.summary)
      .Bind(9, r.first_seen_ns)
      .Bind(10, r.last_seen_ns)
      .Bind(11, r.window_start_ns)
      .Bind(12, r.window_end_ns)
      .Bind(13, r.estimated_slowdown)
      .Bind(14, EncodeCauses(r.causes))
      .Bind(15, r.capture_path)
      .Bind(16, r.observations);
  RETURN_IF_ERROR(ins.Run());
  ASSIGN_OR_RETURN(Statement last, db_->Prepare("SELECT last_insert_rowid()"));
  ASSIGN_OR_RETURN(bool row, last.Step());
  if (!row) return InternalError(db_->path() + ": no rowid after insert");
  return UpsertResult{last.ColumnInt64(0), true};
}

Status IncidentStore::ReplaceEvidenceLocked(int64_t id,
                                            const std::vector<IncidentEvidence>& evidence) {
  ASSIGN_OR_RETURN(Statement del,
                   db_->Prepare("DELETE FROM incident_evidence WHERE incident_id = ?"));
  RETURN_IF_ERROR(del.Bind(1, id).Run());
  ASSIGN_OR_RETURN(
      Statement ins,
      db_->Prepare("INSERT INTO incident_evidence (incident_id, seq, series, "
                   "condition, threshold, value, detail) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  int64_t seq = 0;
  for (const IncidentEvidence& e : evidence) {
    RETURN_IF_ERROR(ins.Reset());
    RETURN_IF_ERROR(ins.Bind(1, id)
                        .Bind(2, seq++)
                        .Bind(3, e.series)
                        .Bind(4, e.condition)
                        .Bind(5, e.threshold)
                        .Bind(6, e.value)
                        .Bind(7, e.detail)
                        .Run());
  }
  return OkStatus();
}

StatusOr<std::vector<IncidentRecord>> IncidentStore::ResolveStale(
    int64_t now_ns, int64_t resolve_after_ns, const std::vector<std::string>& keep_kinds) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  std::vector<int64_t> ids;
  {
    ASSIGN_OR_RETURN(Statement st,
                     db_->Prepare("SELECT id, kind FROM incidents WHERE status = 'open' "
                                  "AND last_seen_ns < ? ORDER BY id"));
    st.Bind(1, now_ns - resolve_after_ns);
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      std::string kind = st.ColumnText(1);
      if (std::find(keep_kinds.begin(), keep_kinds.end(), kind) != keep_kinds.end()) continue;
      ids.push_back(st.ColumnInt64(0));
    }
  }
  ASSIGN_OR_RETURN(Statement up, db_->Prepare("UPDATE incidents SET status = 'resolved', "
                                              "resolved_at_ns = ? WHERE id = ?"));
  for (int64_t id : ids) {
    RETURN_IF_ERROR(up.Reset());
    RETURN_IF_ERROR(up.Bind(1, now_ns).Bind(2, id).Run());
  }
  RETURN_IF_ERROR(tx.Commit());
  std::vector<IncidentRecord> out;
  for (int64_t id : ids) {
    ASSIGN_OR_RETURN(std::optional<IncidentRecord> r, GetLocked(id));
    if (r.has_value()) out.push_back(std::move(*r));
  }
  return out;
}

StatusOr<std::optional<IncidentRecord>> IncidentStore::ResolveOpen(std::string_view dedup_key,
                                                                   int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  int64_t id = 0;
  {
    ASSIGN_OR_RETURN(Statement find, db_->Prepare("SELECT id FROM incidents WHERE dedup_key = ? "
                                                  "AND status = 'open'"));
    find.Bind(1, dedup_key);
    ASSIGN_OR_RETURN(bool found, find.Step());
    if (!found) return std::optional<IncidentRecord>();
    id = find.ColumnInt64(0);
  }
  ASSIGN_OR_RETURN(Statement up, db_->Prepare("UPDATE incidents SET status = 'resolved', "
                                              "resolved_at_ns = ? WHERE id = ?"));
  RETURN_IF_ERROR(up.Bind(1, now_ns).Bind(2, id).Run());
  RETURN_IF_ERROR(tx.Commit());
  return GetLocked(id);
}

Status IncidentStore::SetCapturePath(int64_t id, std::string_view path) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement up,
                   db_->Prepare("UPDATE incidents SET capture_path = ? WHERE id = ?"));
  RETURN_IF_ERROR(up.Bind(1, path).Bind(2, id).Run());
  ASSIGN_OR_RETURN(Statement ch, db_->Prepare("SELECT changes()"));
  ASSIGN_OR_RETURN(bool row, ch.Step());
  if (!row || ch.ColumnInt64(0) == 0) {
    return NotFoundError("incident " + std::to_string(id) + " not found");
  }
  return OkStatus();
}

StatusOr<std::optional<IncidentRecord>> IncidentStore::Get(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return GetLocked(id);
}

StatusOr<std::optional<IncidentRecord>> IncidentStore::GetLocked(int64_t id) {
  ASSIGN_OR_RETURN(Statement st, db_->Prepare(std::string("SELECT ") + kColumns +
                                              " FROM incidents WHERE id = ?"));
  st.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<IncidentRecord>();
  IncidentRecord r;
  r.id = st.ColumnInt64(0);
  r.dedup_key = st.ColumnText(1);
  r.kind = st.ColumnText(2);
  std::string where = db_->path() + ": incidents[" + std::to_string(r.id) + "]";
  std::optional<IncidentStatus> status = ParseIncidentStatus(st.ColumnText(3));
  if (!status.has_value()) return DataLossError(where + ": bad status");
  r.status = *status;
  RETURN_IF_ERROR(
      DecodeRow(where, st.ColumnText(4), st.ColumnText(5), st.ColumnText(6), st.ColumnText(16), r));
  r.team = st.ColumnText(7);
  r.severity = st.ColumnText(8);
  r.summary = st.ColumnText(9);
  r.first_seen_ns = st.ColumnInt64(10);
  r.last_seen_ns = st.ColumnInt64(11);
  r.resolved_at_ns = st.ColumnInt64(12);
  r.window_start_ns = st.ColumnInt64(13);
  r.window_end_ns = st.ColumnInt64(14);
  r.estimated_slowdown = st.ColumnDouble(15);
  r.capture_path = st.ColumnText(17);
  r.observations = st.ColumnInt64(18);
  r.acknowledged_at_ns = st.ColumnInt64(19);
  ASSIGN_OR_RETURN(Statement ev,
                   db_->Prepare("SELECT series, condition, threshold, value, detail FROM "
                                "incident_evidence WHERE incident_id = ? ORDER BY seq"));
  ev.Bind(1, id);
  while (true) {
    ASSIGN_OR_RETURN(bool more, ev.Step());
    if (!more) break;
    r.evidence.push_back({ev.ColumnText(0), ev.ColumnText(1), ev.ColumnDouble(2),
                          ev.ColumnDouble(3), ev.ColumnText(4)});
  }
  return std::optional<IncidentRecord>(std::move(r));
}

StatusOr<std::vector<IncidentRecord>> IncidentStore::List(std::optional<IncidentStatus> status,
                                                          size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sql = "SELECT id FROM incidents";
  if (status.has_value()) sql += " WHERE status = ?";
  sql += " ORDER BY id DESC";
  if (limit > 0) sql += " LIMIT " + std::to_string(limit);
  std::vector<int64_t> ids;
  {
    ASSIGN_OR_RETURN(Statement st, db_->Prepare(sql));
    if (status.has_value()) st.Bind(1, IncidentStatusName(*status));
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      ids.push_back(st.ColumnInt64(0));
    }
  }
  std::vector<IncidentRecord> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    ASSIGN_OR_RETURN(std::optional<IncidentRecord> r, GetLocked(id));
    if (r.has_value()) out.push_back(std::move(*r));
  }
  return out;
}

StatusOr<std::optional<IncidentRecord>> IncidentStore::Acknowledge(int64_t id, int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement up, db_->Prepare("UPDATE incidents SET acknowledged_at_ns = ? "
                                              "WHERE id = ? AND acknowledged_at_ns = 0"));
  RETURN_IF_ERROR(up.Bind(1, now_ns).Bind(2, id).Run());
  return GetLocked(id);
}

StatusOr<std::optional<IncidentRecord>> IncidentStore::Resolve(int64_t id, int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement up, db_->Prepare("UPDATE incidents SET status = 'resolved', "
                                              "resolved_at_ns = ? WHERE id = ? AND "
                                              "status = 'open'"));
  RETURN_IF_ERROR(up.Bind(1, now_ns).Bind(2, id).Run());
  return GetLocked(id);
}

StatusOr<int64_t> IncidentStore::CountOpen() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement st,
                   db_->Prepare("SELECT COUNT(*) FROM incidents WHERE status = 'open'"));
  ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.ColumnInt64(0) : 0;
}

}  // namespace gpufleet::detect
