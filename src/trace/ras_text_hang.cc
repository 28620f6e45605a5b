// NCCL RAS plain-text output (`ncclras`, `echo verbose status | nc localhost
// 28028`) as hang input. Blocks handled (NCCL docs, troubleshooting/ras.rst):
//   #0-0 (27a079b828ff1a75) MISMATCH
//     Communicator ranks have different collective operation counts
//     26 ranks have launched up to operation 6650
//     6 ranks have launched up to operation 6649
//     Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210
//   #0-0 (cf264af53edbe986) INCOMPLETE
//     Missing communicator data from 1 rank
//     The missing rank: 21
// RAS lists the ranks of the smaller groups only; when exactly one group is
// unlisted, its ranks are the remaining ones of the communicator (the group
// sizes add up to the communicator size).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.h"
#include "trace/hang_inputs.h"
#include "trace/import_util.h"

namespace gpufleet::trace {
namespace {

struct RasRankLine {
  int rank = -1;
  int64_t pid = -1;
  std::string host;
};

struct CountGroup {
  int64_t n = 0;
  int64_t op = -1;
  std::vector<RasRankLine> ranks;
};

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::string_view w : SplitString(s, ' ')) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

void Flush(const std::string& path, const std::string& comm, std::vector<CountGroup>& groups,
           HangInput& out) {
  if (comm.empty() || groups.empty()) {
    groups.clear();
    return;
  }
  int64_t total = 0;
  std::set<int> listed;
  int unlisted = 0;
  for (const CountGroup& g : groups) {
    total += g.n;
    for (const RasRankLine& r : g.ranks) listed.insert(r.rank);
    unlisted += g.ranks.empty() ? 1 : 0;
  }
  if (total <= 0 || total > (1 << 24)) {
    groups.clear();
    return;
  }
  out.comm_size[comm] = static_cast<int>(total);
  for (const CountGroup& g : groups) {
    std::vector<RasRankLine> members = g.ranks;
    if (members.empty() && unlisted == 1 && g.n == total - static_cast<int64_t>(listed.size())) {
      for (int r = 0; r < total; ++r) {
        if (!listed.count(r)) members.push_back({r, -1, ""});
      }
    }
    for (const RasRankLine& r : members) {
      HangRankState s;
      s.rank = r.rank;
      s.host = r.host;
      s.pid = r.pid;
      s.vendor = Vendor::kNvidia;
      s.comm = comm;
      s.source = path;
      s.last_enqueued = g.op;
      s.pending_op = "collective";
      out.ranks.push_back(std::move(s));
    }
  }
  groups.clear();
}

}  // namespace

bool LooksLikeRasText(std::string_view head) {
  return head.find("Communicator ranks have different") != std::string_view::npos ||
         head.find("Missing communicator data") != std::string_view::npos ||
         head.find("Job summary\n===") != std::string_view::npos ||
         head.find("Communicators...") != std::string_view::npos ||
         head.find("RAS Monitor Mode") != std::string_view::npos;
}

Status RasTextHangInput(const std::string& path, std::string_view text, HangInput& out) {
  LineReader reader(text);
  std::string_view raw;
  std::string comm;
  bool counts = false;
  std::vector<CountGroup> groups;
  bool any = false;
  while (reader.Next(raw)) {
    std::string_view line = TrimWhitespace(raw);
    std::vector<std::string_view> w = Words(line);
    if (w.empty()) continue;
    // "#0-0 (27a079b828ff1a75) MISMATCH"
    if (w[0].size() > 1 && w[0][0] == '#' && w.size() >= 3 && w[1].size() > 2 &&
        w[1].front() == '(' && w[1].back() == ')') {
      Flush(path, comm, groups, out);
      comm = "0x" + std::string(w[1].substr(1, w[1].size() - 2));
      counts = false;
      any = true;
      continue;
    }
    if (line == "----") {
      Flush(path, comm, groups, out);
      comm.clear();
      counts = false;
      continue;
    }
    if (StartsWith(line, "Communicator ranks have different collective operation counts")) {
      counts = true;
      continue;
    }
    // "26 ranks have launched up to operation 6650" / "1 rank has launched ..."
    if (counts && w.size() >= 7 && w[3] == "launched" && w[5] == "to") {
      auto n = ParseInt64(w[0]);
      auto op = ParseInt64(w.back());
      if (n && op && *n > 0 && *op >= 0) groups.push_back({*n, *op, {}});
      continue;
    }
    // "Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210"
    if (w.size() >= 12 && w[0] == "Rank" && w[2] == "--" && w[7] == "process") {
      auto r = ParseInt64(w[1]);
      auto pid = ParseInt64(w[8]);
      if (counts && !groups.empty() && r && *r >= 0 && *r < (1 << 24)) {
        groups.back().ranks.push_back({static_cast<int>(*r), pid.value_or(-1), std::string(w[11])});
      }
      continue;
    }
    // "The missing rank: 21" / "The missing ranks: 21, 22"
    if (StartsWith(line, "The missing rank")) {
      any = true;
      size_t colon = line.find(':');
      if (colon == std::string_view::npos || comm.empty()) continue;
      for (std::string_view t : SplitString(line.substr(colon + 1), ',')) {
        auto r = ParseInt64(TrimWhitespace(t));
        if (r && *r >= 0 && *r < (1 << 24)) out.reported_missing.emplace_back(comm, *r);
      }
      continue;
    }
    // "Process 3487984 on node 172.16.64.213 managing GPU 5" under INCOMPLETE/DEAD,
    // and monitor lines "[ts] PEER_DEAD: Process ...".
    if (line.find("Process ") != std::string_view::npos &&
        line.find(" on node ") != std::string_view::npos) {
      out.notes.push_back(path + ":" + std::to_string(reader.line_no()) +
                          ": RAS: " + std::string(line));
      any = true;
    }
  }
  Flush(path, comm, groups, out);
  if (!any && out.ranks.empty()) {
    return InvalidArgumentError(path + ": no RAS communicator errors (MISMATCH/INCOMPLETE) found");
  }
  return OkStatus();
}

}  // namespace gpufleet::trace
