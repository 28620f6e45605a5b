#include "trace/hang.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "trace/hang_inputs.h"

namespace gpufleet::trace {
namespace {

// A 4096-rank job with half the ranks behind would list millions of edges;
// the roots and the first edges tell the story.
constexpr size_t kMaxEdges = 10000;

// Pickle protocol 2+ starts with 0x80 <protocol>.
bool LooksLikePickle(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
         static_cast<unsigned char>(head[1]) <= 5;
}

// Merges states of the same (comm, rank) seen in several files.
void MergeState(std::map<std::pair<std::string, int>, HangRankState>& states, HangRankState s) {
  auto key = std::make_pair(s.comm, s.rank);
  auto it = states.find(key);
  if (it == states.end()) {
    states.emplace(std::move(key), std::move(s));
    return;
  }
  HangRankState& m = it->second;
  if (s.last_enqueued > m.last_enqueued) {
    m.last_enqueued = s.last_enqueued;
    if (!s.completion_known || !m.completion_known) m.pending_op = s.pending_op;
  }
  m.last_started = std::max(m.last_started, s.last_started);
  if (s.completion_known) {
    if (!m.completion_known || s.last_completed > m.last_completed) m.pending_op = s.pending_op;
    m.last_completed = std::max(m.last_completed, s.last_completed);
    m.completion_known = true;
  }
  if (m.vendor == Vendor::kUnknown) m.vendor = s.vendor;
  if (m.global_rank < 0) m.global_rank = s.global_rank;
  if (m.version.empty()) m.version = s.version;
  if (s.pending_peer >= 0 && s.last_enqueued >= m.last_enqueued) m.pending_peer = s.pending_peer;
  for (const auto& [peer, n] : s.sends_to) m.sends_to[peer] = std::max(m.sends_to[peer], n);
  for (const auto& [peer, n] : s.recvs_from) m.recvs_from[peer] = std::max(m.recvs_from[peer], n);
  if (m.host.empty()) m.host = s.host;
  if (m.pid < 0) m.pid = s.pid;
  if (m.source.find(s.source) == std::string::npos) m.source += "," + s.source;
}

// The sequence number a rank is stuck on, or -1 when it waits on nothing.
int64_t PendingSeq(const HangRankState& s) {
  if (s.completion_known) {
    return s.last_enqueued > s.last_completed ? s.last_completed + 1 : -1;
  }
  return s.last_enqueued;
}

Status ReadOne(const std::string& path, HangInput& in) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  std::string_view head = std::string_view(text).substr(0, 4096);
  if (LooksLikePickle(head)) {
    return InvalidArgumentError(
        path +
        ": a pickled flight-recorder dump; convert it with torch to JSON first (e.g. "
        "dump with torch._C._distributed_c10d._dump_nccl_trace_json(), or load it with "
        "pickle and json.dump it)");
  }
  if (LooksLikeFlightRecorderJson(head)) return FlightRecorderHangInput(path, text, in);
  if (LooksLikeNcclJson(head)) return NcclJsonHangInput(path, text, in);
  if (LooksLikeNcclLog(head)) return NcclLogHangInput(path, text, in);
  if (LooksLikeRasText(head)) return RasTextHangInput(path, text, in);
  return InvalidArgumentError(path +
                              ": not an NCCL/RCCL log, NCCL RAS text or JSON, Inspector JSON, or a "
                              "flight-recorder JSON dump");
}

// Init lines before NCCL 2.12 carry no commId: such a comm ("anon:...") is
// renamed to the one named comm of the same size that lacks all its ranks
// (e.g. the NCCL 2.21 half of a mixed job); with none it stays as is; with
// several, or when two processes claim one rank of it, we cannot tell.
void ResolveAnonymousComms(HangInput& in) {
  std::map<std::string, std::set<int>> present;  // comm -> ranks seen
  std::map<std::string, std::set<std::pair<std::string, int64_t>>> owners;
  for (const HangRankState& s : in.ranks) {
    present[s.comm].insert(s.rank);
    owners[s.comm].insert({s.host, s.pid});
  }
  std::map<std::string, std::string> rename;
  for (const auto& [comm, ranks] : present) {
    if (comm.rfind("anon:", 0) != 0) continue;
    auto size = in.comm_size.find(comm);
    if (size == in.comm_size.end()) continue;
    std::vector<std::string> fits;
    for (const auto& [named, n] : in.comm_size) {
      if (named.rfind("anon:", 0) == 0 || named.rfind("pg:", 0) == 0 || n != size->second) continue;
      bool free = true;
      for (int r : ranks) free = free && !present[named].count(r);
      if (free) fits.push_back(named);
    }
    if (fits.size() == 1) {
      rename[comm] = fits[0];
      in.notes.push_back("comm " + comm + " (init lines without commId, NCCL <= 2.11) matched to " +
                         fits[0] + ": same size, none of its ranks present there");
    } else if (fits.size() > 1) {
      in.notes.push_back("comm " + comm + ": " + std::to_string(fits.size()) +
                         " named comms of its size could be it; cannot tell which, kept apart");
    }
  }
  std::map<std::pair<std::string, int>, std::pair<std::string, int64_t>> claimed;
  for (HangRankState& s : in.ranks) {
    if (auto it = rename.find(s.comm); it != rename.end()) s.comm = it->second;
    if (!s.comm_anonymous) continue;
    auto [slot, fresh] = claimed.try_emplace({s.comm, s.rank}, std::make_pair(s.host, s.pid));
    if (!fresh && slot->second != std::make_pair(s.host, s.pid)) {
      in.notes.push_back("comm " + s.comm + ": rank " + std::to_string(s.rank) +
                         " claimed by two processes (comms without commId cannot be told "
                         "apart); " + s.host + ":" + std::to_string(s.pid) + " kept apart");
      s.comm += "@" + s.host + ":" + std::to_string(s.pid);
      in.partial = true;
    }
  }
}

// A process without a job-wide rank gets its rank in the largest communicator
// of all inputs (the world), when it is in one of that size; a process seen
// only in smaller (split) communicators keeps -1.
void AssignWorldRanks(HangInput& in) {
  int world = 0;
  for (const auto& [comm, n] : in.comm_size) world = std::max(world, n);
  std::map<std::pair<std::string, int64_t>, int> world_rank;
  for (const HangRankState& s : in.ranks) {
    auto size = in.comm_size.find(s.comm);
    if (s.pid >= 0 && size != in.comm_size.end() && size->second == world) {
      world_rank.emplace(std::make_pair(s.host, s.pid), s.rank);
    }
  }
  for (HangRankState& s : in.ranks) {
    if (s.global_rank >= 0 || s.pid < 0) continue;
    auto it = world_rank.find({s.host, s.pid});
    if (it != world_rank.end()) s.global_rank = it->second;
  }
}

// Edges of one comm: collectives by sequence number, p2p by per-pair counts.
struct CommAnalysis {
  const std::string& comm;
  const std::vector<const HangRankState*>& members;
  const std::set<int>& missing;  // ranks in comm without data
  bool job_ranks;                // ranks in this comm are job-wide ranks (world or listed members)
  const std::set<int>& with_state;  // job ranks that have a state on some comm
  HangReport& r;
  std::set<int>& waiters;
  std::set<int>& waited;
  std::vector<std::string>& deferred_notes;  // dropped when their ranks wait elsewhere

  int JobOfMissing(int rank_in_comm) const { return job_ranks ? rank_in_comm : -1; }

  std::string NoData(int rank_in_comm) const {
    int job = JobOfMissing(rank_in_comm);
    if (job < 0) {
      return "rank " + std::to_string(rank_in_comm) +
             " of this comm (job rank unknown) sent no data (missing dump/log or unresponsive)";
    }
    if (with_state.count(job)) {
      return "rank " + std::to_string(job) +
             " has no state on this comm (its data shows it never reached it)";
    }
    return "rank " + std::to_string(job) + " sent no data (missing dump/log or unresponsive)";
  }

  void Edge(const HangRankState& w, int waited_job, int64_t seq, std::string why) {
    r.chain.push_back({JobRank(w), waited_job, comm, seq, w.pending_op, std::move(why)});
    waiters.insert(JobRank(w));
    if (waited_job >= 0) waited.insert(waited_job);
  }

  const HangRankState* Member(int rank) const {
    for (const HangRankState* s : members) {
      if (s->rank == rank) return s;
    }
    return nullptr;
  }

  void P2p(const HangRankState& w) {
    bool send = w.pending_op == "Send";
    int64_t mine = send ? w.sends_to.count(w.pending_peer) ? w.sends_to.at(w.pending_peer) : 0
                        : w.recvs_from.count(w.pending_peer) ? w.recvs_from.at(w.pending_peer) : 0;
    const HangRankState* peer = Member(w.pending_peer);
    if (peer == nullptr) {
      if (missing.count(w.pending_peer)) {
        Edge(w, JobOfMissing(w.pending_peer), mine, "peer " + NoData(w.pending_peer));
      }
      return;
    }
    const auto& theirs_map = send ? peer->recvs_from : peer->sends_to;
    auto it = theirs_map.find(w.rank);
    int64_t theirs = it == theirs_map.end() ? 0 : it->second;
    if (theirs >= mine) return;  // the partner op is posted: not waiting on the peer to post it
    Edge(w, JobRank(*peer), mine,
         "peer posted " + std::to_string(theirs) + " matching " + (send ? "Recv" : "Send") +
             " op(s) < " + std::to_string(mine) + "; its last op is " +
             (peer->pending_op.empty() ? std::string("none") : peer->pending_op));
  }

  void Run() {
    bool any_pending = false;
    std::map<int64_t, std::set<std::string>> ops_at_seq;  // for mismatch detection
    for (const HangRankState* w : members) {
      if (w->pending_peer >= 0 && (w->pending_op == "Send" || w->pending_op == "Recv")) {
        any_pending = true;
        P2p(*w);
        continue;
      }
      int64_t seq = PendingSeq(*w);
      if (seq < 0) continue;
      any_pending = true;
      if (!w->completion_known && !w->pending_op.empty()) ops_at_seq[seq].insert(w->pending_op);
      bool waits_on_present = false;
      for (const HangRankState* l : members) {
        if (l == w || l->last_enqueued >= seq) continue;
        waits_on_present = true;
        Edge(*w, JobRank(*l), seq,
             "rank " + std::to_string(JobRank(*l)) + " last enqueued seq " +
                 std::to_string(l->last_enqueued) + " < " + std::to_string(seq));
      }
      if (!waits_on_present) {
        for (int m : missing) Edge(*w, JobOfMissing(m), seq, NoData(m));
      }
    }
    for (const auto& [seq, ops] : ops_at_seq) {
      if (ops.size() < 2) continue;
      std::string list;
      for (const std::string& op : ops) list += (list.empty() ? "" : " vs ") + op;
      r.notes.push_back("comm " + comm + ": ranks disagree on the op at seq " +
                        std::to_string(seq) + " (" + list +
                        "): mismatched call order, the job deadlocks; cannot tell which rank is "
                        "wrong");
    }
    if (any_pending && missing.empty() && members.size() > 1) {
      int64_t first = PendingSeq(*members.front());
      bool all_equal = true;
      for (const HangRankState* s : members) all_equal = all_equal && PendingSeq(*s) == first;
      if (all_equal) {
        deferred_notes.push_back("comm " + comm + ": all " + std::to_string(members.size()) +
                                 " ranks stopped at seq " + std::to_string(first) +
                                 "; nobody is behind, so the hang is inside the collective "
                                 "(network, device) or outside the logged communicators");
      }
    }
  }
};

}  // namespace

StatusOr<HangReport> AnalyzeHang(const std::vector<std::string>& paths) {
  if (paths.empty()) return InvalidArgumentError("hang: no input files");
  HangInput in;
  for (const std::string& p : paths) RETURN_IF_ERROR(ReadOne(p, in));
  ResolveAnonymousComms(in);
  AssignWorldRanks(in);

  HangReport r;
  r.partial = in.partial;
  r.notes = std::move(in.notes);
  std::map<std::pair<std::string, int>, HangRankState> states;
  for (HangRankState& s : in.ranks) MergeState(states, std::move(s));

  std::map<std::string, std::vector<const HangRankState*>> by_comm;
  for (const auto& [key, s] : states) by_comm[key.first].push_back(&s);
  for (const auto& [comm, n] : in.comm_size) by_comm.try_emplace(comm);
  for (const auto& [comm, rank] : in.reported_missing) by_comm.try_emplace(comm);

  std::set<int> waiters, waited, missing, with_state;
  std::vector<std::string> deferred;
  int world = 0;
  for (const auto& [comm, n] : in.comm_size) world = std::max(world, n);
  for (const auto& [key, s] : states) with_state.insert(JobRank(s));
  for (const auto& [comm, members] : by_comm) {
    std::set<int> present;
    for (const HangRankState* s : members) present.insert(s->rank);
    std::set<int> comm_missing;
    auto listed = in.comm_members.find(comm);
    if (listed != in.comm_members.end()) {
      for (int rank : listed->second) {
        if (!present.count(rank)) comm_missing.insert(rank);
      }
    } else if (auto n = in.comm_size.find(comm); n != in.comm_size.end()) {
      for (int rank = 0; rank < n->second; ++rank) {
        if (!present.count(rank)) comm_missing.insert(rank);
      }
    }
    for (const auto& [c, rank] : in.reported_missing) {
      if (c == comm && !present.count(rank)) comm_missing.insert(rank);
    }
    auto size = in.comm_size.find(comm);
    // Ranks in a comm are job ranks for the world comm, listed members and
    // process groups, and for sources that know no other rank (RAS).
    bool any_global = false;
    for (const HangRankState* s : members) any_global = any_global || s->global_rank >= 0;
    bool job_ranks = listed != in.comm_members.end() ||
                     (size != in.comm_size.end() && size->second == world) ||
                     comm.rfind("pg:", 0) == 0 || !any_global;
    CommAnalysis a{comm, members, comm_missing, job_ranks, with_state, r, waiters, waited,
                   deferred};
    for (int m : comm_missing) {
      int job = a.JobOfMissing(m);
      bool reported = std::find(in.reported_missing.begin(), in.reported_missing.end(),
                                std::make_pair(comm, m)) != in.reported_missing.end();
      if (job >= 0 && (reported || !with_state.count(job))) missing.insert(job);
    }
    a.Run();
    if (!comm_missing.empty()) {
      std::string list;
      for (int m : comm_missing) list += (list.empty() ? "" : ",") + std::to_string(m);
      r.notes.push_back("comm " + comm + ": no data from rank(s) " + list +
                        (a.JobOfMissing(*comm_missing.begin()) < 0
                             ? " (ranks in this sub-communicator; job rank unknown)"
                             : ""));
    }
  }
  for (int w : waited) {
    if (!waiters.count(w)) r.root_ranks.push_back(w);
  }
  if (r.root_ranks.empty() && !r.chain.empty()) {
    std::string list;
    for (int w : waited) list += (list.empty() ? "" : ",") + std::to_string(w);
    r.notes.push_back("cannot tell a root: ranks " + list +
                      " wait on each other (a cycle: mismatched collective or send/recv order)");
  }
  // "All stopped at one seq" only means something when nobody waits elsewhere:
  // NCCL logs show enqueues, so ranks past a completed op look the same.
  if (waiters.empty()) r.notes.insert(r.notes.end(), deferred.begin(), deferred.end());
  if (r.chain.size() > kMaxEdges) {
    r.notes.push_back("wait chain truncated to the first " + std::to_string(kMaxEdges) + " of " +
                      std::to_string(r.chain.size()) + " edges");
    r.chain.resize(kMaxEdges);
  }
  r.missing_ranks.assign(missing.begin(), missing.end());
  for (auto& [key, s] : states) r.ranks.push_back(std::move(s));
  std::sort(r.ranks.begin(), r.ranks.end(), [](const HangRankState& a, const HangRankState& b) {
    return JobRank(a) != JobRank(b) ? JobRank(a) < JobRank(b) : a.comm < b.comm;
  });
  return r;
}

}  // namespace gpufleet::trace
