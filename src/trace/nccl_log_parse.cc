#include "trace/nccl_log_parse.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/duration.h"
#include "core/strings.h"
#include "trace/import_util.h"

namespace gpufleet::trace::nccl_log {
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

std::optional<int64_t> Num(std::string_view s) { return ParseInt64(s); }

// "2025-03-01 10:00:05.123" -> epoch ns (as if UTC).
std::optional<int64_t> ParseTimestamp(std::string_view s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  auto y = Num(s.substr(0, 4)), mo = Num(s.substr(5, 2)), d = Num(s.substr(8, 2));
  auto h = Num(s.substr(11, 2)), mi = Num(s.substr(14, 2)), se = Num(s.substr(17, 2));
  // A year before the epoch (or "-999", which reads as a number) is no log
  // timestamp and would overflow the ns arithmetic below.
  if (!y || !mo || !d || !h || !mi || !se || *y < 1970 || *mo < 1 || *mo > 12 || *d < 1 ||
      *d > 31 || *h < 0 || *h > 23 || *mi < 0 || *mi > 59 || *se < 0 || *se > 60) {
    return std::nullopt;
  }
  int64_t ns = ((DaysFromCivil(*y, *mo, *d) * 24 + *h) * 60 + *mi) * 60 + *se;
  ns *= 1000000000;
  if (s.size() > 20 && s[19] == '.') {
    int64_t scale = 100000000;
    for (char c : s.substr(20)) {
      if (c < '0' || c > '9' || scale == 0) break;
      ns += (c - '0') * scale;
      scale /= 10;
    }
  }
  return ns;
}

// Strips launcher prefixes glued before the NCCL prefix: MPI "[1,3]<stdout>:",
// torchrun "[rank3]:" / "[default3]:". Returns the rank they name, or -1.
int StripLauncherPrefix(std::string_view& line) {
  int rank = -1;
  while (line.size() > 2 && line[0] == '[') {
    size_t close = line.find(']');
    if (close == std::string_view::npos) break;
    std::string_view in = line.substr(1, close - 1);
    std::optional<int64_t> r;
    if (size_t comma = in.find(','); comma != std::string_view::npos) {
      if (Num(in.substr(0, comma))) r = Num(in.substr(comma + 1));  // [job,rank]
    } else if (StartsWith(in, "rank")) {
      r = Num(in.substr(4));
    } else if (StartsWith(in, "default")) {
      r = Num(in.substr(7));
    }
    if (!r || *r < 0 || *r >= (1 << 24)) break;
    rank = static_cast<int>(*r);
    line = line.substr(close + 1);
    if (StartsWith(line, "<stdout>") || StartsWith(line, "<stderr>")) line = line.substr(8);
    if (!line.empty() && line[0] == ':') line = line.substr(1);
  }
  return rank;
}

// "host:pid:tid" (host may itself hold ':' only before the last two).
bool ParseId(std::string_view id, LinePrefix& out) {
  size_t c2 = id.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  size_t c1 = id.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) return false;
  auto pid = Num(id.substr(c1 + 1, c2 - c1 - 1));
  auto tid = Num(id.substr(c2 + 1));
  if (!pid || !tid || *pid < 0 || *tid < 0) return false;
  if (ParseInt64(id.substr(0, c1))) return false;  // "10:00:05" is a time, not host:pid:tid
  out.host = id.substr(0, c1);
  out.pid = *pid;
  out.tid = *tid;
  return true;
}

// Reads the NCCL prefix of a line whose launcher prefix is already gone.
// Returns false when the line has no " NCCL INFO "/" NCCL WARN " at all, and
// sets `readable` false when it has one but no host:pid:tid before it.
bool ParsePrefix(std::string_view line, LinePrefix& out, bool& readable) {
  readable = true;
  size_t info = line.find(" NCCL INFO ");
  size_t warn = line.find(" NCCL WARN ");
  size_t at = std::min(info, warn);
  if (at == std::string_view::npos) return false;
  out.warn = warn < info;
  out.msg = TrimWhitespace(line.substr(at + 11));
  std::string_view head = TrimWhitespace(line.substr(0, at));
  if (!head.empty() && head[0] == '[') {
    size_t close = head.find(']');
    if (close != std::string_view::npos) {
      if (auto ts = ParseTimestamp(head.substr(1, close - 1))) {
        out.ts_ns = *ts;
        head = TrimWhitespace(head.substr(close + 1));
      }
    }
  }
  std::vector<std::string_view> toks;
  for (std::string_view t : SplitString(head, ' ')) {
    if (!t.empty()) toks.push_back(t);
  }
  for (size_t i = 0; i < toks.size(); ++i) {
    if (!ParseId(toks[i], out)) continue;
    if (i + 1 < toks.size() && toks[i + 1].size() > 2 && toks[i + 1].front() == '[' &&
        toks[i + 1].back() == ']') {
      if (auto dev = Num(toks[i + 1].substr(1, toks[i + 1].size() - 2));
          dev && *dev >= 0 && *dev < 4096) {
        out.device = static_cast<int>(*dev);
      }
    }
    return true;
  }
  readable = false;
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
    case 10:
    case 11:
      return 1;  // int8, uint8, fp8 e4m3 / e5m2
    case 6:
    case 9:
      return 2;  // float16, bfloat16
    case 2:
    case 3:
    case 7:
      return 4;  // int32, uint32, float32
    case 4:
    case 5:
    case 8:
      return 8;  // int64, uint64, float64
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

// The number after `key` in `s` ("SeqNum=" -> 73), nullopt when absent.
std::optional<int64_t> NumberAfter(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t b = at + key.size(), e = b;
  while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
  return Num(s.substr(b, e - b));
}

// PyTorch ProcessGroupNCCL watchdog lines; false when the line is not one.
bool ParseTorchTimeout(std::string_view line, TorchTimeout& t) {
  bool watchdog =
      line.find("Watchdog caught collective operation timeout") != std::string_view::npos;
  bool summary = line.find("Timeout at NCCL work: ") != std::string_view::npos ||
                 line.find("detected by watchdog at work: ") != std::string_view::npos;
  if (!watchdog && !summary) return false;
  auto rank = NumberAfter(line, "[Rank ");
  if (!rank) rank = NumberAfter(line, " Rank ");
  if (rank && *rank < (1 << 24)) t.rank = static_cast<int>(*rank);
  if (auto pg = NumberAfter(line, "[PG ID ")) {
    t.pg = std::to_string(*pg);
  } else if (auto pg2 = NumberAfter(line, "[PG ")) {
    t.pg = std::to_string(*pg2);
  }
  if (watchdog) {
    t.seq = NumberAfter(line, "SeqNum=").value_or(-1);
    size_t op = line.find("OpType=");
    if (op != std::string_view::npos) {
      std::string_view rest = line.substr(op + 7);
      t.op = std::string(rest.substr(0, std::min(rest.find(','), rest.find(')'))));
    }
  } else {
    t.seq = NumberAfter(line, "Timeout at NCCL work: ")
                .value_or(NumberAfter(line, "detected by watchdog at work: ").value_or(-1));
    t.last_enqueued = NumberAfter(line, "last enqueued NCCL work: ").value_or(-1);
    t.last_completed = NumberAfter(line, "last completed NCCL work: ").value_or(-1);
  }
  return t.rank >= 0 && t.seq >= 0;
}

// Init-style lines: "[ncclCommX ]comm 0x.. rank R nranks N ... - Init COMPLETE".
bool IsInitLike(std::string_view msg) {
  if (msg.find(" nranks ") == std::string_view::npos) return false;
  if (!StartsWith(msg, "comm ") && !StartsWith(msg, "ncclComm")) return false;
  return msg.find("- Init COMPLETE") != std::string_view::npos ||
         msg.find("- Init START") != std::string_view::npos ||
         msg.find("- Abort COMPLETE") != std::string_view::npos ||
         msg.find("- Destroy COMPLETE") != std::string_view::npos || StartsWith(msg, "ncclComm");
}

class Parser {
 public:
  Parser(const std::string& path, NcclLog& log) : path_(path), log_(log) {}

  void Line(int64_t line_no, std::string_view line) {
    int launcher = StripLauncherPrefix(line);
    TorchTimeout t;
    if (ParseTorchTimeout(line, t)) {
      t.line = line_no;
      t.launcher_rank = launcher;
      log_.timeouts.push_back(std::move(t));
      return;
    }
    std::string_view bare = TrimWhitespace(line);
    if (StartsWith(bare, "NCCL version ") || StartsWith(bare, "RCCL version ")) {
      log_.file_version = std::string(bare.substr(13));
      return;
    }
    LinePrefix p;
    bool readable = true;
    if (!ParsePrefix(line, p, readable)) return;  // application output interleaved with NCCL's
    ++log_.nccl_lines;
    if (!readable) return Bad(line_no, "NCCL line without a host:pid:tid prefix");
    if (p.ts_ns >= 0) log_.any_timestamp = true;
    ProcKey proc{std::string(p.host), p.pid};
    if (launcher >= 0) log_.launcher_rank[proc] = launcher;
    if (p.warn) {
      log_.warns.push_back({line_no, proc, p.tid, p.ts_ns, std::string(p.msg)});
      return;
    }
    std::string_view msg = p.msg;
    if (StartsWith(msg, "NCCL version") || StartsWith(msg, "RCCL version")) {
      bool amd = StartsWith(msg, "RCCL") || msg.find("+hip") != std::string_view::npos ||
                 msg.find("rocm") != std::string_view::npos;
      log_.vendor[proc] = amd ? Vendor::kAmd : Vendor::kNvidia;
      std::string_view v = TrimWhitespace(msg.substr(12));
      if (StartsWith(v, ": ")) v = v.substr(2);
      log_.version[proc] = std::string(v.substr(0, v.find(' ')));
      return;
    }
    if (IsInitLike(msg)) return Init(line_no, proc, msg);
    size_t colon = msg.find(": opCount ");
    if (colon != std::string_view::npos && IsCollOp(msg.substr(0, colon))) {
      return Coll(line_no, p, proc, msg.substr(0, colon), msg.substr(colon + 2));
    }
  }

 private:
  void Bad(int64_t line_no, const std::string& why) {
    ++log_.bad_lines;
    log_.bad.push_back(path_ + ":" + std::to_string(line_no) + ": " + why);
  }

  void Init(int64_t line_no, const ProcKey& proc, std::string_view msg) {
    auto kv = KeyValues(msg);
    auto rank = Num(kv["rank"]);
    auto nranks = Num(kv["nranks"]);
    if (kv.count("comm") == 0 || !rank || !nranks || *rank < 0 || *nranks <= 0 ||
        *rank >= *nranks || *nranks > (1 << 24)) {
      return Bad(line_no, "init line without comm/rank/nranks");
    }
    bool init = msg.find("- Abort COMPLETE") == std::string_view::npos &&
                msg.find("- Destroy COMPLETE") == std::string_view::npos;
    auto [it, fresh] = log_.comms.try_emplace({proc, std::string(kv["comm"])});
    CommInfo& info = it->second;
    if (!init) {
      if (msg.find("- Abort COMPLETE") != std::string_view::npos) info.abort_line = line_no;
      if (fresh) info.complete = true;  // it was initialized before the log starts
      if (!fresh) return;  // the init line said it all; Destroy/Abort repeat it without commId
    }
    if (fresh) {
      info.line = line_no;
      // Per device too: one process may drive several GPUs (one comm each).
      info.ordinal =
          ++ordinals_[{proc, std::string(kv["cudaDev"]) + "/" + std::to_string(*nranks)}];
    }
    info.rank = static_cast<int>(*rank);
    info.nranks = static_cast<int>(*nranks);
    if (kv.count("commId")) info.comm_id = std::string(kv["commId"]);
    std::string_view first = msg.substr(0, msg.find(' '));
    info.form = std::string(first);
    if (first == "comm") {
      info.form = kv.count("commId") ? (kv.count("nvmlDev") ? "comm+nvmlDev+commId" : "comm+commId")
                                     : "comm";
      if (kv.count("localSize")) info.form += "+localSize";
    }
    if (msg.find("- Init COMPLETE") != std::string_view::npos) info.complete = true;
  }

  void Coll(int64_t line_no, const LinePrefix& p, const ProcKey& proc, std::string_view op,
            std::string_view rest) {
    auto kv = KeyValues(rest);
    auto op_count = ParseHex(kv["opCount"]);
    if (!op_count || kv.count("comm") == 0 || *op_count > (uint64_t{1} << 62)) {
      return Bad(line_no, std::string(op) + " line without a valid opCount/comm");
    }
    CollRecord c;
    c.line = line_no;
    c.proc = proc;
    c.tid = p.tid;
    c.device = p.device;
    c.op = std::string(op);
    c.op_count = static_cast<int64_t>(*op_count);
    c.comm_ptr = std::string(kv["comm"]);
    c.ts_ns = p.ts_ns;
    auto count = Num(kv["count"]);
    auto dt = Num(kv["datatype"]);
    if (count && dt && *count >= 0 && DatatypeBytes(*dt) > 0 && *count < (int64_t{1} << 56)) {
      c.bytes = *count * DatatypeBytes(*dt);
    }
    if (auto n = Num(kv["nranks"]); n && *n > 0 && *n < (1 << 24)) c.nranks = static_cast<int>(*n);
    if (auto r = Num(kv["root"]); r && *r >= 0 && *r < (1 << 24)) c.root = static_cast<int>(*r);
    if (kv.count("globalrank")) {
      log_.vendor.emplace(proc, Vendor::kAmd);  // RCCL-only suffix
      if (auto g = Num(kv["globalrank"]); g && *g >= 0 && *g < (1 << 24)) {
        c.global_rank = static_cast<int>(*g);
      }
    }
    log_.colls.push_back(std::move(c));
  }

  const std::string& path_;
  NcclLog& log_;
  std::map<std::pair<ProcKey, std::string>, int> ordinals_;
};

}  // namespace

NcclLog ParseNcclLog(const std::string& path, std::string_view text) {
  NcclLog log;
  Parser parser(path, log);
  LineReader reader(text);
  std::string_view line;
  while (reader.Next(line)) parser.Line(reader.line_no(), line);
  return log;
}

std::string InitFamily(const CommInfo& info) {
  if (info.form == "comm") return "NCCL <= 2.11 (comm ... busId, no commId)";
  if (info.form == "comm+commId") return "NCCL 2.12-2.13 (comm ... busId commId, no nvmlDev)";
  if (info.form == "comm+commId+localSize" || info.form == "comm+nvmlDev+commId+localSize") {
    return "RCCL (comm ... commId localSize used)";
  }
  if (info.form == "comm+nvmlDev+commId") return "NCCL 2.14-2.18 / RCCL (comm ... nvmlDev commId)";
  return "NCCL 2.19+ (" + info.form + " comm ... commId)";
}

bool LooksLikeNcclLogText(std::string_view head) {
  LineReader reader(head);
  std::string_view line;
  int checked = 0;
  while (reader.Next(line) && checked < 200) {
    StripLauncherPrefix(line);
    LinePrefix p;
    bool readable = true;
    TorchTimeout t;
    // An unreadable NCCL line still makes it an NCCL log: the importer counts it.
    if (ParsePrefix(line, p, readable) || ParseTorchTimeout(line, t)) return true;
    ++checked;
  }
  return false;
}

}  // namespace gpufleet::trace::nccl_log
