// Hang diagnosis: the wait chain across ranks of a stuck job.
//
// Input files are sniffed one by one: NCCL/RCCL NCCL_DEBUG=INFO logs (COLL
// lines give per-communicator opCounts), NCCL RAS status JSON (collective
// counts per rank, missing ranks), NCCL Inspector JSONL (completed
// collectives) and PyTorch flight-recorder JSON dumps (enqueued / started /
// completed sequence numbers per process group). Files of different vendors
// and formats combine: a communicator is matched by its id (NCCL commId /
// RAS hash, or "pg:<name>" for flight-recorder process groups).
//
// Rule: on a communicator, a rank whose first incomplete collective is S
// (with no completion data: its last enqueued one) waits on every rank whose
// last enqueued sequence is below S, i.e. that has not joined S yet. Ranks
// that are waited on and wait on nobody are the roots (the laggards). When
// all present ranks are stuck on the same S and some expected ranks sent no
// data, those missing ranks are the suspects. A rank whose pending op is a
// Send/Recv to peer P waits on P when P posted fewer matching Recv/Send ops.
// Ranks that wait on each other with no root (a cycle) and ranks that disagree
// on the op at one sequence number are reported as such in `notes`.
//
// Thread-safe: pure functions over their arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct HangRankState {
  int rank = -1;         // rank inside `comm`
  int global_rank = -1;  // job-wide rank when known (RCCL globalrank, launcher prefix, world comm)
  std::string host;
  int64_t pid = -1;
  Vendor vendor = Vendor::kUnknown;
  std::string comm;
  std::string source;                                                  // file it came from
  int64_t last_enqueued = -1, last_started = -1, last_completed = -1;  // per-comm sequence numbers
  std::string pending_op;  // op of the first incomplete collective
  // True when the source reports completions (flight recorder, Inspector);
  // NCCL logs only show enqueues, so their last enqueued op counts as pending.
  bool completion_known = false;
  std::string version;          // producer version when the source names it ("2.21.5+cuda12.4")
  // True when `comm` is a stand-in: init lines before NCCL 2.12 carry no commId,
  // so the comm is matched across processes by size (see AnalyzeHang).
  bool comm_anonymous = false;
  int pending_peer = -1;  // peer (rank in comm) when the pending op is a Send/Recv
  std::map<int, int64_t> sends_to, recvs_from;  // p2p ops posted per peer (ranks in comm)
};

// Ranks in edges and roots are job-wide ranks where known (else the rank in the
// communicator); -1 for a rank whose job-wide rank cannot be told.
struct HangEdge {
  int waiter_rank = -1;
  int waited_rank = -1;
  std::string comm;
  int64_t seq = -1;
  std::string op;
  std::string why;
};

struct HangReport {
  std::vector<HangRankState> ranks;
  std::vector<HangEdge> chain;
  std::vector<int> root_ranks;     // the laggards everyone waits on
  std::vector<int> missing_ranks;  // expected (nranks) but with no data: itself a signal
  std::vector<std::string> notes;
  bool partial = false;
};

// Reads and sniffs each file. Errors: a path that cannot be read or whose
// format is not one of the above (the Status names it); no files.
StatusOr<HangReport> AnalyzeHang(const std::vector<std::string>& paths);

// Human-readable report: roots first, then the chain and per-rank state.
std::string FormatHangText(const HangReport& r);
// The same as a JSON object {ranks, chain, root_ranks, missing_ranks, notes, partial}.
std::string HangReportJson(const HangReport& r);

}  // namespace gpufleet::trace
