#include "canary/sqlite_baseline_store.h"

#include "core/strings.h"

namespace gpufleet::canary {
namespace {

std::string EncodeValues(const std::vector<double>& values) {
  std::string out;
  for (double v : values) {
    if (!out.empty()) out.push_back(' ');
    AppendDouble(v, out);
  }
  return out;
}

// A stored row that does not decode is corruption of our own data.
StatusOr<std::vector<double>> DecodeValues(const std::string& text, const std::string& where) {
  std::vector<double> out;
  for (std::string_view f : SplitString(text, ' ')) {
    if (f.empty()) continue;
    std::optional<double> v = ParseDouble(f);
    if (!v.has_value()) return DataLossError(where + ": bad stored value '" + std::string(f) + "'");
    out.push_back(*v);
  }
  return out;
}

constexpr char kBaselineColumns[] =
    "target_key, benchmark_id, unit, median, "
    "scaled_mad, vals, source, created_ns";

StatusOr<Baseline> ReadBaseline(const Statement& st, const std::string& path) {
  Baseline b;
  b.target_key = st.ColumnText(0);
  b.benchmark_id = st.ColumnText(1);
  b.unit = st.ColumnText(2);
  b.median = st.ColumnDouble(3);
  b.scaled_mad = st.ColumnDouble(4);
  ASSIGN_OR_RETURN(
      b.values, DecodeValues(st.ColumnText(5), path + ": canary_baselines[" + b.target_key + ", " +
                                                   b.benchmark_id + "]"));
  b.source = st.ColumnText(6);
  b.created_ns = st.ColumnInt64(7);
  return b;
}

}  // namespace

const std::vector<Migration>& CanaryMigrations() {
  static const std::vector<Migration> kMigrations = {
      {"canary", 1,
       "CREATE TABLE canary_baselines ("
       " target_key TEXT NOT NULL,"
       " benchmark_id TEXT NOT NULL,"
       " unit TEXT NOT NULL,"
       " median REAL NOT NULL,"
       " scaled_mad REAL NOT NULL,"
       " vals TEXT NOT NULL,"
       " source TEXT NOT NULL,"
       " created_ns INTEGER NOT NULL,"
       " PRIMARY KEY (target_key, benchmark_id));"
       "CREATE TABLE canary_results ("
       " id INTEGER PRIMARY KEY,"
       " target_key TEXT NOT NULL,"
       " model TEXT NOT NULL, driver TEXT NOT NULL, runtime TEXT NOT NULL,"
       " libraries TEXT NOT NULL, image TEXT NOT NULL,"
       " benchmark_id TEXT NOT NULL,"
       " unit TEXT NOT NULL,"
       " vals TEXT NOT NULL,"
       " source TEXT NOT NULL,"
       " note TEXT NOT NULL,"
       " ingested_ns INTEGER NOT NULL);"
       "CREATE INDEX canary_results_by_target ON canary_results (target_key, "
       "benchmark_id);"},
  };
  return kMigrations;
}

Status SqliteBaselineStore::PutBaseline(const Baseline& b) {
  ASSIGN_OR_RETURN(Statement st,
                   db_->Prepare(std::string("INSERT OR REPLACE INTO canary_baselines (") +
                                kBaselineColumns + ") VALUES (?,?,?,?,?,?,?,?)"));
  return st.Bind(1, b.target_key)
      .Bind(2, b.benchmark_id)
      .Bind(3, b.unit)
      .Bind(4, b.median)
      .Bind(5, b.scaled_mad)
      .Bind(6, EncodeValues(b.values))
      .Bind(7, b.source)
      .Bind(8, b.created_ns)
      .Run();
}

StatusOr<std::optional<Baseline>> SqliteBaselineStore::GetBaseline(
    const std::string& target_key, const std::string& benchmark_id) {
  ASSIGN_OR_RETURN(Statement st, db_->Prepare(std::string("SELECT ") + kBaselineColumns +
                                              " FROM canary_baselines WHERE target_key = ? AND "
                                              "benchmark_id = ?"));
  st.Bind(1, target_key).Bind(2, benchmark_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<Baseline>();
  ASSIGN_OR_RETURN(Baseline b, ReadBaseline(st, db_->path()));
  return std::optional<Baseline>(std::move(b));
}

StatusOr<std::vector<Baseline>> SqliteBaselineStore::ListBaselines() {
  ASSIGN_OR_RETURN(Statement st, db_->Prepare(std::string("SELECT ") + kBaselineColumns +
                                              " FROM canary_baselines ORDER BY target_key, "
                                              "benchmark_id"));
  std::vector<Baseline> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    ASSIGN_OR_RETURN(Baseline b, ReadBaseline(st, db_->path()));
    out.push_back(std::move(b));
  }
  return out;
}

Status SqliteBaselineStore::AddResult(const BenchmarkResult& r, int64_t ingested_ns) {
  ASSIGN_OR_RETURN(Statement st,
                   db_->Prepare("INSERT INTO canary_results (target_key, model, driver, runtime, "
                                "libraries, image, benchmark_id, unit, vals, source, note, "
                                "ingested_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"));
  return st.Bind(1, r.target.Key())
      .Bind(2, r.target.model)
      .Bind(3, r.target.driver)
      .Bind(4, r.target.runtime)
      .Bind(5, r.target.libraries)
      .Bind(6, r.target.image)
      .Bind(7, r.benchmark_id)
      .Bind(8, r.unit)
      .Bind(9, EncodeValues(r.values))
      .Bind(10, r.source)
      .Bind(11, r.note)
      .Bind(12, ingested_ns)
      .Run();
}

StatusOr<std::vector<BenchmarkResult>> SqliteBaselineStore::Results(
    const std::string& target_key) {
  ASSIGN_OR_RETURN(Statement st,
                   db_->Prepare("SELECT model, driver, runtime, libraries, image, benchmark_id, "
                                "unit, vals, source, note, id FROM canary_results WHERE "
                                "target_key = ? ORDER BY id"));
  st.Bind(1, target_key);
  std::vector<BenchmarkResult> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    BenchmarkResult r;
    r.target = {st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnText(3),
                st.ColumnText(4)};
    r.benchmark_id = st.ColumnText(5);
    r.unit = st.ColumnText(6);
    ASSIGN_OR_RETURN(r.values,
                     DecodeValues(st.ColumnText(7), db_->path() + ": canary_results[" +
                                                        std::to_string(st.ColumnInt64(10)) + "]"));
    r.source = st.ColumnText(8);
    r.note = st.ColumnText(9);
    MergeResult(std::move(r), &out);
  }
  return out;
}

}  // namespace gpufleet::canary
