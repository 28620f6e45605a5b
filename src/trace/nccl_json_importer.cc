// NCCL RAS (status JSON, monitor events) and Inspector JSONL importer, and
// their hang input.
//
// RAS status (`ncclras -f json`, NCCL >= 2.28.7):
//   {"nccl_version": "2.29.1", "communicators": [{"hash": "0xae94423cfbb2ef4a", "size": 2,
//    "ranks": [{"rank": 0, "host": "172.16.64.245", "pid": 1524344, "cuda_dev": 0,
//    "collective_counts": {"AllReduce": 0, ...}}], "missing_ranks": [{"rank": 1, ...}]}]}
// RAS monitor event (`ncclras -m -f json`, NCCL >= 2.29):
//   {"timestamp": "2025-12-19 13:07:07", "group": "LIFECYCLE", "event": "PEER_DEAD",
//    "peer": {"host": "172.16.64.245", "pid": 1524345, ...}}
// Inspector plugin, one object per line:
//   {"header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8}, "metadata": {"hostname":
//    ..., "pid": ..., "dump_timestamp_us": ...}, "coll_perf": {"coll": "AllReduce",
//    "coll_sn": 1407, "coll_msg_size_bytes": ..., "coll_exec_time_us": 61974,
//    "event_trace_ts": {"coll_start_ts": ..., "kernel_events": [{"kernel_start_ts": ...}]}}}
// Inspector times are gettimeofday microseconds (epoch).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/file_util.h"
#include "core/strings.h"
#include "trace/hang_inputs.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/json_util.h"

namespace gpufleet::trace {
namespace {

constexpr int64_t kMaxRank = 1 << 24;

std::optional<int> RankField(const Json& j, std::string_view key) {
  auto r = JsonInt(j, key);
  if (!r || *r < 0 || *r >= kMaxRank) return std::nullopt;
  return static_cast<int>(*r);
}

// Sum of per-type counts, and the first type (in a fixed order) as the op
// name; the per-type map is kept for mismatch detection.
struct RasRank {
  int rank = -1;
  std::string host;
  int64_t pid = -1;
  std::map<std::string, int64_t> counts;
  int64_t total = 0;
};

struct Parsed {
  std::vector<JsonChunk> chunks;
  std::vector<Json> objects;
  std::vector<size_t> offsets;
  bool truncated = false;
  std::vector<std::string> bad;  // "file:line: what"
};

Parsed ParseStream(const std::string& path, std::string_view text) {
  Parsed p;
  p.chunks = SplitJsonObjects(text, &p.truncated);
  for (const JsonChunk& c : p.chunks) {
    auto j = ParseJson(c.text);
    if (!j || !j->is_object()) {
      p.bad.push_back(path + ":" + std::to_string(LineOfOffset(text, c.offset)) +
                      ": invalid JSON object at offset " + std::to_string(c.offset));
      continue;
    }
    p.objects.push_back(std::move(*j));
    p.offsets.push_back(c.offset);
  }
  if (p.truncated) {
    p.bad.push_back(path + ": input ends inside a JSON object (truncated)");
  }
  return p;
}

bool IsRasStatus(const Json& j) { return JsonArray(j, "communicators") != nullptr; }
bool IsRasEvent(const Json& j) {
  return JsonString(j, "event").has_value() && JsonObject(j, "peer") != nullptr;
}
bool IsInspector(const Json& j) {
  return JsonObject(j, "header") != nullptr &&
         (JsonObject(j, "coll_perf") != nullptr || JsonObject(j, "p2p_perf") != nullptr);
}

std::vector<RasRank> RasRanks(const Json& comm) {
  std::vector<RasRank> out;
  const Json* ranks = JsonArray(comm, "ranks");
  if (ranks == nullptr) return out;
  for (const Json& r : *ranks) {
    RasRank rr;
    auto rank = RankField(r, "rank");
    if (!rank) continue;
    rr.rank = *rank;
    rr.host = JsonString(r, "host").value_or("");
    rr.pid = JsonInt(r, "pid").value_or(-1);
    if (const Json* counts = JsonObject(r, "collective_counts")) {
      for (auto it = counts->begin(); it != counts->end(); ++it) {
        if (it.value().is_number_integer() && it.value().get<int64_t>() >= 0 &&
            it.value().get<int64_t>() < (int64_t{1} << 50)) {
          rr.counts[it.key()] = it.value().get<int64_t>();
          rr.total += it.value().get<int64_t>();
        }
      }
    }
    out.push_back(std::move(rr));
  }
  return out;
}

// Per type, the counts differ between ranks: that type is where the ranks
// diverged (RAS "MISMATCH ... have launched up to operation N").
std::string MismatchedType(const std::vector<RasRank>& ranks) {
  std::map<std::string, std::pair<int64_t, int64_t>> range;
  for (const RasRank& r : ranks) {
    for (const auto& [type, n] : r.counts) {
      auto [it, ins] = range.try_emplace(type, n, n);
      if (!ins) {
        it->second.first = std::min(it->second.first, n);
        it->second.second = std::max(it->second.second, n);
      }
    }
  }
  for (const auto& [type, mm] : range) {
    if (mm.first != mm.second) return type;
  }
  return "";
}

class NcclJsonImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "nccl_json"; }
  bool Sniff(std::string_view, std::string_view head) const override {
    return LooksLikeNcclJson(head);
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    Parsed p = ParseStream(path, text);
    if (p.objects.empty()) {
      return InvalidArgumentError(path + ": no JSON objects" +
                                  (p.bad.empty() ? std::string() : " (" + p.bad[0] + ")"));
    }
    SourceFile sf;
    sf.path = path;
    sf.format = "nccl_json";
    sf.alignment = "epoch (Inspector gettimeofday us; RAS carries no event times)";
    sf.partial = p.truncated;
    sf.epoch_clock = true;
    sf.clock_source = "Inspector gettimeofday us";
    uint32_t file = b.AddFile(std::move(sf));
    for (auto& m : p.bad) NoteSkipped(b.timeline().files[file], m);
    for (size_t i = 0; i < p.objects.size(); ++i) {
      const Json& j = p.objects[i];
      std::string where = path + ":" + std::to_string(LineOfOffset(text, p.offsets[i]));
      if (IsInspector(j)) {
        ImportInspector(j, where, file, b);
      } else if (IsRasStatus(j)) {
        ImportRasStatus(j, file, b);
      } else if (IsRasEvent(j)) {
        NoteError(b.timeline().files[file],
                  where + ": RAS " + JsonString(j, "event").value_or("") + " " +
                      JsonObject(j, "peer")->dump(-1, ' ', false, Json::error_handler_t::replace));
      } else {
        NoteSkipped(b.timeline().files[file], where + ": not a RAS or Inspector record");
      }
    }
    if (progress != nullptr) progress->Advance(text.size(), text.size());
    return OkStatus();
  }

 private:
  static void ImportInspector(const Json& j, const std::string& where, uint32_t file,
                              TimelineBuilder& b) {
    const Json& header = *JsonObject(j, "header");
    const Json* meta = JsonObject(j, "metadata");
    bool p2p = JsonObject(j, "coll_perf") == nullptr;
    const Json& perf = p2p ? *JsonObject(j, "p2p_perf") : *JsonObject(j, "coll_perf");
    auto op = JsonString(perf, p2p ? "p2p" : "coll");
    if (!op) {
      NoteSkipped(b.timeline().files[file], where + ": Inspector record without coll/p2p name");
      return;
    }
    std::string host = meta ? JsonString(*meta, "hostname").value_or("") : "";
    int64_t pid = meta ? JsonInt(*meta, "pid").value_or(-1) : -1;
    uint32_t proc = b.Process(file, host, pid);
    trace::Process& pr = b.timeline().processes[proc];
    pr.vendor = Vendor::kNvidia;  // the Inspector is an NCCL profiler plugin
    if (auto r = RankField(header, "rank")) pr.rank = *r;
    if (auto n = RankField(header, "n_ranks")) pr.world_size = *n;

    Collective c;
    c.op = b.Intern(*op);
    c.comm = b.Intern(JsonString(header, "id").value_or(""));
    c.seq = JsonInt(perf, p2p ? "p2p_sn" : "coll_sn").value_or(-1);
    c.bytes = JsonInt(perf, p2p ? "p2p_msg_size_bytes" : "coll_msg_size_bytes").value_or(-1);
    c.nranks = pr.world_size;
    c.rank = pr.rank;
    Event e;
    e.kind = EventKind::kCommKernel;
    e.name = c.op;
    e.bytes = c.bytes;
    // Prefer the kernel span from the event trace; else end at the dump
    // time with the measured execution time (an approximation).
    int64_t start_us = -1, end_us = -1;
    if (const Json* ts = JsonObject(perf, "event_trace_ts")) {
      if (const Json* kernels = JsonArray(*ts, "kernel_events")) {
        for (const Json& k : *kernels) {
          auto ks = JsonInt(k, "kernel_start_ts");
          auto ke = JsonInt(k, "kernel_stop_ts");
          if (ks && ke && *ke >= *ks) {
            start_us = start_us < 0 ? *ks : std::min(start_us, *ks);
            end_us = std::max(end_us, *ke);
          }
        }
      }
      if (start_us < 0) {
        start_us = JsonInt(*ts, "coll_start_ts").value_or(-1);
        end_us = JsonInt(*ts, "coll_stop_ts").value_or(-1);
      }
    }
    if (start_us < 0 || end_us < start_us) {
      // value_or rather than optionals: g++ 12 -O2 warns falsely on them here.
      int64_t dump = meta ? JsonInt(*meta, "dump_timestamp_us").value_or(-1) : -1;
      int64_t exec = JsonInt(perf, p2p ? "p2p_exec_time_us" : "coll_exec_time_us").value_or(-1);
      if (dump < 0 || exec < 0 || exec > dump) {
        NoteSkipped(b.timeline().files[file], where + ": Inspector record without times");
        return;
      }
      end_us = dump;
      start_us = dump - exec;
    }
    if (start_us > INT64_MAX / 1000 || end_us > INT64_MAX / 1000 || start_us < 0) {
      NoteSkipped(b.timeline().files[file], where + ": Inspector timestamp out of range");
      return;
    }
    e.start_ns = start_us * 1000;
    e.dur_ns = (end_us - start_us) * 1000;
    e.collective = b.AddCollective(c);
    e.track = b.DeviceQueue(proc, -1, 0);
    b.AddEvent(e);
  }

  static void ImportRasStatus(const Json& j, uint32_t file, TimelineBuilder& b) {
    for (const Json& comm : *JsonArray(j, "communicators")) {
      std::string hash = JsonString(comm, "hash").value_or("");
      for (const RasRank& r : RasRanks(comm)) {
        uint32_t proc = b.Process(file, r.host, r.pid);
        b.timeline().processes[proc].rank = r.rank;
        b.timeline().processes[proc].vendor = Vendor::kNvidia;
        if (auto n = RankField(comm, "size")) b.timeline().processes[proc].world_size = *n;
      }
      if (const Json* missing = JsonArray(comm, "missing_ranks")) {
        for (const Json& m : *missing) {
          NoteError(b.timeline().files[file],
                    "RAS: comm " + hash + " rank " +
                        std::to_string(JsonInt(m, "rank").value_or(-1)) + " missing (" +
                        JsonString(m, "host").value_or("?") + " pid " +
                        std::to_string(JsonInt(m, "pid").value_or(-1)) + ")");
        }
      }
    }
  }
};

}  // namespace

bool LooksLikeNcclJson(std::string_view head) {
  head = TrimWhitespace(head);
  if (head.empty() || head[0] != '{') return false;
  return head.find("\"communicators\"") != std::string_view::npos ||
         head.find("\"coll_perf\"") != std::string_view::npos ||
         head.find("\"p2p_perf\"") != std::string_view::npos ||
         head.find("\"inspector_output_format_version\"") != std::string_view::npos ||
         (head.find("\"event\"") != std::string_view::npos &&
          head.find("\"peer\"") != std::string_view::npos);
}

Status NcclJsonHangInput(const std::string& path, std::string_view text, HangInput& out) {
  Parsed p = ParseStream(path, text);
  if (p.objects.empty()) return InvalidArgumentError(path + ": no JSON objects");
  for (auto& m : p.bad) out.notes.push_back(m);
  if (!p.bad.empty()) out.partial = true;
  // Inspector: the highest completed coll_sn per (comm, rank).
  std::map<std::pair<std::string, int>, HangRankState> inspector;
  for (const Json& j : p.objects) {
    if (IsRasStatus(j)) {
      for (const Json& comm : *JsonArray(j, "communicators")) {
        std::string hash = JsonString(comm, "hash").value_or("?");
        std::vector<RasRank> ranks = RasRanks(comm);
        std::string type = MismatchedType(ranks);
        if (auto n = RankField(comm, "size"); n && *n > 0) out.comm_size[hash] = *n;
        for (const RasRank& r : ranks) {
          HangRankState s;
          s.rank = r.rank;
          s.host = r.host;
          s.pid = r.pid;
          s.vendor = Vendor::kNvidia;
          s.comm = hash;
          s.source = path;
          // RAS counts launched collectives; the last one launched is the
          // pending one (no completion data).
          s.last_enqueued = r.total > 0 ? r.total : -1;
          s.pending_op = type;
          out.ranks.push_back(std::move(s));
        }
        if (const Json* missing = JsonArray(comm, "missing_ranks")) {
          for (const Json& m : *missing) {
            auto rank = RankField(m, "rank");
            if (!rank) continue;
            out.reported_missing.emplace_back(hash, *rank);
            const Json* st = JsonObject(m, "status");
            bool dead = st && st->contains("considered_dead") &&
                        (*st)["considered_dead"].is_boolean() &&
                        (*st)["considered_dead"].get<bool>();
            out.notes.push_back(path + ": RAS: comm " + hash + " rank " + std::to_string(*rank) +
                                " on " + JsonString(m, "host").value_or("?") + " pid " +
                                std::to_string(JsonInt(m, "pid").value_or(-1)) +
                                (dead ? " considered dead" : " unresponsive"));
          }
        }
      }
    } else if (IsRasEvent(j)) {
      const Json& peer = *JsonObject(j, "peer");
      out.notes.push_back(path + ": RAS " + JsonString(j, "event").value_or("") + " at " +
                          JsonString(j, "timestamp").value_or("?") + ": " +
                          JsonString(peer, "host").value_or("?") + " pid " +
                          std::to_string(JsonInt(peer, "pid").value_or(-1)));
    } else if (IsInspector(j)) {
      const Json& header = *JsonObject(j, "header");
      const Json* perf = JsonObject(j, "coll_perf");
      auto rank = RankField(header, "rank");
      if (perf == nullptr || !rank) continue;
      std::string comm = JsonString(header, "id").value_or("?");
      auto sn = JsonInt(*perf, "coll_sn");
      if (!sn) continue;
      HangRankState& s = inspector[{comm, *rank}];
      s.rank = *rank;
      s.comm = comm;
      s.source = path;
      s.vendor = Vendor::kNvidia;
      s.completion_known = true;
      if (const Json* meta = JsonObject(j, "metadata")) {
        s.host = JsonString(*meta, "hostname").value_or("");
        s.pid = JsonInt(*meta, "pid").value_or(-1);
      }
      s.last_enqueued = std::max(s.last_enqueued, *sn);
      s.last_completed = std::max(s.last_completed, *sn);
      if (auto n = RankField(header, "n_ranks")) out.comm_size[comm] = *n;
    }
  }
  for (auto& [key, s] : inspector) out.ranks.push_back(std::move(s));
  return OkStatus();
}

std::unique_ptr<TraceImporter> NewNcclJsonImporter() {
  return std::make_unique<NcclJsonImporter>();
}

}  // namespace gpufleet::trace
