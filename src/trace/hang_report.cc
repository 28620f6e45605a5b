// Text and JSON renderings of a HangReport.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "trace/hang.h"
#include "trace/hang_inputs.h"

namespace gpufleet::trace {

// The job-wide rank of a state, or its rank in the comm when that is all we know.
int JobRank(const HangRankState& s) { return s.global_rank >= 0 ? s.global_rank : s.rank; }

std::string RankLabel(const HangRankState& s) {
  std::string out = "rank " + std::to_string(JobRank(s)) + " (" + std::string(VendorName(s.vendor));
  if (!s.version.empty()) out += " " + s.version;
  if (!s.host.empty()) out += ", " + s.host;
  if (s.pid >= 0) out += " pid " + std::to_string(s.pid);
  return out + ")";
}

std::string FormatHangText(const HangReport& r) {
  std::map<int, const HangRankState*> by_rank;
  for (const HangRankState& s : r.ranks) by_rank.emplace(JobRank(s), &s);
  std::string out = "Hang analysis: " + std::to_string(r.ranks.size()) + " rank state(s)";
  out += r.partial ? " (PARTIAL: some input was skipped)\n" : "\n";
  if (r.root_ranks.empty()) {
    out += r.chain.empty() ? "No laggard found: no rank waits on another.\n"
                           : "No root: every waited-on rank waits too (see notes).\n";
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
    o["rank"] = JobRank(s);
    o["rank_in_comm"] = s.rank;
    o["version"] = s.version;
    o["comm_anonymous"] = s.comm_anonymous;
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
