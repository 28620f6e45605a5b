// The SQLite state database (WAL mode): durable state of gpufleet (canary
// baselines and results today; inventory, incidents, the cost ledger later).
//
// Schema versioning is per component: each component ships an ordered list
// of Migrations, and Open() applies those not yet recorded in the
// `schema_migrations` table, each in its own transaction. A database written
// by a newer gpufleet (a version this binary does not know) is refused rather
// than guessed at.
//
// Errors name the file: a file that is not SQLite or fails the integrity
// check is DataLoss; a locked database times out after busy_timeout_ms.
//
// Thread safety: one StateDb per thread (SQLite connection rules); several
// processes may share the file (WAL).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpufleet {

struct Migration {
  std::string component;  // "canary"
  int version = 0;        // 1, 2, ... in order, per component
  std::string sql;        // one or more statements
};

class Statement;

class StateDb {
 public:
  struct Options {
    int busy_timeout_ms = 5000;
    bool create = true;  // create the file when absent
  };

  // Opens (or creates) `path` and applies pending `migrations`.
  static StatusOr<std::unique_ptr<StateDb>> Open(const std::string& path,
                                                 const std::vector<Migration>& migrations,
                                                 const Options& options);
  static StatusOr<std::unique_ptr<StateDb>> Open(const std::string& path,
                                                 const std::vector<Migration>& migrations) {
    return Open(path, migrations, Options());
  }
  ~StateDb();
  StateDb(const StateDb&) = delete;
  StateDb& operator=(const StateDb&) = delete;

  // Applies pending migrations (also called by Open); idempotent.
  Status Migrate(const std::vector<Migration>& migrations);
  // Highest applied version of `component`, 0 when none.
  StatusOr<int> SchemaVersion(std::string_view component);

  Status Exec(std::string_view sql);
  StatusOr<Statement> Prepare(std::string_view sql);
  // "journal_mode" etc.: the first column of "PRAGMA <name>".
  StatusOr<std::string> Pragma(std::string_view name);

  const std::string& path() const { return path_; }

 private:
  friend class Statement;
  StateDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Error(std::string_view what) const;

  sqlite3* db_;
  std::string path_;
};

// A prepared statement; indexes are 1-based for Bind and 0-based for Column
// like the SQLite C API. REQUIRES: destroyed before the StateDb that made it.
class Statement {
 public:
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&& o) noexcept;
  ~Statement();

  Statement& Bind(int index, int64_t v);
  Statement& Bind(int index, double v);
  Statement& Bind(int index, std::string_view v);
  Statement& BindBlob(int index, std::string_view bytes);
  // true = a row is available, false = done.
  StatusOr<bool> Step();
  // Steps to completion (INSERT/UPDATE).
  Status Run();
  Status Reset();

  int64_t ColumnInt64(int i) const;
  double ColumnDouble(int i) const;
  std::string ColumnText(int i) const;
  // The bytes of a BLOB (or TEXT) column; valid until the next Step or Reset.
  std::string_view ColumnBlob(int i) const;

 private:
  friend class StateDb;
  Statement(sqlite3_stmt* s, const StateDb* db) : stmt_(s), db_(db) {}
  sqlite3_stmt* stmt_;
  const StateDb* db_;
  Status bind_error_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless Commit() was called, so
// every early return of a multi-statement write is safe.
class Transaction {
 public:
  explicit Transaction(StateDb* db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Status Begin();      // BEGIN IMMEDIATE: the write lock at once
  Status BeginRead();  // BEGIN (deferred): a read snapshot from the first read
  Status Commit();

 private:
  StateDb* db_;
  bool begun_ = false;
  bool done_ = false;
};

}  // namespace gpufleet
