#include "store/state_db.h"

#include <sqlite3.h>

#include <map>
#include <utility>

namespace gpufleet {
namespace {

constexpr char kMigrationsTable[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " component TEXT NOT NULL,"
    " version INTEGER NOT NULL,"
    " applied_unix_s INTEGER NOT NULL DEFAULT (strftime('%s','now')),"
    " PRIMARY KEY (component, version))";

Status CodeToStatus(int rc, std::string message) {
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return DataLossError(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return UnavailableError(std::move(message));
    case SQLITE_CANTOPEN:
      return NotFoundError(std::move(message));
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return PermissionDeniedError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

}  // namespace

StatusOr<std::unique_ptr<StateDb>> StateDb::Open(const std::string& path,
                                                 const std::vector<Migration>& migrations,
                                                 const Options& options) {
  sqlite3* raw = nullptr;
  int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (options.create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = path + ": cannot open state database: " +
                      (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    sqlite3_close(raw);
    return CodeToStatus(rc, msg);
  }
  std::unique_ptr<StateDb> db(new StateDb(raw, path));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  // The first read of the header is where a non-SQLite file shows up
  // ("file is not a database").
  ASSIGN_OR_RETURN(std::string mode, db->Pragma("journal_mode=WAL"));
  if (mode != "wal") {
    return FailedPreconditionError(path + ": could not switch to WAL journal (got '" + mode + "')");
  }
  ASSIGN_OR_RETURN(std::string check, db->Pragma("quick_check"));
  if (check != "ok") {
    return DataLossError(path + ": state database failed its integrity check: " + check);
  }
  RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  RETURN_IF_ERROR(db->Exec(kMigrationsTable));
  RETURN_IF_ERROR(db->Migrate(migrations));
  return db;
}

StateDb::~StateDb() { sqlite3_close_v2(db_); }

Status StateDb::Error(std::string_view what) const {
  return CodeToStatus(sqlite3_extended_errcode(db_),
                      path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

Status StateDb::Exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = path_ + ": " + (err != nullptr ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    return CodeToStatus(rc, msg);
  }
  return OkStatus();
}

StatusOr<Statement> StateDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error("preparing '" + std::string(sql.substr(0, 60)) + "'");
  return Statement(stmt, this);
}

StatusOr<std::string> StateDb::Pragma(std::string_view name) {
  ASSIGN_OR_RETURN(Statement st, Prepare("PRAGMA " + std::string(name)));
  ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.ColumnText(0) : std::string();
}

StatusOr<int> StateDb::SchemaVersion(std::string_view component) {
  ASSIGN_OR_RETURN(Statement st, Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations "
                                         "WHERE component = ?"));
  st.Bind(1, component);
  ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? static_cast<int>(st.ColumnInt64(0)) : 0;
}

Status StateDb::Migrate(const std::vector<Migration>& migrations) {
  std::map<std::string, int> known;  // highest version this binary knows
  for (const Migration& m : migrations)
    known[m.component] = std::max(known[m.component], m.version);
  for (const auto& [component, latest] : known) {
    ASSIGN_OR_RETURN(int have, SchemaVersion(component));
    if (have > latest) {
      return FailedPreconditionError(path_ + ": schema of '" + component + "' is version " +
                                     std::to_string(have) + ", newer than this gpufleet knows (" +
                                     std::to_string(latest) + "); upgrade gpufleet");
    }
  }
  for (const Migration& m : migrations) {
    ASSIGN_OR_RETURN(int have, SchemaVersion(m.component));
    if (m.version <= have) continue;
    if (m.version != have + 1) {
      return InternalError("migration " + m.component + " v" + std::to_string(m.version) +
                           " follows v" + std::to_string(have) + ": versions must be consecutive");
    }
    Transaction tx(this);
    RETURN_IF_ERROR(tx.Begin());
    Status st = Exec(m.sql);
    if (st.ok()) {
      StatusOr<Statement> ins =
          Prepare("INSERT INTO schema_migrations (component, version) VALUES (?, ?)");
      st = ins.ok() ? ins->Bind(1, m.component).Bind(2, int64_t{m.version}).Run() : ins.status();
    }
    if (!st.ok()) {
      return st.WithContext("migration " + m.component + " v" + std::to_string(m.version));
    }
    RETURN_IF_ERROR(tx.Commit());
  }
  return OkStatus();
}

Statement::Statement(Statement&& o) noexcept
    : stmt_(std::exchange(o.stmt_, nullptr)), db_(o.db_), bind_error_(std::move(o.bind_error_)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(o.stmt_, nullptr);
    db_ = o.db_;
    bind_error_ = std::move(o.bind_error_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, int64_t v) {
  if (sqlite3_bind_int64(stmt_, index, v) != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = db_->Error("bind");
  }
  return *this;
}

Statement& Statement::Bind(int index, double v) {
  if (sqlite3_bind_double(stmt_, index, v) != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = db_->Error("bind");
  }
  return *this;
}

Statement& Statement::Bind(int index, std::string_view v) {
  // SQLite binds NULL for a null pointer; an empty view (e.g. an absent
  // label's value) means the empty string.
  const char* data = v.data() != nullptr ? v.data() : "";
  if (sqlite3_bind_text(stmt_, index, data, static_cast<int>(v.size()), SQLITE_TRANSIENT) !=
          SQLITE_OK &&
      bind_error_.ok()) {
    bind_error_ = db_->Error("bind");
  }
  return *this;
}

StatusOr<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error("step");
}

Status Statement::Run() {
  while (true) {
    ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return OkStatus();
  }
}

Status Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = OkStatus();
  return OkStatus();
}

int64_t Statement::ColumnInt64(int i) const { return sqlite3_column_int64(stmt_, i); }
Statement& Statement::BindBlob(int index, std::string_view bytes) {
  if (sqlite3_bind_blob(stmt_, index, bytes.data() != nullptr ? bytes.data() : "",
                        static_cast<int>(bytes.size()), SQLITE_TRANSIENT) != SQLITE_OK &&
      bind_error_.ok()) {
    bind_error_ = db_->Error("bind");
  }
  return *this;
}

double Statement::ColumnDouble(int i) const { return sqlite3_column_double(stmt_, i); }

std::string_view Statement::ColumnBlob(int i) const {
  const void* b = sqlite3_column_blob(stmt_, i);
  int n = sqlite3_column_bytes(stmt_, i);
  return b != nullptr ? std::string_view(static_cast<const char*>(b), static_cast<size_t>(n))
                      : std::string_view();
}
std::string Statement::ColumnText(int i) const {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  int n = sqlite3_column_bytes(stmt_, i);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(n))
                      : std::string();
}

Transaction::~Transaction() {
  if (begun_ && !done_) db_->Exec("ROLLBACK").IgnoreError();
}

Status Transaction::Begin() {
  RETURN_IF_ERROR(db_->Exec("BEGIN IMMEDIATE"));
  begun_ = true;
  return OkStatus();
}

Status Transaction::BeginRead() {
  RETURN_IF_ERROR(db_->Exec("BEGIN"));
  begun_ = true;
  return OkStatus();
}

Status Transaction::Commit() {
  RETURN_IF_ERROR(db_->Exec("COMMIT"));
  done_ = true;
  return OkStatus();
}

}  // namespace gpufleet
