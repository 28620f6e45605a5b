// rocpd SQLite importer (rocprofv3 --output-format rocpd, default since ROCm 7.0).
//
// Schema (rocprofiler-sdk rocpd_tables.sql, v3): every table carries a
// per-database suffix (`rocpd_kernel_dispatch{{uuid}}`) and views without the
// suffix may sit on top. The suffix is discovered from the rocpd_string
// table; a database merged from several runs has several suffixes, each read
// in turn. pid/tid/agent_id/kernel_id columns are ids into the rocpd_info_*
// tables, not OS ids, so the queries join them back. Times are
// CLOCK_BOOTTIME ns, left native.
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
    if (!db_.HasTable(table)) return;
    std::string sql =
        "SELECT k.start, k.end, " + Col("rocpd_info_process", "p", "pid") + ", " +
        Col("rocpd_info_thread", "t", "tid") + ", " + Col("rocpd_info_agent", "a", "type_index") +
        ", k.queue_id, k.stream_id, " + Col("rocpd_info_kernel_symbol", "s", "display_name") +
        ", " + Col("rocpd_info_kernel_symbol", "s", "kernel_name") + ", " +
        Col("rocpd_event", "e", "correlation_id") + ", " + Col("rocpd_info_node", "n", "hostname") +
        ", k.kernel_id FROM " + QuoteIdent(table) + " k" +
        Join("rocpd_info_process", "p", "k.pid") + Join("rocpd_info_thread", "t", "k.tid") +
        Join("rocpd_info_agent", "a", "k.agent_id") +
        Join("rocpd_info_kernel_symbol", "s", "k.kernel_id") +
        Join("rocpd_event", "e", "k.event_id") + Join("rocpd_info_node", "n", "k.nid");
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
      e.track = b_.DeviceQueue(proc, device, stream != 0 ? stream : rows->Int(5));
      b_.AddEvent(e);
    }
    if (!rows->status().ok()) Failed(table, rows->status());
  }

  void Regions() {
    const std::string table = T("rocpd_region");
    if (!db_.HasTable(table)) return;
    std::string sql =
        "SELECT r.start, r.end, " + Col("rocpd_info_process", "p", "pid") + ", " +
        Col("rocpd_info_thread", "t", "tid") + ", str.string, " +
        Col("rocpd_event", "e", "correlation_id") + ", " +
        (Has("rocpd_event") ? "cat.string" : "NULL") + ", " +
        Col("rocpd_info_node", "n", "hostname") + " FROM " + QuoteIdent(table) + " r" +
        Join("rocpd_info_process", "p", "r.pid") + Join("rocpd_info_thread", "t", "r.tid") +
        Join(kStringTable, "str", "r.name_id") + Join("rocpd_event", "e", "r.event_id") +
        (Has("rocpd_event") ? Join(kStringTable, "cat", "e.category_id") : "") +
        Join("rocpd_info_node", "n", "r.nid");
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
    if (!db_.HasTable(table)) return;
    std::string sql =
        "SELECT m.start, m.end, " + Col("rocpd_info_process", "p", "pid") +
        ", str.string, m.size, " + Col("rocpd_info_agent", "da", "type_index") + ", " +
        Col("rocpd_info_agent", "sa", "type_index") + ", m.stream_id, " +
        Col("rocpd_event", "e", "correlation_id") + ", " + Col("rocpd_info_node", "n", "hostname") +
        " FROM " + QuoteIdent(table) + " m" + Join("rocpd_info_process", "p", "m.pid") +
        Join(kStringTable, "str", "m.name_id") + Join("rocpd_info_agent", "da", "m.dst_agent_id") +
        Join("rocpd_info_agent", "sa", "m.src_agent_id") + Join("rocpd_event", "e", "m.event_id") +
        Join("rocpd_info_node", "n", "m.nid");
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
};

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
    for (const std::string& s : suffixes) RocpdImport(db, b, file, s).Run();
    if (progress != nullptr) progress->Advance(1, 1);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<TraceImporter> NewRocpdImporter() { return std::make_unique<RocpdImporter>(); }

}  // namespace gpufleet::trace
