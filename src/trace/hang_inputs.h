// What each communication-log format contributes to hang analysis (private
// to src/trace). Parsers in the importer files fill a HangInput; hang.cc
// merges inputs from many files and computes the wait chain.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "trace/hang.h"

namespace gpufleet::trace {

struct HangInput {
  std::vector<HangRankState> ranks;                           // one per (comm, rank) seen
  std::map<std::string, int> comm_size;                       // comm -> nranks when known
  std::map<std::string, std::vector<int>> comm_members;       // comm -> expected ranks when listed
  std::vector<std::pair<std::string, int>> reported_missing;  // (comm, rank) a tool said is gone
  std::vector<std::string> notes;
  bool partial = false;
};

// Each returns InvalidArgument when `text` is not its format.
Status NcclLogHangInput(const std::string& path, std::string_view text, HangInput& out);
Status FlightRecorderHangInput(const std::string& path, std::string_view text, HangInput& out);
Status NcclJsonHangInput(const std::string& path, std::string_view text, HangInput& out);
Status RasTextHangInput(const std::string& path, std::string_view text, HangInput& out);

// The job-wide rank of a state (global_rank), else its rank in the comm.
int JobRank(const HangRankState& s);
// "rank 2 (amd 2.18.3+hip6.0, node3 pid 3307)".
std::string RankLabel(const HangRankState& s);

// Sniffers on the first bytes (shared with the importers' Sniff()).
bool LooksLikeNcclLog(std::string_view head);
bool LooksLikeFlightRecorderJson(std::string_view head);
bool LooksLikeNcclJson(std::string_view head);
bool LooksLikeRasText(std::string_view head);

}  // namespace gpufleet::trace
