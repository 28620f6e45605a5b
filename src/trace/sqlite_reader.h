// Read-only SQLite access for the SQLite-based trace importers (nsys, rocpd).
// Private to src/trace. The database is opened with SQLITE_OPEN_READONLY so a
// trace is never modified (no journal, no WAL checkpoint); schema discovery
// (tables, columns) lets importers build queries for the columns a given
// producer version actually wrote. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpufleet::trace {

// One prepared SELECT; columns are read by index of the select list.
class SqliteRows {
 public:
  SqliteRows(const SqliteRows&) = delete;
  SqliteRows& operator=(const SqliteRows&) = delete;
  SqliteRows(SqliteRows&& other) noexcept;
  ~SqliteRows();

  // Advances to the next row; false at the end or on error (see status()).
  bool Next();
  bool IsNull(int col) const;
  bool IsText(int col) const;  // the value is stored as TEXT (not an integer id)
  int64_t Int(int col) const;
  std::string_view Text(int col) const;  // valid until the next Next()
  const Status& status() const { return status_; }

 private:
  friend class SqliteReader;
  SqliteRows(sqlite3_stmt* stmt, std::string where) : stmt_(stmt), where_(std::move(where)) {}
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;  // "file: query" for errors
  Status status_;
};

class SqliteReader {
 public:
  // Opens read-only and checks that it is a SQLite database with a readable
  // schema. Errors name the path.
  static StatusOr<SqliteReader> Open(const std::string& path);

  SqliteReader(const SqliteReader&) = delete;
  SqliteReader& operator=(const SqliteReader&) = delete;
  SqliteReader(SqliteReader&& other) noexcept;
  ~SqliteReader();

  const std::set<std::string>& tables() const { return tables_; }  // tables and views
  bool HasTable(std::string_view name) const { return tables_.count(std::string(name)) > 0; }
  // Column names of a table or view (empty when absent).
  std::set<std::string> Columns(const std::string& table) const;
  StatusOr<SqliteRows> Query(const std::string& sql) const;
  // SELECT of `cols` from `table`, NULL for a column the table lacks;
  // InvalidArgument naming the file, table and column when one of
  // `required` is missing.
  StatusOr<SqliteRows> Select(const std::string& table, const std::vector<std::string>& cols,
                              const std::vector<std::string>& required) const;
  const std::string& path() const { return path_; }

 private:
  SqliteReader(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
  std::set<std::string> tables_;
};

// Quotes an identifier for SQL ("a""b").
std::string QuoteIdent(std::string_view name);

// Quotes a string literal for SQL ('it''s').
std::string QuoteLiteral(std::string_view text);

// True when `head` starts with the SQLite file magic.
bool IsSqliteHead(std::string_view head);

}  // namespace gpufleet::trace
