// Nsight Systems SQLite export importer (`nsys export --type sqlite`).
//
// The export schema drifts across nsys versions (the metadata table was
// EXPORT_META_DATA before it became META_DATA_EXPORT; columns are added and
// renamed; tables exist only when the data was captured), so every query is
// built from the columns PRAGMA table_info reports, with NULL for optional
// columns that are absent. Event times are ns on the session timeline; with
// TARGET_INFO_SESSION_START_TIME.utcEpochNs they become epoch ns here.
// Families (issue 19): 2022.x exports (schema 2.x) name the metadata table
// EXPORT_META_DATA; 2023+ (schema 3.x) META_DATA_EXPORT, with columns added
// to the activity tables (greenContextId, graphId, clusterX...). Name columns
// (demangledName, shortName, nameId, textId) are ids into StringIds; a name
// stored inline as TEXT is taken as it is, and an id missing from StringIds
// is counted with its table and row. Copy kinds come from ENUM_CUDA_MEMCPY_OPER
// when the export has it (the built-in table otherwise); device names from
// TARGET_INFO_GPU, else TARGET_INFO_CUDA_DEVICE.
// A real row this handles (CUPTI_ACTIVITY_KIND_KERNEL, nsys 2022.2):
//   start=924922186 end=942626994 deviceId=0 streamId=7 correlationId=140
//   globalPid=302119223558144 shortName->"saxpy"
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/strings.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/nsys_names.h"
#include "trace/sqlite_reader.h"

namespace gpufleet::trace {
namespace {

class NsysImport {
 public:
  NsysImport(const SqliteReader& db, TimelineBuilder& b, uint32_t file)
      : db_(db), b_(b), file_(file) {}

  Status Run(ImportProgress* progress);

 private:
  SourceFile& file() { return b_.timeline().files[file_]; }
  Status LoadStrings();
  void LoadMetadata();
  uint32_t ProcessFor(int64_t pid);
  StringId Str(int64_t id);
  // The name in column `col`: inline TEXT as it is, else an id into
  // StringIds; a missing id is counted with its table and row.
  StringId Name(const SqliteRows& r, int col, const std::string& table, int64_t row);
  void LoadEnums();
  int64_t Time(int64_t native) const { return native + epoch_ns_; }
  bool CheckSpan(const SqliteRows& r, const std::string& table, int64_t row, int64_t& start,
                 int64_t& dur);
  // The rows of a device activity table (kernels, copies, sets, syncs):
  // columns start, end, deviceId, streamId, correlationId, globalPid (0-5)
  // and then `extra` (6 on). Each row with a valid span gets its times and
  // correlation; `fill` completes the event (a track of its own choosing,
  // else the row's device queue), or returns false to skip the row (having
  // said why).
  template <typename Fill>
  void ImportDeviceActivity(const std::string& table, std::vector<std::string> extra, Fill&& fill);
  void ImportKernels();
  void ImportRuntime();
  void ImportMemcpy();
  void ImportMemset();
  void ImportSync();
  void ImportNvtx();
  void TableFailed(const std::string& table, const Status& s);

  const SqliteReader& db_;
  TimelineBuilder& b_;
  uint32_t file_;
  std::unordered_map<int64_t, std::string> strings_;
  std::unordered_map<int64_t, StringId> interned_;
  std::unordered_map<int64_t, std::string> copy_kind_names_;  // ENUM_CUDA_MEMCPY_OPER
  uint64_t inline_names_ = 0;
  uint64_t missing_strings_ = 0;
  std::string first_missing_string_;
  std::string host_;
  std::string schema_version_;
  std::string device_name_;
  int64_t epoch_ns_ = 0;
  std::map<int64_t, int> rank_of_pid_;
  // correlationId -> globalTid of the runtime call, to put device-side
  // synchronization records on the host thread that waited.
  std::unordered_map<int64_t, int64_t> runtime_tid_;
};

void NsysImport::TableFailed(const std::string& table, const Status& s) {
  file().partial = true;
  NoteError(file(), table + ": " + s.message());
}

Status NsysImport::LoadStrings() {
  ASSIGN_OR_RETURN(auto rows, db_.Select("StringIds", {"id", "value"}, {"id", "value"}));
  while (rows.Next()) strings_.emplace(rows.Int(0), std::string(rows.Text(1)));
  return rows.status();
}

StringId NsysImport::Str(int64_t id) {
  auto it = interned_.find(id);
  if (it != interned_.end()) return it->second;
  auto s = strings_.find(id);
  StringId sid = s == strings_.end() ? b_.Intern("<unknown string " + std::to_string(id) + ">")
                                     : b_.Intern(s->second);
  interned_.emplace(id, sid);
  return sid;
}

StringId NsysImport::Name(const SqliteRows& r, int col, const std::string& table, int64_t row) {
  if (r.IsText(col)) {
    ++inline_names_;
    return b_.Intern(r.Text(col));
  }
  int64_t id = r.Int(col);
  if (strings_.count(id) == 0) {
    if (missing_strings_++ == 0) {
      first_missing_string_ =
          table + " row " + std::to_string(row) + " (id " + std::to_string(id) + ")";
    }
  }
  return Str(id);
}

void NsysImport::LoadEnums() {
  if (!db_.HasTable("ENUM_CUDA_MEMCPY_OPER")) return;
  auto rows = db_.Select("ENUM_CUDA_MEMCPY_OPER", {"id", "name", "label"}, {"id"});
  if (!rows.ok()) return TableFailed("ENUM_CUDA_MEMCPY_OPER", rows.status());
  while (rows->Next()) {
    std::string name = rows->IsNull(1) ? "" : CopyKindFromEnumName(rows->Text(1));
    if (name.empty() && !rows->IsNull(2)) name = "Memcpy " + std::string(rows->Text(2));
    if (!name.empty()) copy_kind_names_[rows->Int(0)] = name;
  }
}

void NsysImport::LoadMetadata() {
  std::string product_version, meta_table;
  for (const char* meta : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (!db_.HasTable(meta)) continue;
    auto rows = db_.Select(meta, {"name", "value"}, {"name", "value"});
    if (!rows.ok()) continue;
    meta_table = meta;
    while (rows->Next()) {
      if (rows->Text(0) == "EXPORT_SCHEMA_VERSION") schema_version_ = std::string(rows->Text(1));
      if (rows->Text(0) == "EXPORT_PRODUCT_VERSION") product_version = std::string(rows->Text(1));
    }
  }
  // "nsys 2022.2.1.31, export schema 2.9.1 (EXPORT_META_DATA)".
  file().format_version = "nsys " + (product_version.empty() ? "?" : product_version) +
                          ", export schema " + (schema_version_.empty() ? "?" : schema_version_) +
                          " (" + meta_table + ")";
  if (db_.HasTable("TARGET_INFO_SYSTEM_ENV")) {
    auto rows = db_.Select("TARGET_INFO_SYSTEM_ENV", {"name", "value"}, {"name", "value"});
    if (rows.ok()) {
      while (rows->Next()) {
        if (rows->Text(0) == "Hostname") host_ = std::string(rows->Text(1));
      }
    }
  }
  if (db_.HasTable("TARGET_INFO_SESSION_START_TIME")) {
    auto rows = db_.Select("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}, {"utcEpochNs"});
    if (rows.ok() && rows->Next() && !rows->IsNull(0)) epoch_ns_ = rows->Int(0);
  }
  file().alignment = epoch_ns_ != 0 ? "epoch base: TARGET_INFO_SESSION_START_TIME.utcEpochNs"
                                    : "no session start time: session-relative ns, needs alignment";
  if (!schema_version_.empty()) file().alignment += " (export schema " + schema_version_ + ")";
  file().epoch_clock = epoch_ns_ != 0;
  file().clock_source = epoch_ns_ != 0 ? "TARGET_INFO_SESSION_START_TIME.utcEpochNs + session ns"
                                       : "session-relative ns";
  for (const char* gpus : {"TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE"}) {
    if (!device_name_.empty() || !db_.HasTable(gpus)) continue;
    auto rows = db_.Select(gpus, {"name"}, {"name"});
    if (rows.ok() && rows->Next() && !rows->IsNull(0)) device_name_ = std::string(rows->Text(0));
  }
  if (db_.HasTable("MPI_RANKS")) {
    auto rows = db_.Select("MPI_RANKS", {"globalTid", "rank"}, {"globalTid", "rank"});
    if (rows.ok()) {
      while (rows->Next()) rank_of_pid_[PidOf(rows->Int(0))] = static_cast<int>(rows->Int(1));
    }
  }
}

uint32_t NsysImport::ProcessFor(int64_t pid) {
  uint32_t p = b_.Process(file_, host_, pid);
  trace::Process& proc = b_.timeline().processes[p];
  proc.vendor = Vendor::kNvidia;
  if (proc.device_name.empty()) proc.device_name = device_name_;
  auto r = rank_of_pid_.find(pid);
  if (r != rank_of_pid_.end()) proc.rank = r->second;
  return p;
}

bool NsysImport::CheckSpan(const SqliteRows& r, const std::string& table, int64_t row,
                           int64_t& start, int64_t& dur) {
  if (r.IsNull(0)) {
    NoteSkipped(file(),
                file().path + ": " + table + " row " + std::to_string(row) + ": start is NULL");
    return false;
  }
  start = r.Int(0);
  int64_t end = r.IsNull(1) ? start : r.Int(1);
  if (end < start) {
    NoteSkipped(file(),
                file().path + ": " + table + " row " + std::to_string(row) + ": end before start");
    return false;
  }
  dur = end - start;
  start = Time(start);
  return true;
}

template <typename Fill>
void NsysImport::ImportDeviceActivity(const std::string& table, std::vector<std::string> extra,
                                      Fill&& fill) {
  if (!db_.HasTable(table)) return;
  std::vector<std::string> columns = {"start",    "end",           "deviceId",
                                      "streamId", "correlationId", "globalPid"};
  columns.insert(columns.end(), extra.begin(), extra.end());
  auto rows = db_.Select(table, columns, {"start", "end", "globalPid"});
  if (!rows.ok()) return TableFailed(table, rows.status());
  int64_t row = 0;
  while (rows->Next()) {
    ++row;
    Event e;
    if (!CheckSpan(*rows, table, row, e.start_ns, e.dur_ns)) continue;
    e.correlation = rows->IsNull(4) ? -1 : rows->Int(4);
    constexpr uint32_t kUnset = UINT32_MAX;
    e.track = kUnset;
    if (!fill(*rows, row, e)) continue;
    if (e.track == kUnset) {
      e.track = b_.DeviceQueue(ProcessFor(PidOf(rows->Int(5))),
                               rows->IsNull(2) ? 0 : static_cast<int>(rows->Int(2)),
                               rows->IsNull(3) ? 0 : rows->Int(3));
    }
    b_.AddEvent(e);
  }
  if (!rows->status().ok()) TableFailed(table, rows->status());
}

void NsysImport::ImportKernels() {
  const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
  ImportDeviceActivity(
      table, {"demangledName", "shortName", "mangledName"},
      [&](const SqliteRows& r, int64_t row, Event& e) {
        int name_col = -1;
        for (int c : {6, 7, 8}) {
          if (!r.IsNull(c)) {
            name_col = c;
            break;
          }
        }
        if (name_col < 0) {
          NoteSkipped(file(), file().path + ": " + table + " row " + std::to_string(row) +
                                  ": no demangledName, shortName or mangledName");
          return false;
        }
        e.name = Name(r, name_col, table, row);
        e.kind = IsCommKernelName(b_.timeline().strings.Get(e.name)) ? EventKind::kCommKernel
                                                                     : EventKind::kKernel;
        return true;
      });
}

void NsysImport::ImportRuntime() {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db_.HasTable(table)) return;
  auto rows = db_.Select(table, {"start", "end", "globalTid", "correlationId", "nameId"},
                         {"start", "end", "globalTid", "nameId"});
  if (!rows.ok()) return TableFailed(table, rows.status());
  // Some exports (seen in the Perlmutter sample) list a call twice, with and
  // without the version suffix; after stripping they are one call.
  std::set<std::tuple<int64_t, int64_t, StringId>> seen;
  int64_t row = 0;
  uint64_t duplicates = 0;
  while (rows->Next()) {
    ++row;
    Event e;
    if (!CheckSpan(*rows, table, row, e.start_ns, e.dur_ns)) continue;
    int64_t gtid = rows->Int(2);
    e.correlation = rows->IsNull(3) ? -1 : rows->Int(3);
    std::string raw_name;
    if (rows->IsNull(4)) {
      raw_name = "<unknown runtime call>";
    } else {
      raw_name = std::string(b_.timeline().strings.Get(Name(*rows, 4, table, row)));
    }
    std::string_view name = StripApiVersion(raw_name);
    e.name = b_.Intern(name);
    if (e.correlation > 0 && !seen.emplace(gtid, e.correlation, e.name).second) {
      ++duplicates;
      continue;
    }
    e.kind =
        name.find("Synchronize") != std::string_view::npos ? EventKind::kSync : EventKind::kRuntime;
    e.track = b_.HostThread(ProcessFor(PidOf(gtid)), TidOf(gtid));
    if (e.correlation > 0) runtime_tid_.emplace(e.correlation, gtid);
    b_.AddEvent(e);
  }
  if (!rows->status().ok()) TableFailed(table, rows->status());
  if (duplicates > 0) {
    NoteError(file(), file().path + ": " + table + ": dropped " + std::to_string(duplicates) +
                          " duplicate rows (same thread, correlationId and call)");
  }
}

void NsysImport::ImportMemcpy() {
  ImportDeviceActivity("CUPTI_ACTIVITY_KIND_MEMCPY", {"bytes", "copyKind"},
                       [&](const SqliteRows& r, int64_t, Event& e) {
                         e.kind = EventKind::kMemcpy;
                         e.bytes = r.IsNull(6) ? -1 : r.Int(6);
                         const int64_t copy_kind = r.IsNull(7) ? 0 : r.Int(7);
                         auto named = copy_kind_names_.find(copy_kind);
                         e.name = named != copy_kind_names_.end()
                                      ? b_.Intern(named->second)
                                      : b_.Intern(CopyKindName(copy_kind));
                         return true;
                       });
}

void NsysImport::ImportMemset() {
  ImportDeviceActivity("CUPTI_ACTIVITY_KIND_MEMSET", {"bytes"},
                       [&](const SqliteRows& r, int64_t, Event& e) {
                         e.kind = EventKind::kMemset;
                         e.bytes = r.IsNull(6) ? -1 : r.Int(6);
                         e.name = b_.Intern("Memset");
                         return true;
                       });
}

void NsysImport::ImportSync() {
  ImportDeviceActivity("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {"syncType"},
                       [&](const SqliteRows& r, int64_t, Event& e) {
                         e.kind = EventKind::kSync;
                         e.name = b_.Intern(SyncTypeName(r.IsNull(6) ? 0 : r.Int(6)));
                         // On the host thread that waited, when its runtime call is known.
                         const int64_t pid = PidOf(r.Int(5));
                         auto waiter = runtime_tid_.find(e.correlation);
                         if (waiter != runtime_tid_.end() && PidOf(waiter->second) == pid) {
                           e.track = b_.HostThread(ProcessFor(pid), TidOf(waiter->second));
                         }
                         return true;
                       });
}

void NsysImport::ImportNvtx() {
  const std::string table = "NVTX_EVENTS";
  if (!db_.HasTable(table)) return;
  auto rows = db_.Select(table, {"start", "end", "eventType", "text", "textId", "globalTid"},
                         {"start", "globalTid"});
  if (!rows.ok()) return TableFailed(table, rows.status());
  int64_t row = 0;
  while (rows->Next()) {
    ++row;
    int64_t type = rows->IsNull(2) ? 0 : rows->Int(2);
    // Category (33) and domain (75) definitions are not events.
    if (type == 33 || type == 75) continue;
    Event e;
    if (!CheckSpan(*rows, table, row, e.start_ns, e.dur_ns)) continue;
    if (!rows->IsNull(3) && !rows->Text(3).empty()) {
      e.name = b_.Intern(rows->Text(3));
    } else if (!rows->IsNull(4)) {
      e.name = Name(*rows, 4, table, row);
    } else {
      continue;  // unnamed ranges carry nothing to show
    }
    e.kind = rows->IsNull(1) ? EventKind::kInstant : EventKind::kAnnotation;
    int64_t gtid = rows->IsNull(5) ? 0 : rows->Int(5);
    int64_t pid = PidOf(gtid);
    // Pipit-style MPI runs mark "MPI Rank N" when MPI_RANKS is absent.
    std::string_view name = b_.timeline().strings.Get(e.name);
    if (rank_of_pid_.count(pid) == 0 && name.substr(0, 9) == "MPI Rank ") {
      auto r = ParseInt64(name.substr(9));
      if (r.has_value() && *r >= 0 && *r < (1 << 30)) {
        rank_of_pid_[pid] = static_cast<int>(*r);
        ProcessFor(pid);
      }
    }
    e.track = b_.HostThread(ProcessFor(pid), TidOf(gtid));
    b_.AddEvent(e);
  }
  if (!rows->status().ok()) TableFailed(table, rows->status());
}

Status NsysImport::Run(ImportProgress* progress) {
  RETURN_IF_ERROR(LoadStrings());
  LoadMetadata();
  LoadEnums();
  // NVTX first so the rank mark is known for every later process.
  ImportNvtx();
  ImportRuntime();
  ImportKernels();
  ImportMemcpy();
  ImportMemset();
  ImportSync();
  if (inline_names_ > 0) file().format_version += ", names inline as TEXT";
  if (missing_strings_ > 0) {
    file().partial = true;
    NoteError(file(), file().path + ": " + std::to_string(missing_strings_) +
                          " names refer to ids missing from StringIds (first: " +
                          first_missing_string_ + "); shown as <unknown string N>");
  }
  if (progress != nullptr) progress->Advance(1, 1);
  return OkStatus();
}

class NsysSqliteImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "nsys_sqlite"; }

  bool Sniff(std::string_view path, std::string_view head) const override {
    if (!IsSqliteHead(head) || path.empty()) return false;
    auto db = SqliteReader::Open(std::string(path));
    if (!db.ok()) return false;
    return db->HasTable("StringIds") &&
           (db->HasTable("META_DATA_EXPORT") || db->HasTable("EXPORT_META_DATA"));
  }

  Status Import(const std::string& path, TimelineBuilder& builder,
                ImportProgress* progress) override {
    ASSIGN_OR_RETURN(auto db, SqliteReader::Open(path));
    if (!db.HasTable("META_DATA_EXPORT") && !db.HasTable("EXPORT_META_DATA")) {
      return InvalidArgumentError(path +
                                  ": not an Nsight Systems SQLite export (no META_DATA_EXPORT "
                                  "or EXPORT_META_DATA table)");
    }
    if (!db.HasTable("StringIds")) {
      return InvalidArgumentError(path +
                                  ": not an Nsight Systems SQLite export (no StringIds table)");
    }
    SourceFile sf;
    sf.path = path;
    sf.format = "nsys_sqlite";
    uint32_t file = builder.AddFile(std::move(sf));
    NsysImport imp(db, builder, file);
    Status st = imp.Run(progress);
    // Only StringIds can fail the whole import, before anything was added.
    if (!st.ok()) builder.timeline().files.pop_back();
    return st;
  }
};

}  // namespace

std::unique_ptr<TraceImporter> NewNsysSqliteImporter() {
  return std::make_unique<NsysSqliteImporter>();
}

}  // namespace gpufleet::trace
