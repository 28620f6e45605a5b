// Test helpers for the importer tests (temp dirs, SQLite fixtures, counts).
#pragma once

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "trace/timeline.h"

namespace gpufleet::trace {

// A fresh directory under TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/gpufleet_trace_XXXXXX";
    char* p = mkdtemp(tmpl.data());
    if (p != nullptr) path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

inline std::string ReadHead(const std::string& path, size_t n = 4096) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

// Creates (or extends) a SQLite database with the given statements.
inline bool ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  sqlite3_close(db);
  return rc == SQLITE_OK;
}

inline int CountKind(const Timeline& t, EventKind k) {
  int n = 0;
  for (const Event& e : t.events) n += e.kind == k ? 1 : 0;
  return n;
}

inline int CountNamed(const Timeline& t, std::string_view name) {
  int n = 0;
  for (const Event& e : t.events) n += t.name(e) == name ? 1 : 0;
  return n;
}

inline std::string TestData(std::string_view rel) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/trace/" + std::string(rel);
}

}  // namespace gpufleet::trace
