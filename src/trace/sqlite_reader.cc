#include "trace/sqlite_reader.h"

#include <sqlite3.h>

#include <utility>

namespace gpufleet::trace {

SqliteRows::SqliteRows(SqliteRows&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      where_(std::move(other.where_)),
      status_(std::move(other.status_)) {}

SqliteRows::~SqliteRows() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

bool SqliteRows::Next() {
  if (stmt_ == nullptr) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) {
    status_ = DataLossError(where_ + ": " + sqlite3_errmsg(sqlite3_db_handle(stmt_)));
  }
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  return false;
}

bool SqliteRows::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

bool SqliteRows::IsText(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_TEXT; }

int64_t SqliteRows::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string_view SqliteRows::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(p),
                          static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

SqliteReader::SqliteReader(SqliteReader&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      tables_(std::move(other.tables_)) {}

SqliteReader::~SqliteReader() {
  if (db_ != nullptr) sqlite3_close(db_);
}

StatusOr<SqliteReader> SqliteReader::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    if (db != nullptr) sqlite3_close(db);
    return NotFoundError(path + ": cannot open as SQLite: " + msg);
  }
  SqliteReader reader(db, path);
  // Reading the schema is the first access to the file: a non-database or a
  // corrupt header fails here ("file is not a database").
  auto rows = reader.Query("SELECT name FROM sqlite_master WHERE type IN ('table','view')");
  if (!rows.ok()) return rows.status();
  while (rows->Next()) reader.tables_.emplace(rows->Text(0));
  if (!rows->status().ok()) return rows->status();
  return reader;
}

std::set<std::string> SqliteReader::Columns(const std::string& table) const {
  std::set<std::string> cols;
  if (!HasTable(table)) return cols;
  auto rows = Query("SELECT name FROM pragma_table_info(" + QuoteLiteral(table) + ")");
  if (!rows.ok()) return cols;
  while (rows->Next()) cols.emplace(rows->Text(0));
  return cols;
}

StatusOr<SqliteRows> SqliteReader::Query(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    if (stmt != nullptr) sqlite3_finalize(stmt);
    StatusCode code = (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) ? StatusCode::kDataLoss
                                                                    : StatusCode::kInvalidArgument;
    return Status(code, path_ + ": " + msg + " (query: " + sql + ")");
  }
  return SqliteRows(stmt, path_ + ": " + sql);
}

StatusOr<SqliteRows> SqliteReader::Select(const std::string& table,
                                          const std::vector<std::string>& cols,
                                          const std::vector<std::string>& required) const {
  std::set<std::string> have = Columns(table);
  for (const auto& r : required) {
    if (have.count(r) == 0) {
      return InvalidArgumentError(path_ + ": table " + table + " has no column '" + r + "'");
    }
  }
  std::string sql = "SELECT ";
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += have.count(cols[i]) ? QuoteIdent(cols[i]) : "NULL";
  }
  sql += " FROM " + QuoteIdent(table);
  return Query(sql);
}

std::string QuoteIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string QuoteLiteral(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

bool IsSqliteHead(std::string_view head) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  return head.substr(0, kMagic.size()) == kMagic;
}

}  // namespace gpufleet::trace
