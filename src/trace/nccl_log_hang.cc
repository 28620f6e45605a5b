// What an NCCL/RCCL NCCL_DEBUG=INFO log (and the PyTorch watchdog lines
// interleaved with it) tells hang analysis.
//
// Per (process, communicator): the last opCount enqueued, the op of the last
// record in line order (a Send/Recv names its peer) and the p2p ops posted per
// peer. The job-wide rank of a process is RCCL's "globalrank" or a launcher
// prefix ("[1,3]<stdout>:", "[rank3]:"); failing both, AnalyzeHang takes its
// rank in the largest communicator of all inputs. Communicators without a commId (NCCL <= 2.11) get
// the stand-in id "anon:nranks=N#k" (k-th init of that size in the process),
// which AnalyzeHang matches across files. PyTorch watchdog timeouts become
// states on "pg:<id>" with completion known (the timed-out work is pending).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "trace/hang_inputs.h"
#include "trace/nccl_log_parse.h"

namespace gpufleet::trace {
namespace {

using nccl_log::CollRecord;
using nccl_log::CommInfo;
using nccl_log::NcclLog;
using nccl_log::ProcKey;

std::string CommIdOf(const CommInfo& info) {
  if (!info.comm_id.empty()) return info.comm_id;
  return "anon:nranks=" + std::to_string(info.nranks) + "#" + std::to_string(info.ordinal);
}

struct ProcFacts {
  int global_rank = -1;   // from RCCL's globalrank or a launcher prefix
  int world_nranks = -1;  // nranks of the largest comm it is in
};

std::map<ProcKey, ProcFacts> Facts(const NcclLog& log) {
  std::map<ProcKey, ProcFacts> facts;
  for (const auto& [key, info] : log.comms) {
    ProcFacts& f = facts[key.first];
    f.world_nranks = std::max(f.world_nranks, info.nranks);
  }
  for (const auto& [proc, rank] : log.launcher_rank) facts[proc].global_rank = rank;
  for (const CollRecord& c : log.colls) {
    if (c.global_rank >= 0) facts[c.proc].global_rank = c.global_rank;
  }
  return facts;
}

struct CommRecords {
  const CollRecord* last_line = nullptr;  // last record in line order
  int64_t max_op_count = -1;
  std::map<int, int64_t> sends_to, recvs_from;
};

}  // namespace

Status NcclLogHangInput(const std::string& path, std::string_view text, HangInput& out) {
  NcclLog log = nccl_log::ParseNcclLog(path, text);
  if (log.colls.empty() && log.comms.empty() && log.timeouts.empty()) {
    return InvalidArgumentError(path +
                                ": no NCCL init or COLL lines (set NCCL_DEBUG=INFO and "
                                "NCCL_DEBUG_SUBSYS=INIT,COLL)");
  }
  std::map<ProcKey, ProcFacts> facts = Facts(log);
  std::map<std::pair<ProcKey, std::string>, CommRecords> recs;
  for (const CollRecord& c : log.colls) {
    CommRecords& r = recs[{c.proc, c.comm_ptr}];
    r.last_line = &c;
    r.max_op_count = std::max(r.max_op_count, c.op_count);
    if (c.op == "Send" && c.root >= 0) ++r.sends_to[c.root];
    if (c.op == "Recv" && c.root >= 0) ++r.recvs_from[c.root];
  }
  auto state_of = [&](const ProcKey& proc, const CommInfo& info) {
    HangRankState s;
    s.rank = info.rank;
    s.global_rank = facts[proc].global_rank;
    s.host = proc.host;
    s.pid = proc.pid;
    auto v = log.vendor.find(proc);
    s.vendor = v == log.vendor.end() ? Vendor::kUnknown : v->second;
    auto ver = log.version.find(proc);
    if (ver != log.version.end()) s.version = ver->second;
    s.comm = CommIdOf(info);
    s.comm_anonymous = info.comm_id.empty();
    s.source = path;
    return s;
  };
  auto where = [&](int64_t line) { return path + ":" + std::to_string(line); };
  for (const auto& [key, info] : log.comms) {
    HangRankState s = state_of(key.first, info);
    out.comm_size[s.comm] = info.nranks;
    std::string who = "rank " + std::to_string(info.rank) + " of comm " + s.comm + " (" +
                      key.first.host + ":" + std::to_string(key.first.pid) + ")";
    if (!info.complete) {
      out.notes.push_back(where(info.line) + ": " + who +
                          " logged Init START but no Init COMPLETE: stuck in communicator init");
    }
    if (info.abort_line > 0) {
      out.notes.push_back(where(info.abort_line) + ": " + who + " aborted the communicator");
    }
    auto r = recs.find(key);
    if (r != recs.end()) {
      const CollRecord& last = *r->second.last_line;
      s.last_enqueued = r->second.max_op_count;
      s.pending_op = last.op;
      if ((last.op == "Send" || last.op == "Recv") && last.root >= 0) s.pending_peer = last.root;
      s.sends_to = r->second.sends_to;
      s.recvs_from = r->second.recvs_from;
      recs.erase(r);
    }
    // A rank that initialized a communicator but logged no collective on it
    // has enqueued nothing (-1).
    out.ranks.push_back(std::move(s));
  }
  for (const auto& [key, r] : recs) {
    out.notes.push_back(where(r.last_line->line) + ": no init line for comm " + key.second +
                        " of " + key.first.host + ":" + std::to_string(key.first.pid) +
                        "; rank unknown, ignored");
    out.partial = true;
  }
  // PyTorch watchdog lines: the process is found by its launcher prefix.
  std::map<int, ProcKey> by_launcher;
  int world = -1;
  for (const auto& [proc, rank] : log.launcher_rank) by_launcher[rank] = proc;
  for (const auto& [proc, f] : facts) world = std::max(world, f.world_nranks);
  // PyTorch 2.4 prints the watchdog line with "[Rank R]" only and the PG on
  // the next line about the same work: borrow it.
  // Failing that, the one PG that other ranks name for the same seq.
  std::map<std::pair<int, int64_t>, std::string> pg_of;  // (launcher or PG rank, seq) -> pg
  std::map<int64_t, std::string> pg_of_seq;               // "" when two PGs share the seq
  for (const nccl_log::TorchTimeout& t : log.timeouts) {
    if (t.pg.empty()) continue;
    pg_of[{t.launcher_rank >= 0 ? t.launcher_rank : t.rank, t.seq}] = t.pg;
    auto [it, fresh] = pg_of_seq.emplace(t.seq, t.pg);
    if (!fresh && it->second != t.pg) it->second.clear();
  }
  for (nccl_log::TorchTimeout t : log.timeouts) {
    if (t.pg.empty()) {
      auto it = pg_of.find({t.launcher_rank >= 0 ? t.launcher_rank : t.rank, t.seq});
      auto by_seq = pg_of_seq.find(t.seq);
      if (it != pg_of.end()) {
        t.pg = it->second;
      } else if (by_seq != pg_of_seq.end()) {
        t.pg = by_seq->second;
      }
    }
    HangRankState s;
    s.rank = t.rank;
    s.global_rank = t.launcher_rank >= 0 ? t.launcher_rank : (t.pg == "0" ? t.rank : -1);
    auto p = by_launcher.find(t.launcher_rank);
    if (p != by_launcher.end()) {
      s.host = p->second.host;
      s.pid = p->second.pid;
      auto v = log.vendor.find(p->second);
      if (v != log.vendor.end()) s.vendor = v->second;
    }
    s.comm = "pg:" + (t.pg.empty() ? std::string("unknown") : t.pg);
    s.source = path;
    s.completion_known = true;
    s.last_completed = t.last_completed >= 0 ? t.last_completed : t.seq - 1;
    s.last_enqueued = std::max(t.seq, t.last_enqueued);
    s.last_started = t.seq;
    s.pending_op = t.op;
    if (t.pg == "0" && world > 0) out.comm_size.emplace(s.comm, world);  // default PG = world
    out.notes.push_back(where(t.line) + ": PyTorch watchdog: rank " + std::to_string(t.rank) +
                        " timed out in " + (t.op.empty() ? std::string("work") : t.op) +
                        " seq " + std::to_string(t.seq) + " on " + s.comm);
    out.ranks.push_back(std::move(s));
  }
  for (const nccl_log::WarnRecord& w : log.warns) {
    out.notes.push_back(where(w.line) + ": " + w.proc.host + ":" + std::to_string(w.proc.pid) +
                        " NCCL WARN " + w.msg);
  }
  if (log.bad_lines > 0) {
    out.partial = true;
    for (const std::string& b : log.bad) out.notes.push_back("unreadable: " + b);
  }
  return OkStatus();
}

}  // namespace gpufleet::trace
