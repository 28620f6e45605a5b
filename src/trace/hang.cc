#include "trace/hang.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>

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

std::string RankLabel(const HangRankState& s) {
  std::string out = "rank " + std::to_string(s.rank) + " (" + std::string(VendorName(s.vendor));
  if (!s.host.empty()) out += ", " + s.host;
  if (s.pid >= 0) out += " pid " + std::to_string(s.pid);
  return out + ")";
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

}  // namespace

StatusOr<HangReport> AnalyzeHang(const std::vector<std::string>& paths) {
  if (paths.empty()) return InvalidArgumentError("hang: no input files");
  HangInput in;
  for (const std::string& p : paths) RETURN_IF_ERROR(ReadOne(p, in));

  HangReport r;
  r.partial = in.partial;
  r.notes = std::move(in.notes);
  std::map<std::pair<std::string, int>, HangRankState> states;
  for (HangRankState& s : in.ranks) MergeState(states, std::move(s));

  std::map<std::string, std::vector<const HangRankState*>> by_comm;
  for (const auto& [key, s] : states) by_comm[key.first].push_back(&s);
  for (const auto& [comm, n] : in.comm_size) by_comm.try_emplace(comm);
  for (const auto& [comm, rank] : in.reported_missing) by_comm.try_emplace(comm);

  std::set<int> waiters, waited, missing;
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
    missing.insert(comm_missing.begin(), comm_missing.end());

    bool any_pending = false;
    for (const HangRankState* w : members) {
      int64_t seq = PendingSeq(*w);
      if (seq < 0) continue;
      any_pending = true;
      bool waits_on_present = false;
      for (const HangRankState* l : members) {
        if (l == w || l->last_enqueued >= seq) continue;
        waits_on_present = true;
        r.chain.push_back({w->rank, l->rank, comm, seq, w->pending_op,
                           "rank " + std::to_string(l->rank) + " last enqueued seq " +
                               std::to_string(l->last_enqueued) + " < " + std::to_string(seq)});
        waiters.insert(w->rank);
        waited.insert(l->rank);
      }
      if (!waits_on_present) {
        for (int m : comm_missing) {
          r.chain.push_back({w->rank, m, comm, seq, w->pending_op,
                             "rank " + std::to_string(m) +
                                 " sent no data (missing dump/log "
                                 "or unresponsive)"});
          waiters.insert(w->rank);
          waited.insert(m);
        }
      }
    }
    if (any_pending && comm_missing.empty()) {
      bool all_equal = true;
      int64_t first = -2;
      for (const HangRankState* s : members) {
        int64_t seq = PendingSeq(*s);
        if (first == -2) first = seq;
        all_equal = all_equal && seq == first;
      }
      if (all_equal && members.size() > 1) {
        r.notes.push_back("comm " + comm + ": all " + std::to_string(members.size()) +
                          " ranks stopped at seq " + std::to_string(first) +
                          "; nobody is behind, so the hang is inside the collective "
                          "(network, device) or outside the logged communicators");
      }
    }
    if (!comm_missing.empty()) {
      std::string list;
      for (int m : comm_missing) list += (list.empty() ? "" : ",") + std::to_string(m);
      r.notes.push_back("comm " + comm + ": no data from rank(s) " + list);
    }
  }
  for (int w : waited) {
    if (!waiters.count(w)) r.root_ranks.push_back(w);
  }
  if (r.chain.size() > kMaxEdges) {
    r.notes.push_back("wait chain truncated to the first " + std::to_string(kMaxEdges) + " of " +
                      std::to_string(r.chain.size()) + " edges");
    r.chain.resize(kMaxEdges);
  }
  r.missing_ranks.assign(missing.begin(), missing.end());
  for (auto& [key, s] : states) r.ranks.push_back(std::move(s));
  std::sort(r.ranks.begin(), r.ranks.end(), [](const HangRankState& a, const HangRankState& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.comm < b.comm;
  });
  return r;
}

std::string FormatHangText(const HangReport& r) {
  std::map<int, const HangRankState*> by_rank;
  for (const HangRankState& s : r.ranks) by_rank.emplace(s.rank, &s);
  std::string out = "Hang analysis: " + std::to_string(r.ranks.size()) + " rank state(s)";
  out += r.partial ? " (PARTIAL: some input was skipped)\n" : "\n";
  if (r.root_ranks.empty()) {
    out += "No laggard found: no rank waits on another.\n";
  } else {
    out += "Root (everyone waits on):";
    for (int root : r.root_ranks) {
      auto it = by_rank.find(root);
      out += " " + (it != by_rank.end() ? RankLabel(*it->second)
                                        : "rank " + std::to_string(root) + " (no data)");
    }
    out += "\n";
  }
  if (!r.chain.empty()) {
    out += "Wait chain:\n";
    for (const HangEdge& e : r.chain) {
      out += "  rank " + std::to_string(e.waiter_rank) + " waits on rank " +
             std::to_string(e.waited_rank) + " in " + e.op + " seq " + std::to_string(e.seq) +
             " on comm " + e.comm + ": " + e.why + "\n";
    }
  }
  if (!r.missing_ranks.empty()) {
    out += "Missing ranks (no data):";
    for (int m : r.missing_ranks) out += " " + std::to_string(m);
    out += "\n";
  }
  out += "Ranks:\n";
  for (const HangRankState& s : r.ranks) {
    out += "  " + RankLabel(s) + " comm " + s.comm + ": enqueued " +
           std::to_string(s.last_enqueued) + ", started " + std::to_string(s.last_started) +
           ", completed " +
           (s.completion_known ? std::to_string(s.last_completed) : std::string("?")) +
           (s.pending_op.empty() ? "" : ", pending " + s.pending_op) + " [" + s.source + "]\n";
  }
  for (const std::string& n : r.notes) out += "Note: " + n + "\n";
  return out;
}

std::string HangReportJson(const HangReport& r) {
  nlohmann::json j;
  j["partial"] = r.partial;
  j["root_ranks"] = r.root_ranks;
  j["missing_ranks"] = r.missing_ranks;
  j["notes"] = r.notes;
  j["ranks"] = nlohmann::json::array();
  for (const HangRankState& s : r.ranks) {
    nlohmann::json o;
    o["rank"] = s.rank;
    o["host"] = s.host;
    o["pid"] = s.pid;
    o["vendor"] = std::string(VendorName(s.vendor));
    o["comm"] = s.comm;
    o["source"] = s.source;
    o["last_enqueued"] = s.last_enqueued;
    o["last_started"] = s.last_started;
    if (s.completion_known) {
      o["last_completed"] = s.last_completed;
    } else {
      o["last_completed"] = nullptr;
    }
    o["pending_op"] = s.pending_op;
    j["ranks"].push_back(std::move(o));
  }
  j["chain"] = nlohmann::json::array();
  for (const HangEdge& e : r.chain) {
    j["chain"].push_back({{"waiter_rank", e.waiter_rank},
                          {"waited_rank", e.waited_rank},
                          {"comm", e.comm},
                          {"seq", e.seq},
                          {"op", e.op},
                          {"why", e.why}});
  }
  // Replacing invalid UTF-8 keeps a hostile log from throwing here.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpufleet::trace
