// rocpd SQLite importer (rocprofv3 --output-format rocpd, default since ROCm 7.0).
//
// Schema (rocprofiler-sdk rocpd_tables.sql, v3): every table carries a
// per-database suffix (`rocpd_kernel_dispatch{{uuid}}`) and views without the
// suffix may sit on top. The suffix is discovered from the rocpd_string
// table; a database merged from several runs has several suffixes, each read
// in turn. pid/tid/agent_id/kernel_id columns are ids into the rocpd_info_*
// tables, not OS ids, so the queries join them back. Times are
// CLOCK_BOOTTIME ns, left native.
// Two layouts carry rocpd_metadata schema_version "3" (issue 19; both in
// rocprofiler-sdk's rocpd_tables.sql history): event tables with their own
// nid/pid/tid/agent_id/queue_id/stream_id and start/end columns, and a layout
// where they hold track_id (-> rocpd_track: nid, pid, tid, agent_id,
// queue_id, stream_id) and start_id/end_id (-> rocpd_timestamp.value). Each
// table's layout is read from its columns; format_version names the layouts
// and the schema version found. A table in neither layout is an error naming
// it (file partial), never skipped silently.
// No real rocpd file with a usable licence was found; the tests build one
// from the documented schema.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/strings.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/rocprof_util.h"
#include "trace/sqlite_reader.h"

namespace gpufleet::trace {
namespace {

constexpr std::string_view kStringTable = "rocpd_string";

class RocpdImport {
 public:
  RocpdImport(const SqliteReader& db, TimelineBuilder& b, uint32_t file, std::string suffix)
      : db_(db), b_(b), file_(file), suffix_(std::move(suffix)) {}

  void Run() {
    Kernels();
    Regions();
    Copies();
  }

  // The layouts the tables of this set used ("start/end columns",
  // "rocpd_track + rocpd_timestamp").
  const std::set<std::string>& layouts() const { return layouts_; }

 private:
  std::string T(std::string_view base) const { return std::string(base) + suffix_; }
  bool Has(std::string_view base) const { return db_.HasTable(T(base)); }
  SourceFile& file() { return b_.timeline().files[file_]; }

  // " LEFT JOIN <table> alias ON alias.id = <on>" when the table exists.
  std::string Join(std::string_view base, const std::string& alias, const std::string& on) const {
    if (!Has(base)) return "";
    return " LEFT JOIN " + QuoteIdent(T(base)) + " " + alias + " ON " + alias + ".id = " + on;
  }
  // `expr` when the table behind `base` exists and has `column`, else NULL.
  std::string Col(std::string_view base, const std::string& alias,
                  const std::string& column) const {
    if (!Has(base) || db_.Columns(T(base)).count(column) == 0) return "NULL";
    return alias + "." + QuoteIdent(column);
  }

  // Column `col` of the event table aliased `a`: its own column in the
  // direct layout; the track's column, or the timestamp value for start/end,
  // in the track layout.
  std::string F(const std::string& a, const std::string& col) const {
    if (!track_layout_) return a + "." + QuoteIdent(col);
    if (col == "start") return a + "_ts0.value";
    if (col == "end") return a + "_ts1.value";
    return a + "_tr." + QuoteIdent(col);
  }
  // The joins the track layout needs for the event table aliased `a`.
  std::string TrackJoins(const std::string& a) const {
    if (!track_layout_) return "";
    return " LEFT JOIN " + QuoteIdent(T("rocpd_track")) + " " + a + "_tr ON " + a +
           "_tr.id = " + a + ".track_id LEFT JOIN " + QuoteIdent(T("rocpd_timestamp")) + " " + a +
           "_ts0 ON " + a + "_ts0.id = " + a + ".start_id LEFT JOIN " +
           QuoteIdent(T("rocpd_timestamp")) + " " + a + "_ts1 ON " + a + "_ts1.id = " + a +
           ".end_id";
  }
  // Picks the layout of `table`; false (and an error naming it) when it is in
  // neither.
  bool Layout(const std::string& table) {
    std::set<std::string> cols = db_.Columns(table);
    if (cols.count("start") && cols.count("end")) {
      track_layout_ = false;
      layouts_.insert("start/end columns");
      return true;
    }
    if (cols.count("track_id") && cols.count("start_id") && cols.count("end_id") &&
        Has("rocpd_track") && Has("rocpd_timestamp")) {
      track_layout_ = true;
      layouts_.insert("rocpd_track + rocpd_timestamp");
      return true;
    }
    Failed(table, InvalidArgumentError(file().path + ": table " + table +
                                       " has neither start/end nor track_id/start_id/end_id "
                                       "columns (with rocpd_track and rocpd_timestamp)"));
    return false;
  }

  uint32_t ProcessFor(const SqliteRows& r, int pid_col, int host_col) {
    int64_t pid = r.IsNull(pid_col) ? -1 : r.Int(pid_col);
    uint32_t p = b_.Process(file_, r.IsNull(host_col) ? "" : r.Text(host_col), pid);
    b_.timeline().processes[p].vendor = Vendor::kAmd;
    return p;
  }

  bool Span(const SqliteRows& r, const std::string& table, int64_t row, Event& e) {
    if (r.IsNull(0) || r.IsNull(1) || r.Int(1) < r.Int(0)) {
      NoteSkipped(file(), file().path + ": " + table + " row " + std::to_string(row) +
                              ": missing or reversed start/end");
      return false;
    }
    e.start_ns = r.Int(0);
    e.dur_ns = r.Int(1) - r.Int(0);
    return true;
  }

  void Failed(const std::string& table, const Status& s) {
    file().partial = true;
    NoteError(file(), s.message());
    (void)table;
  }

  void Kernels() {
    const std::string table = T("rocpd_kernel_dispatch");
    if (!db_.HasTable(table) || !Layout(table)) return;
    std::string sql =
        "SELECT " + F("k", "start") + ", " + F("k", "end") + ", " +
        Col("rocpd_info_process", "p", "pid") + ", " + Col("rocpd_info_thread", "t", "tid") + ", " +
        Col("rocpd_info_agent", "a", "type_index") + ", " + F("k", "queue_id") + ", " +
        F("k", "stream_id") + ", " + Col("rocpd_info_kernel_symbol", "s", "display_name") + ", " +
        Col("rocpd_info_kernel_symbol", "s", "kernel_name") + ", " +
        Col("rocpd_event", "e", "correlation_id") + ", " + Col("rocpd_info_node", "n", "hostname") +
        ", k.kernel_id FROM " + QuoteIdent(table) + " k" + TrackJoins("k") +
        Join("rocpd_info_process", "p", F("k", "pid")) +
        Join("rocpd_info_thread", "t", F("k", "tid")) +
        Join("rocpd_info_agent", "a", F("k", "agent_id")) +
        Join("rocpd_info_kernel_symbol", "s", "k.kernel_id") +
        Join("rocpd_event", "e", "k.event_id") + Join("rocpd_info_node", "n", F("k", "nid"));
    auto rows = db_.Query(sql);
    if (!rows.ok()) return Failed(table, rows.status());
    int64_t row = 0;
    while (rows->Next()) {
      ++row;
      Event e;
      if (!Span(*rows, table, row, e)) continue;
      std::string name;
      if (!rows->IsNull(7) && !rows->Text(7).empty()) {
        name = std::string(rows->Text(7));
      } else if (!rows->IsNull(8)) {
        name = std::string(rows->Text(8));
      } else {
        name = "kernel " + std::to_string(rows->Int(11));
      }
      e.name = b_.Intern(name);
      e.kind = RocprofKernelKind(name);
      e.correlation = rows->IsNull(9) ? -1 : rows->Int(9);
      uint32_t proc = ProcessFor(*rows, 2, 10);
      int device = rows->IsNull(4) ? 0 : static_cast<int>(rows->Int(4));
      int64_t stream = rows->IsNull(6) ? 0 : rows->Int(6);
      e.track =
          b_.DeviceQueue(proc, device, stream != 0 ? stream : (rows->IsNull(5) ? 0 : rows->Int(5)));
      b_.AddEvent(e);
    }
    if (!rows->status().ok()) Failed(table, rows->status());
  }

  void Regions() {
    const std::string table = T("rocpd_region");
    if (!db_.HasTable(table) || !Layout(table)) return;
    std::string sql =
        "SELECT " + F("r", "start") + ", " + F("r", "end") + ", " +
        Col("rocpd_info_process", "p", "pid") + ", " + Col("rocpd_info_thread", "t", "tid") +
        ", str.string, " + Col("rocpd_event", "e", "correlation_id") + ", " +
        (Has("rocpd_event") ? "cat.string" : "NULL") + ", " +
        Col("rocpd_info_node", "n", "hostname") + " FROM " + QuoteIdent(table) + " r" +
        TrackJoins("r") + Join("rocpd_info_process", "p", F("r", "pid")) +
        Join("rocpd_info_thread", "t", F("r", "tid")) + Join(kStringTable, "str", "r.name_id") +
        Join("rocpd_event", "e", "r.event_id") +
        (Has("rocpd_event") ? Join(kStringTable, "cat", "e.category_id") : "") +
        Join("rocpd_info_node", "n", F("r", "nid"));
    auto rows = db_.Query(sql);
    if (!rows.ok()) return Failed(table, rows.status());
    int64_t row = 0;
    while (rows->Next()) {
      ++row;
      Event e;
      if (!Span(*rows, table, row, e)) continue;
      std::string_view name =
          rows->IsNull(4) ? std::string_view("<unnamed region>") : rows->Text(4);
      std::string_view category = rows->IsNull(6) ? std::string_view() : rows->Text(6);
      e.name = b_.Intern(name);
      e.kind = RocprofCallKind(category, name, e.dur_ns);
      e.correlation = rows->IsNull(5) ? -1 : rows->Int(5);
      e.track = b_.HostThread(ProcessFor(*rows, 2, 7), rows->IsNull(3) ? 0 : rows->Int(3));
      b_.AddEvent(e);
    }
    if (!rows->status().ok()) Failed(table, rows->status());
  }

  void Copies() {
    const std::string table = T("rocpd_memory_copy");
    if (!db_.HasTable(table) || !Layout(table)) return;
    std::string sql =
        "SELECT " + F("m", "start") + ", " + F("m", "end") + ", " +
        Col("rocpd_info_process", "p", "pid") + ", str.string, m.size, " +
        Col("rocpd_info_agent", "da", "type_index") + ", " +
        Col("rocpd_info_agent", "sa", "type_index") + ", " + F("m", "stream_id") + ", " +
        Col("rocpd_event", "e", "correlation_id") + ", " + Col("rocpd_info_node", "n", "hostname") +
        " FROM " + QuoteIdent(table) + " m" + TrackJoins("m") +
        Join("rocpd_info_process", "p", F("m", "pid")) + Join(kStringTable, "str", "m.name_id") +
        Join("rocpd_info_agent", "da", "m.dst_agent_id") +
        Join("rocpd_info_agent", "sa", "m.src_agent_id") + Join("rocpd_event", "e", "m.event_id") +
        Join("rocpd_info_node", "n", F("m", "nid"));
    auto rows = db_.Query(sql);
    if (!rows.ok()) return Failed(table, rows.status());
    int64_t row = 0;
    while (rows->Next()) {
      ++row;
      Event e;
      if (!Span(*rows, table, row, e)) continue;
      std::string_view dir = rows->IsNull(3) ? std::string_view() : rows->Text(3);
      bool to_host = dir.find("TO_HOST") != std::string_view::npos;
      std::string_view name = dir.find("HOST_TO_DEVICE") != std::string_view::npos   ? "Memcpy HtoD"
                              : dir.find("DEVICE_TO_HOST") != std::string_view::npos ? "Memcpy DtoH"
                              : dir.find("DEVICE_TO_DEVICE") != std::string_view::npos
                                  ? "Memcpy DtoD"
                                  : "Memcpy";
      e.name = b_.Intern(name);
      e.kind = EventKind::kMemcpy;
      e.bytes = rows->IsNull(4) ? -1 : rows->Int(4);
      e.correlation = rows->IsNull(8) ? -1 : rows->Int(8);
      int agent_col = to_host ? 6 : 5;
      int device = rows->IsNull(agent_col) ? 0 : static_cast<int>(rows->Int(agent_col));
      e.track =
          b_.DeviceQueue(ProcessFor(*rows, 2, 9), device, rows->IsNull(7) ? -1 : rows->Int(7));
      b_.AddEvent(e);
    }
    if (!rows->status().ok()) Failed(table, rows->status());
  }

  const SqliteReader& db_;
  TimelineBuilder& b_;
  uint32_t file_;
  std::string suffix_;
  bool track_layout_ = false;
  std::set<std::string> layouts_;
};

std::string JoinSet(const std::set<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// rocpd_metadata<suffix>.value for tag "schema_version"; "?" when absent.
std::string SchemaVersion(const SqliteReader& db, const std::string& suffix) {
  std::string table = "rocpd_metadata" + suffix;
  if (!db.HasTable(table)) return "?";
  std::set<std::string> cols = db.Columns(table);
  if (!cols.count("tag") || !cols.count("value")) return "?";
  auto rows = db.Query("SELECT value FROM " + QuoteIdent(table) + " WHERE tag = 'schema_version'");
  if (!rows.ok() || !rows->Next() || rows->IsNull(0)) return "?";
  return std::string(rows->Text(0));
}

// Table-name suffixes of the rocpd table sets in a database ("" for views).
std::vector<std::string> Suffixes(const SqliteReader& db) {
  if (db.HasTable(std::string(kStringTable)) && db.HasTable("rocpd_kernel_dispatch")) return {""};
  std::vector<std::string> out;
  for (const std::string& t : db.tables()) {
    if (t.size() > kStringTable.size() && StartsWith(t, kStringTable)) {
      out.push_back(t.substr(kStringTable.size()));
    }
  }
  if (out.empty() && db.HasTable(std::string(kStringTable))) out.push_back("");
  return out;
}

class RocpdImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "rocpd"; }

  bool Sniff(std::string_view path, std::string_view head) const override {
    if (!IsSqliteHead(head) || path.empty()) return false;
    auto db = SqliteReader::Open(std::string(path));
    return db.ok() && !Suffixes(*db).empty();
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(auto db, SqliteReader::Open(path));
    std::vector<std::string> suffixes = Suffixes(db);
    if (suffixes.empty()) {
      return InvalidArgumentError(path + ": not a rocpd database (no rocpd_string table)");
    }
    uint32_t file = b.AddFile(RocprofSourceFile(path, "rocpd"));
    std::set<std::string> versions, layouts;
    for (const std::string& s : suffixes) {
      RocpdImport imp(db, b, file, s);
      imp.Run();
      versions.insert(SchemaVersion(db, s));
      layouts.insert(imp.layouts().begin(), imp.layouts().end());
    }
    // "rocpd schema_version 3 (rocpd_track + rocpd_timestamp), 2 table sets".
    std::string family = "rocpd schema_version " + JoinSet(versions, "/");
    if (!layouts.empty()) family += " (" + JoinSet(layouts, ", ") + ")";
    if (suffixes.size() > 1) family += ", " + std::to_string(suffixes.size()) + " table sets";
    b.timeline().files[file].format_version = family;
    if (progress != nullptr) progress->Advance(1, 1);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<TraceImporter> NewRocpdImporter() { return std::make_unique<RocpdImporter>(); }

}  // namespace gpufleet::trace
