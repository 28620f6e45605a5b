// PyTorch flight-recorder dump importer (JSON form) and its hang input.
//
// A dump is one rank's ring buffer of collectives per process group:
//   {"version": "2.4", "pg_config": {"0": {"name": "0", "desc": "default_pg",
//    "ranks": "[0, 1, 2, 3]"}}, "pg_status": {"0": {"last_enqueued_collective": 5,
//    "last_started_collective": 4, "last_completed_collective": 4}},
//    "entries": [{"pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": 5,
//    "profiling_name": "nccl:all_reduce", "state": "scheduled", "time_created_ns": ...}]}
// The default dump format is a pickle (TORCH_NCCL_DEBUG_INFO_TEMP_FILE); it is
// detected and rejected with a hint to convert it. The rank is the top-level
// "rank" when present, else the trailing number of the file name
// (nccl_trace_rank_3), as torch's own analyzer does. Times are epoch ns of the
// rank's system clock.
//
// Dump versions (issue 19; torch's FlightRecorder/TraceUtils key lists):
//   2.2: no pg_status (the state per group is derived from the entries).
//   2.3+: pg_status {pg_id: {last_enqueued/started/completed_collective}}.
//   2.7: nccl_version; 2.10: comm_lib_version, entries[].thread_id/thread_name.
// The JSON dump (dump_fr_trace_json / _dump_nccl_trace_json) differs from the
// pickle's content: pg_status values and pg_config ranks are strings ("5",
// "[0, 1]"), pg_config is keyed by group name while entries and pg_status
// carry the numeric pg_id (entries[].process_group[0] gives the name), and an
// undiscovered start or completion is 0, not absent. All of these are read.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_util.h"
#include "core/strings.h"
#include "trace/hang_inputs.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/json_util.h"

namespace gpufleet::trace {
namespace {

bool LooksLikePickle(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
         static_cast<unsigned char>(head[1]) <= 5;
}

Status PickleError(const std::string& path) {
  return InvalidArgumentError(
      path +
      ": a pickled flight-recorder dump; convert it with torch to JSON first (dump with "
      "torch._C._distributed_c10d._dump_nccl_trace_json(), or load it with pickle and "
      "json.dump it)");
}

std::optional<int> RankFromFileName(std::string_view path) {
  std::string_view base = BaseName(path);
  size_t dot = base.find('.');
  if (dot != std::string_view::npos) base = base.substr(0, dot);
  size_t end = base.size();
  size_t begin = end;
  while (begin > 0 && base[begin - 1] >= '0' && base[begin - 1] <= '9') --begin;
  if (begin == end || end - begin > 7) return std::nullopt;
  auto v = ParseInt64(base.substr(begin));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// "[0, 1, 2, 3]" (as torch writes it) or a JSON array of ints.
std::vector<int> ParseRankList(const Json& v) {
  std::vector<int> out;
  if (v.is_array()) {
    for (const Json& e : v) {
      if (e.is_number_integer() && e.get<int64_t>() >= 0 && e.get<int64_t>() < (1 << 24)) {
        out.push_back(static_cast<int>(e.get<int64_t>()));
      }
    }
  } else if (v.is_string()) {
    std::string s = v.get<std::string>();
    for (char& c : s) {
      if (c == '[' || c == ']' || c == ' ') c = ',';
    }
    for (std::string_view t : SplitString(s, ',')) {
      if (auto r = ParseInt64(t); r && *r >= 0 && *r < (1 << 24))
        out.push_back(static_cast<int>(*r));
    }
  }
  return out;
}

int DtypeBytes(std::string_view dt) {
  if (dt == "Float" || dt == "Int" || dt == "UInt32") return 4;
  if (dt == "Double" || dt == "Long" || dt == "UInt64" || dt == "ComplexFloat") return 8;
  if (dt == "Half" || dt == "BFloat16" || dt == "Short") return 2;
  if (dt == "Byte" || dt == "Char" || dt == "Bool" || StartsWith(dt, "Float8")) return 1;
  return -1;
}

// Bytes of the input tensors of an entry, or -1 when unknown.
int64_t EntryBytes(const Json& entry) {
  const Json* sizes = JsonArray(entry, "input_sizes");
  const Json* dtypes = JsonArray(entry, "input_dtypes");
  if (sizes == nullptr || dtypes == nullptr || sizes->size() != dtypes->size()) return -1;
  int64_t total = 0;
  for (size_t i = 0; i < sizes->size(); ++i) {
    const Json& shape = (*sizes)[i];
    const Json& dt = (*dtypes)[i];
    if (!shape.is_array() || !dt.is_string()) return -1;
    int64_t n = DtypeBytes(dt.get<std::string>());
    if (n < 0) return -1;
    for (const Json& d : shape) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > (int64_t{1} << 40)) {
        return -1;
      }
      n *= d.get<int64_t>();
      if (n > (int64_t{1} << 50)) return -1;
    }
    total += n;
  }
  return total;
}

struct PgInfo {
  std::string comm;  // "pg:<name>"
  std::vector<int> ranks;
};

struct Dump {
  int rank = -1;
  std::string host;
  int64_t pid = -1;
  std::map<std::string, PgInfo> pgs;           // pg key -> info
  std::map<std::string, std::string> name_of;  // pg_id -> group name (process_group[0])
  Json root;
};

// An integer field written as a number (pickle content) or as a decimal
// string (the JSON dump's pg_status).
std::optional<int64_t> IntOrString(const Json& j, std::string_view key) {
  if (auto v = JsonInt(j, key)) return v;
  if (auto s = JsonString(j, key)) return ParseInt64(TrimWhitespace(*s));
  return std::nullopt;
}

std::string PgIdOfEntry(const Json& e) {
  if (auto id = JsonInt(e, "pg_id")) return std::to_string(*id);
  if (auto id = JsonString(e, "pg_id")) return *id;
  return "0";
}

// The key of a group: its pg_config key (the group name) when the dump maps
// this pg_id to a configured name, else the pg_id itself.
std::string PgKey(const Dump& d, const std::string& pg_id) {
  auto n = d.name_of.find(pg_id);
  if (n != d.name_of.end() && d.pgs.count(n->second)) return n->second;
  return pg_id;
}

std::string PgKeyOfEntry(const Dump& d, const Json& e) { return PgKey(d, PgIdOfEntry(e)); }

// A discovery time: absent, or 0 in the JSON dump, means "not seen".
std::optional<int64_t> Discovered(const Json& e, std::string_view key) {
  auto v = JsonInt(e, key);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

StatusOr<Dump> ParseDump(const std::string& path, std::string_view text) {
  if (LooksLikePickle(text)) return PickleError(path);
  auto root = ParseJson(text);
  if (!root || !root->is_object()) {
    return InvalidArgumentError(path +
                                ": not valid JSON (truncated or corrupt flight-recorder dump)");
  }
  if (JsonArray(*root, "entries") == nullptr && JsonObject(*root, "pg_status") == nullptr) {
    return InvalidArgumentError(path + ": no 'entries' or 'pg_status': not a flight-recorder dump");
  }
  Dump d;
  d.root = std::move(*root);
  if (auto r = JsonInt(d.root, "rank"); r && *r >= 0 && *r < (1 << 24)) {
    d.rank = static_cast<int>(*r);
  } else if (auto fr = RankFromFileName(path)) {
    d.rank = *fr;
  } else {
    return InvalidArgumentError(path + ": no 'rank' field and no rank number in the file name");
  }
  for (const char* key : {"hostname", "host_name", "host"}) {
    if (auto h = JsonString(d.root, key)) d.host = *h;
  }
  if (auto pid = JsonInt(d.root, "pid")) d.pid = *pid;
  if (const Json* cfg = JsonObject(d.root, "pg_config")) {
    for (auto it = cfg->begin(); it != cfg->end(); ++it) {
      PgInfo info;
      auto name = JsonString(it.value(), "name");
      info.comm = "pg:" + (name ? *name : it.key());
      if (it.value().is_object() && it.value().contains("ranks")) {
        info.ranks = ParseRankList(it.value()["ranks"]);
      }
      d.pgs[it.key()] = std::move(info);
    }
  }
  if (const Json* entries = JsonArray(d.root, "entries")) {
    for (const Json& e : *entries) {
      const Json* pg = JsonArray(e, "process_group");
      if (pg != nullptr && !pg->empty() && (*pg)[0].is_string()) {
        d.name_of.emplace(PgIdOfEntry(e), (*pg)[0].get<std::string>());
      }
    }
  }
  return d;
}

const PgInfo& PgOf(Dump& d, const std::string& key) {
  auto [it, inserted] = d.pgs.try_emplace(key);
  if (inserted) it->second.comm = "pg:" + key;
  return it->second;
}

class FlightRecorderImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "flight_recorder"; }
  bool Sniff(std::string_view, std::string_view head) const override {
    return LooksLikePickle(head) || LooksLikeFlightRecorderJson(head);
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    ASSIGN_OR_RETURN(Dump d, ParseDump(path, text));
    SourceFile sf;
    sf.path = path;
    sf.format = "flight_recorder";
    sf.alignment = "epoch ns (system clock of the rank)";
    sf.epoch_clock = true;
    sf.clock_source = "flight recorder time_*_ns";
    sf.format_version =
        "flight recorder dump version " + JsonString(d.root, "version").value_or("?");
    for (const char* lib : {"comm_lib_version", "nccl_version"}) {
      if (auto v = JsonString(d.root, lib); v && !v->empty()) {
        sf.format_version += ", " + std::string(lib) + " " + *v;
        break;
      }
    }
    uint32_t file = b.AddFile(std::move(sf));
    uint32_t proc = b.Process(file, d.host, d.pid);
    b.timeline().processes[proc].rank = d.rank;
    int64_t index = -1;
    if (const Json* entries = JsonArray(d.root, "entries")) {
      for (const Json& e : *entries) {
        ++index;
        SourceFile& f = b.timeline().files[file];
        auto seq = JsonInt(e, "collective_seq_id");
        auto name = JsonString(e, "profiling_name");
        auto created = JsonInt(e, "time_created_ns");
        if (!e.is_object() || !name || !created) {
          NoteSkipped(f, path + ": entries[" + std::to_string(index) +
                             "]: missing profiling_name or time_created_ns");
          continue;
        }
        const PgInfo& pg = PgOf(d, PgKeyOfEntry(d, e));
        Collective c;
        c.op = b.Intern(*name);
        c.comm = b.Intern(pg.comm);
        bool p2p = e.contains("is_p2p") && e["is_p2p"].is_boolean() && e["is_p2p"].get<bool>();
        c.seq = p2p ? JsonInt(e, "p2p_seq_id").value_or(-1) : seq.value_or(-1);
        c.bytes = EntryBytes(e);
        c.nranks = pg.ranks.empty() ? -1 : static_cast<int>(pg.ranks.size());
        c.rank = d.rank;
        Event ev;
        ev.name = c.op;
        ev.bytes = c.bytes;
        ev.collective = b.AddCollective(c);
        auto started = Discovered(e, "time_discovered_started_ns");
        auto completed = Discovered(e, "time_discovered_completed_ns");
        if (started && completed && *completed >= *started) {
          ev.kind = EventKind::kCommKernel;
          ev.start_ns = *started;
          ev.dur_ns = *completed - *started;
          ev.track = b.DeviceQueue(proc, -1, JsonInt(e, "pg_id").value_or(0));
        } else {
          // Not (yet) completed: the enqueue is all we know.
          ev.kind = EventKind::kInstant;
          ev.start_ns = *created;
          ev.track = b.HostThread(proc, 0);
        }
        b.AddEvent(ev);
      }
    }
    if (progress != nullptr) progress->Advance(text.size(), text.size());
    return OkStatus();
  }
};

}  // namespace

bool LooksLikeFlightRecorderJson(std::string_view head) {
  head = TrimWhitespace(head);
  if (head.empty() || head[0] != '{') return false;
  return head.find("\"pg_status\"") != std::string_view::npos ||
         head.find("\"collective_seq_id\"") != std::string_view::npos ||
         head.find("\"profiling_name\"") != std::string_view::npos;
}

Status FlightRecorderHangInput(const std::string& path, std::string_view text, HangInput& out) {
  ASSIGN_OR_RETURN(Dump d, ParseDump(path, text));
  // First incomplete entry per pg, for the pending op; state per pg from
  // pg_status, or derived from the entries in dumps that lack it.
  struct PgState {
    int64_t enq = -1, started = -1, completed = -1;
    bool have_status = false;
    std::map<int64_t, std::string> op_of_seq;
  };
  std::map<std::string, PgState> st;
  if (const Json* entries = JsonArray(d.root, "entries")) {
    for (const Json& e : *entries) {
      auto seq = JsonInt(e, "collective_seq_id");
      bool p2p = e.is_object() && e.contains("is_p2p") && e["is_p2p"].is_boolean() &&
                 e["is_p2p"].get<bool>();
      if (!seq || p2p) continue;
      PgState& s = st[PgKeyOfEntry(d, e)];
      s.op_of_seq[*seq] = JsonString(e, "profiling_name").value_or("?");
      std::string state = JsonString(e, "state").value_or("");
      s.enq = std::max(s.enq, *seq);
      if (state == "started" || state == "completed") s.started = std::max(s.started, *seq);
      if (state == "completed") s.completed = std::max(s.completed, *seq);
    }
  }
  if (const Json* status = JsonObject(d.root, "pg_status")) {
    for (auto it = status->begin(); it != status->end(); ++it) {
      PgState& s = st[PgKey(d, it.key())];
      s.have_status = true;
      s.enq = IntOrString(it.value(), "last_enqueued_collective").value_or(s.enq);
      s.started = IntOrString(it.value(), "last_started_collective").value_or(s.started);
      s.completed = IntOrString(it.value(), "last_completed_collective").value_or(s.completed);
    }
  }
  for (auto& [key, s] : st) {
    const PgInfo& pg = PgOf(d, key);
    HangRankState r;
    r.rank = d.rank;
    r.host = d.host;
    r.pid = d.pid;
    r.comm = pg.comm;
    r.source = path;
    r.last_enqueued = s.enq;
    r.last_started = s.started;
    r.last_completed = s.completed;
    r.completion_known = true;
    auto op = s.op_of_seq.find(s.completed + 1);
    if (s.enq > s.completed) {
      r.pending_op = op != s.op_of_seq.end() ? op->second : "?";
    }
    if (!pg.ranks.empty()) {
      out.comm_members[pg.comm] = pg.ranks;
      out.comm_size[pg.comm] = static_cast<int>(pg.ranks.size());
    }
    out.ranks.push_back(std::move(r));
  }
  return OkStatus();
}

std::unique_ptr<TraceImporter> NewFlightRecorderImporter() {
  return std::make_unique<FlightRecorderImporter>();
}

}  // namespace gpufleet::trace
