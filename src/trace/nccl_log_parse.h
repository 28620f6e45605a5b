// NCCL / RCCL `NCCL_DEBUG=INFO` log lines, parsed once for the importer and
// for hang analysis (private to src/trace).
//
// Every version family of the line formats listed in docs/trace.md is read:
//   init   NCCL <= 2.11   "comm %p rank %d nranks %d cudaDev %d busId %lx - Init COMPLETE"
//          NCCL 2.12-2.13 "... busId %lx commId 0x%llx - Init COMPLETE" (no nvmlDev)
//          NCCL 2.14-2.18 "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx"
//          NCCL >= 2.19   "ncclCommInitRank comm ..." / "ncclCommSplit comm ... parent %p color
//                         %d key %d commId ..." / "%s comm ..." (ncclCommInitRankConfig, ...)
//          RCCL           "... commId 0x%llx localSize %d used %ld bytes - Init COMPLETE"
//          and the same fields ending "- Init START", "- Abort COMPLETE", "- Destroy COMPLETE".
//   coll   "%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d root %d comm %p
//          [nranks=%d] stream %p" (+ RCCL " task %d globalrank %d"); Send/Recv: root = peer.
//   warn   "<prefix> file.cc:NNN NCCL WARN ..."
//   torch  "[Rank R] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=S, OpType=OP,
//          ...)" and "[Rank R] Timeout at NCCL work: S, last enqueued NCCL work: E, last
//          completed NCCL work: C." / "[PG i Rank R] Exception (either an error or timeout)
//          detected by watchdog at work: S, last enqueued ...", with the "[PG ID i PG GUID
//          g(name) Rank R]" / "[PG i Rank R]" prefixes of PyTorch >= 2.3.
// Line prefixes before the NCCL "host:pid:tid [dev]" are stripped and kept:
// "[%F %T(.%f)] " timestamps, MPI "[job,rank]<stdout>:", torchrun "[rankN]:" /
// "[defaultN]:", pdsh "host: ". A line that names NCCL INFO/WARN but cannot be
// read is counted in `bad` with "file:line: why" (never silently dropped).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/timeline.h"

namespace gpufleet::trace::nccl_log {

struct ProcKey {
  std::string host;
  int64_t pid = -1;
  bool operator<(const ProcKey& o) const { return host != o.host ? host < o.host : pid < o.pid; }
  bool operator==(const ProcKey& o) const { return host == o.host && pid == o.pid; }
};

// What an init-style line says about one (process, comm pointer).
struct CommInfo {
  std::string comm_id;    // "0x..." commId when logged, else "" (NCCL <= 2.11)
  int rank = -1;          // rank inside this communicator
  int nranks = -1;
  int ordinal = 0;        // 1-based order of init lines of this size by this process and device
  std::string form;       // "ncclCommInitRank", "ncclCommSplit", "comm" (before 2.19), ...
  bool complete = false;  // "Init COMPLETE" seen (else only "Init START")
  int64_t abort_line = 0;  // "- Abort COMPLETE" line, 0 when none
  int64_t line = 0;
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
  int root = -1;         // the peer for Send/Recv
  int global_rank = -1;  // RCCL's suffix
  int64_t ts_ns = -1;
};

struct WarnRecord {
  int64_t line;
  ProcKey proc;
  int64_t tid;
  int64_t ts_ns;
  std::string msg;
};

// A PyTorch ProcessGroupNCCL watchdog line.
struct TorchTimeout {
  int64_t line = 0;
  int rank = -1;            // "[Rank R]": the rank in that process group
  int launcher_rank = -1;   // from a "[rankN]:" style prefix, -1 when none
  std::string pg;           // process-group id ("0"), "" when the version does not print it
  int64_t seq = -1;         // work that timed out
  int64_t last_enqueued = -1, last_completed = -1;  // -1 when not printed
  std::string op;           // "ALLREDUCE"
};

struct NcclLog {
  std::map<ProcKey, Vendor> vendor;
  std::map<ProcKey, std::string> version;       // "2.21.5+cuda12.4"
  std::map<ProcKey, int> launcher_rank;         // from line prefixes
  std::map<std::pair<ProcKey, std::string>, CommInfo> comms;  // (proc, comm pointer)
  std::vector<CollRecord> colls;
  std::vector<WarnRecord> warns;
  std::vector<TorchTimeout> timeouts;
  std::string file_version;  // a bare "NCCL version X" line (old NCCL prints it without prefix)
  int64_t nccl_lines = 0;
  int64_t bad_lines = 0;
  std::vector<std::string> bad;  // "file:line: why", all of them
  bool any_timestamp = false;
};

// Parses a whole log. Never fails: unreadable NCCL lines are counted in `bad`.
NcclLog ParseNcclLog(const std::string& path, std::string_view text);

// The version family docs/trace.md names for an init form and version string,
// e.g. "NCCL 2.19+ (ncclCommInitRank comm ... commId)".
std::string InitFamily(const CommInfo& info);

// True when the first lines of `head` hold an NCCL INFO/WARN line (readable or
// not) or a PyTorch watchdog timeout line.
bool LooksLikeNcclLogText(std::string_view head);

}  // namespace gpufleet::trace::nccl_log
