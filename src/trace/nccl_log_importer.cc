// NCCL / RCCL `NCCL_DEBUG=INFO` log importer (and its hang-analysis input).
//
// Lines handled (NCCL src/debug.cc prefix, optional timestamp prefix):
//   node1:2201:2290 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
//   node1:2201:2290 [0] NCCL INFO ncclCommInitRank comm 0x55d3c0b8e7a0 rank 0 nranks 4
//       cudaDev 0 nvmlDev 0 busId 18000 commId 0x7e5a5dd6e3b0c1f2 - Init COMPLETE
//   node1:2201:2290 [0] NCCL INFO AllReduce: opCount 1f sendbuff 0x7f2a sendbuff ... count 1048576
//       datatype 7 op 0 root 0 comm 0x55d3c0b8e7a0 [nranks=4] stream 0x55d3c0c00000
//   node3:3307:3307 [1] NCCL INFO AllReduce: opCount 1f ... [nranks=4] stream 0x.. task 0
//   globalrank 3 [2025-03-01 10:00:05] node1:2201:2290 [0] enqueue.cc:1200 NCCL WARN Cuda failure
//   'out of memory'
// The bracket is the CUDA/HIP device index, not the rank; the rank comes from
// the init line of the same (host, pid, comm pointer). opCount is hex and per
// communicator. INFO lines usually carry no timestamp (only levels in
// NCCL_DEBUG_TIMESTAMP_LEVELS do, default WARN); without one, events are
// placed in line order and SourceFile::alignment says so.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "core/strings.h"
#include "trace/hang_inputs.h"
#include "trace/import_util.h"
#include "trace/importer.h"

namespace gpufleet::trace {
namespace {

struct LinePrefix {
  std::string_view host;
  int64_t pid = -1;
  int64_t tid = -1;
  int device = -1;
  bool warn = false;
  std::string_view msg;
  int64_t ts_ns = -1;  // from the optional "[%F %T.%f] " prefix, local time read as UTC
};

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<int64_t> Num(std::string_view s) { return ParseInt64(s); }

// "2025-03-01 10:00:05.123" -> epoch ns (as if UTC).
std::optional<int64_t> ParseTimestamp(std::string_view s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  auto y = Num(s.substr(0, 4)), mo = Num(s.substr(5, 2)), d = Num(s.substr(8, 2));
  auto h = Num(s.substr(11, 2)), mi = Num(s.substr(14, 2)), se = Num(s.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !se || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
      *mi > 59 || *se > 60) {
    return std::nullopt;
  }
  int64_t ns = ((DaysFromCivil(*y, *mo, *d) * 24 + *h) * 60 + *mi) * 60 + *se;
  ns *= 1000000000;
  if (s.size() > 20 && s[19] == '.') {
    std::string_view frac = s.substr(20);
    int64_t scale = 100000000;
    for (char c : frac) {
      if (c < '0' || c > '9' || scale == 0) break;
      ns += (c - '0') * scale;
      scale /= 10;
    }
  }
  return ns;
}

bool ParsePrefix(std::string_view line, LinePrefix& out) {
  size_t info = line.find(" NCCL INFO ");
  size_t warn = line.find(" NCCL WARN ");
  size_t at = std::min(info, warn);
  if (at == std::string_view::npos) return false;
  out.warn = warn < info;
  out.msg = TrimWhitespace(line.substr(at + 11));
  std::string_view head = TrimWhitespace(line.substr(0, at));
  if (!head.empty() && head[0] == '[') {
    size_t close = head.find(']');
    if (close == std::string_view::npos) return false;
    if (auto ts = ParseTimestamp(head.substr(1, close - 1))) out.ts_ns = *ts;
    head = TrimWhitespace(head.substr(close + 1));
  }
  size_t sp = head.find(' ');
  std::string_view id = head.substr(0, sp);
  size_t c2 = id.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  size_t c1 = id.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return false;
  auto pid = Num(id.substr(c1 + 1, c2 - c1 - 1));
  auto tid = Num(id.substr(c2 + 1));
  if (!pid || !tid) return false;
  out.host = id.substr(0, c1);
  out.pid = *pid;
  out.tid = *tid;
  if (sp != std::string_view::npos) {
    std::string_view rest = TrimWhitespace(head.substr(sp + 1));
    if (rest.size() > 2 && rest[0] == '[') {
      size_t close = rest.find(']');
      if (close != std::string_view::npos) {
        if (auto dev = Num(rest.substr(1, close - 1)); dev && *dev >= 0 && *dev < 4096) {
          out.device = static_cast<int>(*dev);
        }
      }
    }
  }
  return true;
}

// "key value" pairs of a message ("rank 0 nranks 4 ..."); `[nranks=4]` too.
std::map<std::string_view, std::string_view> KeyValues(std::string_view msg) {
  std::map<std::string_view, std::string_view> kv;
  std::vector<std::string_view> toks;
  for (std::string_view t : SplitString(msg, ' ')) {
    if (!t.empty()) toks.push_back(t);
  }
  for (size_t i = 0; i < toks.size(); ++i) {
    std::string_view t = toks[i];
    if (t.size() > 2 && t.front() == '[' && t.back() == ']') {
      size_t eq = t.find('=');
      if (eq != std::string_view::npos)
        kv[t.substr(1, eq - 1)] = t.substr(eq + 1, t.size() - eq - 2);
      continue;
    }
    if (i + 1 < toks.size() && kv.count(t) == 0) kv[t] = toks[i + 1];
  }
  return kv;
}

int DatatypeBytes(int64_t dt) {
  switch (dt) {  // ncclDataType_t
    case 0:
    case 1:
      return 1;  // int8, uint8
    case 2:
    case 3:
      return 4;  // int32, uint32
    case 4:
    case 5:
      return 8;  // int64, uint64
    case 6:
      return 2;  // float16
    case 7:
      return 4;  // float32
    case 8:
      return 8;  // float64
    case 9:
      return 2;  // bfloat16
    case 10:
    case 11:
      return 1;  // fp8 e4m3 / e5m2
    default:
      return -1;
  }
}

bool IsCollOp(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",   "Send",
      "Recv",      "AllToAll",  "Gather",        "Scatter",   "AllToAllv"};
  for (auto k : kOps) {
    if (op == k) return true;
  }
  return false;
}

struct ProcKey {
  std::string host;
  int64_t pid;
  bool operator<(const ProcKey& o) const { return host != o.host ? host < o.host : pid < o.pid; }
};

struct CommInfo {
  std::string comm_id;  // commId when logged, else a per-process pointer key
  int rank = -1;
  int nranks = -1;
};

struct CollRecord {
  int64_t line = 0;
  ProcKey proc;
  int64_t tid = -1;
  int device = -1;
  std::string op;
  int64_t op_count = -1;
  int64_t bytes = -1;
  std::string comm_ptr;
  int nranks = -1;
  int global_rank = -1;
  int64_t ts_ns = -1;
};

struct WarnRecord {
  int64_t line;
  ProcKey proc;
  int64_t tid;
  int64_t ts_ns;
  std::string msg;
};

struct NcclLog {
  std::map<ProcKey, Vendor> vendor;
  std::map<std::pair<ProcKey, std::string>, CommInfo> comms;  // (proc, comm pointer)
  std::vector<CollRecord> colls;
  std::vector<WarnRecord> warns;
  int64_t nccl_lines = 0;
  int64_t bad_lines = 0;
  std::vector<std::string> bad;
  bool any_timestamp = false;
};

NcclLog ParseLog(const std::string& path, std::string_view text) {
  NcclLog log;
  LineReader reader(text);
  std::string_view line;
  while (reader.Next(line)) {
    LinePrefix p;
    if (!ParsePrefix(line, p)) continue;  // application output interleaved with NCCL's
    ++log.nccl_lines;
    if (p.ts_ns >= 0) log.any_timestamp = true;
    ProcKey proc{std::string(p.host), p.pid};
    std::string where = path + ":" + std::to_string(reader.line_no());
    if (p.warn) {
      log.warns.push_back({reader.line_no(), proc, p.tid, p.ts_ns, std::string(p.msg)});
      continue;
    }
    std::string_view msg = p.msg;
    if (StartsWith(msg, "NCCL version") || StartsWith(msg, "RCCL version")) {
      bool amd = StartsWith(msg, "RCCL") || msg.find("+hip") != std::string_view::npos ||
                 msg.find("rocm") != std::string_view::npos;
      log.vendor[proc] = amd ? Vendor::kAmd : Vendor::kNvidia;
      continue;
    }
    if ((StartsWith(msg, "ncclCommInit") || StartsWith(msg, "ncclCommSplit")) &&
        msg.find(" nranks ") != std::string_view::npos) {
      auto kv = KeyValues(msg);
      auto rank = Num(kv["rank"]);
      auto nranks = Num(kv["nranks"]);
      if (kv.count("comm") == 0 || !rank || !nranks || *rank < 0 || *nranks <= 0 ||
          *rank >= *nranks || *nranks > (1 << 24)) {
        ++log.bad_lines;
        log.bad.push_back(where + ": init line without comm/rank/nranks");
        continue;
      }
      CommInfo info;
      info.rank = static_cast<int>(*rank);
      info.nranks = static_cast<int>(*nranks);
      if (kv.count("commId")) {
        info.comm_id = std::string(kv["commId"]);
      } else {
        // Before NCCL 2.19 the init line has no commId; ranks of one job
        // with one communicator of that size still line up.
        info.comm_id = "nranks=" + std::to_string(*nranks);
      }
      log.comms[{proc, std::string(kv["comm"])}] = info;
      continue;
    }
    size_t colon = msg.find(": opCount ");
    if (colon != std::string_view::npos && IsCollOp(msg.substr(0, colon))) {
      auto kv = KeyValues(msg.substr(colon + 2));
      auto op_count = ParseHex(kv["opCount"]);
      if (!op_count || kv.count("comm") == 0 || *op_count > (uint64_t{1} << 62)) {
        ++log.bad_lines;
        log.bad.push_back(where + ": " + std::string(msg.substr(0, colon)) +
                          " line without a valid opCount/comm");
        continue;
      }
      CollRecord c;
      c.line = reader.line_no();
      c.proc = proc;
      c.tid = p.tid;
      c.device = p.device;
      c.op = std::string(msg.substr(0, colon));
      c.op_count = static_cast<int64_t>(*op_count);
      c.comm_ptr = std::string(kv["comm"]);
      c.ts_ns = p.ts_ns;
      auto count = Num(kv["count"]);
      auto dt = Num(kv["datatype"]);
      if (count && dt && *count >= 0 && DatatypeBytes(*dt) > 0 && *count < (int64_t{1} << 56)) {
        c.bytes = *count * DatatypeBytes(*dt);
      }
      if (auto n = Num(kv["nranks"]); n && *n > 0 && *n < (1 << 24))
        c.nranks = static_cast<int>(*n);
      if (kv.count("globalrank")) {
        log.vendor.emplace(proc, Vendor::kAmd);  // RCCL-only suffix
        if (auto g = Num(kv["globalrank"]); g && *g >= 0 && *g < (1 << 24)) {
          c.global_rank = static_cast<int>(*g);
        }
      }
      log.colls.push_back(std::move(c));
    }
  }
  return log;
}

// The communicator identity and rank of a COLL record.
CommInfo Resolve(const NcclLog& log, const CollRecord& c) {
  auto it = log.comms.find({c.proc, c.comm_ptr});
  if (it != log.comms.end()) return it->second;
  CommInfo info;
  info.comm_id = c.proc.host + ":" + std::to_string(c.proc.pid) + ":" + c.comm_ptr;
  info.rank = c.global_rank;
  info.nranks = c.nranks;
  return info;
}

Vendor VendorOf(const NcclLog& log, const ProcKey& p) {
  auto it = log.vendor.find(p);
  return it == log.vendor.end() ? Vendor::kUnknown : it->second;
}

class NcclLogImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "nccl_log"; }
  bool Sniff(std::string_view, std::string_view head) const override {
    return LooksLikeNcclLog(head);
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    NcclLog log = ParseLog(path, text);
    if (log.nccl_lines == 0) {
      return InvalidArgumentError(path + ": no NCCL INFO/WARN lines (not an NCCL_DEBUG log)");
    }
    SourceFile sf;
    sf.path = path;
    sf.format = "nccl_log";
    sf.alignment = log.any_timestamp
                       ? "log timestamps (local time read as UTC); untimed lines take the "
                         "previous timestamp"
                       : "no timestamps in log: times are line order, needs alignment";
    sf.epoch_clock = false;  // local wall time at best, second resolution by default
    sf.clock_source = log.any_timestamp ? "NCCL log timestamps (local time)" : "log line order";
    uint32_t file = b.AddFile(std::move(sf));
    SourceFile& f = b.timeline().files[file];
    f.skipped = static_cast<uint64_t>(log.bad_lines);
    for (auto& m : log.bad) NoteError(f, m);

    // Untimed lines get the last timestamp seen + 1 ns per line, so order is kept.
    auto time_of = [&, last = int64_t{-1}](int64_t ts, int64_t line) mutable {
      if (!log.any_timestamp) return line;
      if (ts >= 0) last = ts;
      return (last < 0 ? 0 : last) + line;
    };
    auto process = [&](const ProcKey& pk) {
      uint32_t p = b.Process(file, pk.host, pk.pid);
      b.timeline().processes[p].vendor = VendorOf(log, pk);
      return p;
    };
    // Rank and world size: the largest communicator the process is in.
    for (const auto& [key, info] : log.comms) {
      uint32_t p = process(key.first);
      trace::Process& proc = b.timeline().processes[p];
      if (info.nranks > proc.world_size) {
        proc.world_size = info.nranks;
        proc.rank = info.rank;
      }
    }
    // Merge records by line so the time cursor moves forward.
    size_t wi = 0;
    for (size_t ci = 0; ci <= log.colls.size(); ++ci) {
      int64_t next_line = ci < log.colls.size() ? log.colls[ci].line : INT64_MAX;
      for (; wi < log.warns.size() && log.warns[wi].line < next_line; ++wi) {
        const WarnRecord& w = log.warns[wi];
        Event e;
        e.kind = EventKind::kInstant;
        e.start_ns = time_of(w.ts_ns, w.line);
        e.name = b.Intern("NCCL WARN " + w.msg);
        e.track = b.HostThread(process(w.proc), w.tid);
        b.AddEvent(e);
        NoteError(b.timeline().files[file],
                  path + ":" + std::to_string(w.line) + ": NCCL WARN " + w.msg);
      }
      if (ci == log.colls.size()) break;
      const CollRecord& c = log.colls[ci];
      CommInfo info = Resolve(log, c);
      Collective coll;
      coll.op = b.Intern(c.op);
      coll.comm = b.Intern(info.comm_id);
      coll.seq = c.op_count;
      coll.bytes = c.bytes;
      coll.nranks = c.nranks > 0 ? c.nranks : info.nranks;
      coll.rank = info.rank;
      Event e;
      e.kind = EventKind::kInstant;
      e.start_ns = time_of(c.ts_ns, c.line);
      e.name = coll.op;
      e.bytes = c.bytes;
      e.collective = b.AddCollective(coll);
      e.track = b.HostThread(process(c.proc), c.tid);
      b.AddEvent(e);
    }
    if (progress != nullptr) progress->Advance(text.size(), text.size());
    return OkStatus();
  }
};

}  // namespace

bool LooksLikeNcclLog(std::string_view head) {
  LineReader reader(head);
  std::string_view line;
  int checked = 0;
  while (reader.Next(line) && checked < 200) {
    LinePrefix p;
    if (ParsePrefix(line, p)) return true;
    ++checked;
  }
  return false;
}

Status NcclLogHangInput(const std::string& path, std::string_view text, HangInput& out) {
  NcclLog log = ParseLog(path, text);
  if (log.colls.empty() && log.comms.empty()) {
    return InvalidArgumentError(path +
                                ": no NCCL init or COLL lines (set NCCL_DEBUG=INFO and "
                                "NCCL_DEBUG_SUBSYS=INIT,COLL)");
  }
  // Last opCount per (process, comm).
  std::map<std::pair<ProcKey, std::string>, const CollRecord*> last;
  for (const CollRecord& c : log.colls) {
    auto& slot = last[{c.proc, c.comm_ptr}];
    if (slot == nullptr || c.op_count >= slot->op_count) slot = &c;
  }
  for (const auto& [key, info] : log.comms) {
    if (info.nranks > 0) out.comm_size[info.comm_id] = info.nranks;
  }
  // What every rank's state starts from: its process and communicator.
  auto rank_state = [&](const ProcKey& proc, const CommInfo& info) {
    HangRankState s;
    s.rank = info.rank;
    s.host = proc.host;
    s.pid = proc.pid;
    s.vendor = VendorOf(log, proc);
    s.comm = info.comm_id;
    s.source = path;
    return s;
  };
  // A rank that initialized a communicator but logged no collective on it
  // has enqueued nothing (-1).
  std::map<std::pair<ProcKey, std::string>, bool> has_coll;
  for (const auto& [key, rec] : last) has_coll[key] = true;
  for (const auto& [key, info] : log.comms) {
    if (has_coll.count(key)) continue;
    HangRankState s = rank_state(key.first, info);
    out.ranks.push_back(std::move(s));
  }
  for (const auto& [key, rec] : last) {
    CommInfo info = Resolve(log, *rec);
    if (info.rank < 0) {
      out.notes.push_back(path + ":" + std::to_string(rec->line) + ": no init line for comm " +
                          rec->comm_ptr + " of " + key.first.host + ":" +
                          std::to_string(key.first.pid) + "; rank unknown, ignored");
      out.partial = true;
      continue;
    }
    if (rec->nranks > 0) out.comm_size.emplace(info.comm_id, rec->nranks);
    HangRankState s = rank_state(key.first, info);
    s.last_enqueued = rec->op_count;
    s.pending_op = rec->op;
    out.ranks.push_back(std::move(s));
  }
  for (const WarnRecord& w : log.warns) {
    out.notes.push_back(path + ":" + std::to_string(w.line) + ": " + w.proc.host + ":" +
                        std::to_string(w.proc.pid) + " NCCL WARN " + w.msg);
  }
  if (log.bad_lines > 0) out.partial = true;
  return OkStatus();
}

std::unique_ptr<TraceImporter> NewNcclLogImporter() { return std::make_unique<NcclLogImporter>(); }

}  // namespace gpufleet::trace
