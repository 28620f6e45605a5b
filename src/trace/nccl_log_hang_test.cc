// Hang analysis on realistic NCCL/RCCL jobs. Each fixture is described in
// tests/data/trace/README.importers.md; the expected culprit of each test was
// worked out by hand from the fixture's lines, as the comments show.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "trace/hang.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

using EdgeSet = std::set<std::pair<int, int>>;

EdgeSet Edges(const HangReport& r) {
  EdgeSet out;
  for (const HangEdge& e : r.chain) out.emplace(e.waiter_rank, e.waited_rank);
  return out;
}

const HangEdge* EdgeOf(const HangReport& r, int waiter, int waited) {
  for (const HangEdge& e : r.chain) {
    if (e.waiter_rank == waiter && e.waited_rank == waited) return &e;
  }
  return nullptr;
}

bool AnyNote(const HangReport& r, const std::string& needle) {
  for (const std::string& n : r.notes) {
    if (n.find(needle) != std::string::npos) return true;
  }
  return false;
}

// The job: ranks 0-1 NCCL 2.21 (ncclCommInitRank lines), ranks 2-3
// RCCL 2.18 whose init lines start with "comm 0x..." (rank 2 with commId and
// localSize, no nvmlDev; rank 3 with nvmlDev). opCounts: ranks 0, 1, 3 reach
// 0x20, rank 2 stops at 0x1f. By hand: on commId 0x7e5a.. everyone pending on
// 0x20 waits on rank 2 (last 0x1f < 0x20); rank 2 pending on 0x1f waits on
// nobody. Culprit: rank 2 only; rank 3 is not blamed.
TEST(NcclLogHangTest, Rccl218InitLinesJoinTheNcclCommunicator) {
  auto r = AnalyzeHang(
      {TestData("nccl/hang_nvidia_node1.log"), TestData("nccl/hang_amd_rccl218_node3.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({2})) << FormatHangText(*r);
  EXPECT_TRUE(r->missing_ranks.empty());
  EXPECT_EQ(Edges(*r), (EdgeSet{{0, 2}, {1, 2}, {3, 2}}));
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.seq, 0x20);
    EXPECT_EQ(e.op, "AllReduce");
    EXPECT_EQ(e.comm, "0x7e5a5dd6e3b0c1f2");
  }
  EXPECT_FALSE(AnyNote(*r, "no init line")) << FormatHangText(*r);
  EXPECT_FALSE(r->partial);
  std::string text = FormatHangText(*r);
  EXPECT_NE(text.find("rank 2 (amd 2.18.3+hip6.0, node3 pid 3307)"), std::string::npos) << text;
}

// Same job, AMD ranks on an RCCL whose init lines have no commId (NCCL <= 2.11
// form). Their comm is matched to the NVIDIA ranks' 4-rank commId because that
// is the only 4-rank comm lacking ranks 2 and 3. Same culprit: rank 2.
TEST(NcclLogHangTest, InitLinesWithoutCommIdAreMatchedBySize) {
  auto r = AnalyzeHang({TestData("nccl/hang_nvidia_node1.log"),
                        TestData("nccl/hang_amd_rccl210_nocommid_node3.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({2})) << FormatHangText(*r);
  EXPECT_EQ(Edges(*r), (EdgeSet{{0, 2}, {1, 2}, {3, 2}}));
  EXPECT_TRUE(AnyNote(*r, "matched to 0x7e5a5dd6e3b0c1f2")) << FormatHangText(*r);
}

// World comm plus TP {0,1} {2,3} and DP {0,2} {1,3} split communicators.
// Last opCounts: TP 4/4/4/3, DP 4/4/3/3, world 2 everywhere. By hand:
// TP{2,3}: rank 2 pending 4 waits on rank 3 (last 3). DP{0,2}: rank 0 pending
// 4 waits on rank 2 (last 3). DP{1,3}: rank 1 pending 4 waits on rank 3.
// Chain 0 -> 2 -> 3 <- 1; the root is rank 3 (global ranks from the world comm).
TEST(NcclLogHangTest, SplitCommunicatorsChainToTheRankHoldingTheJob) {
  auto r = AnalyzeHang(
      {TestData("nccl/hang_multicomm_node1.log"), TestData("nccl/hang_multicomm_node2.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({3})) << FormatHangText(*r);
  EXPECT_EQ(Edges(*r), (EdgeSet{{2, 3}, {0, 2}, {1, 3}}));
  const HangEdge* tp = EdgeOf(*r, 2, 3);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->comm, "0x2b3c4d5e6f708192");
  EXPECT_EQ(tp->seq, 4);
  const HangEdge* dp = EdgeOf(*r, 0, 2);
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->comm, "0x3c4d5e6f708192a3");
  EXPECT_TRUE(r->missing_ranks.empty());
  // Ranks equal on the world comm are not reported as "hang inside the collective".
  EXPECT_FALSE(AnyNote(*r, "nobody is behind"));
}

// Only node1's log (ranks 0, 1). On the world comm ranks 2 and 3 sent
// nothing; on the DP comms the peer's job rank is unknown (rank 1 of a
// 2-rank split). By hand we cannot tell 2 from 3: both are suspects.
TEST(NcclLogHangTest, RanksWithoutLogAreSuspectsAndSubCommPeersAreUnknown) {
  auto r = AnalyzeHang({TestData("nccl/hang_multicomm_node1.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->missing_ranks, std::vector<int>({2, 3}));
  EXPECT_EQ(r->root_ranks, std::vector<int>({2, 3})) << FormatHangText(*r);
  EXPECT_NE(EdgeOf(*r, 0, -1), nullptr);  // DP{0,2}: its rank 1, job rank unknown
  EXPECT_TRUE(AnyNote(*r, "job rank unknown"));
}

// Pipeline stages 0 -> 1 -> 2 -> 3 on 2-rank p2p comms. Sends/receives posted:
// 0->1: 3 sends, 3 recvs; 1->2: 3 sends, 2 recvs; 2->3: 2 sends, 1 recv.
// By hand: rank 1's 3rd Send to 2 has no matching Recv (rank 2 posted 2), so
// 1 waits on 2; rank 2's 2nd Send to 3 has no matching Recv (rank 3 posted 1),
// so 2 waits on 3; rank 0's sends are all matched. Root: rank 3.
TEST(NcclLogHangTest, PointToPointChainFollowsUnmatchedSends) {
  auto r = AnalyzeHang({TestData("nccl/hang_pipeline_p2p.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({3})) << FormatHangText(*r);
  EXPECT_EQ(Edges(*r), (EdgeSet{{1, 2}, {2, 3}}));
  const HangEdge* e = EdgeOf(*r, 2, 3);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->op, "Send");
  EXPECT_EQ(e->seq, 2);
  EXPECT_EQ(e->comm, "0x73c208e4f61a3d5b");
  EXPECT_NE(e->why.find("peer posted 1 matching Recv op(s) < 2"), std::string::npos) << e->why;
}

// mpirun --tag-output: four ranks' lines interleaved in one file with
// "[1,R]<stdout>:" prefixes, NCCL 2.13 init lines (commId, no nvmlDev).
// Ranks 0, 2, 3 reach opCount 5, rank 1 stops at 4: root rank 1.
TEST(NcclLogHangTest, InterleavedMpiOutputIsSplitByProcess) {
  auto r = AnalyzeHang({TestData("nccl/hang_mpi_interleaved.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({1})) << FormatHangText(*r);
  EXPECT_EQ(Edges(*r), (EdgeSet{{0, 1}, {2, 1}, {3, 1}}));
  EXPECT_EQ(r->ranks.size(), 4u);
  for (const HangRankState& s : r->ranks) {
    EXPECT_EQ(s.host, s.global_rank < 2 ? "cn01" : "cn02");
    EXPECT_EQ(s.version, "2.13.4+cuda11.7");
  }
}

// torchrun "[rankN]:" prefixes; ranks 0, 2, 3 hit the PyTorch watchdog at
// SeqNum 42 (NCCL opCount 0x29) and abort; rank 1 last enqueued 0x28 and
// never timed out. By hand: on the NCCL comm 0, 2, 3 wait on 1 (0x28 < 0x29);
// on pg:0 they are pending 42 and rank 1 has no state there. Root: rank 1.
TEST(NcclLogHangTest, WatchdogTimeoutsAndAbortsPointAtTheRankThatNeverTimedOut) {
  auto r = AnalyzeHang({TestData("nccl/hang_torchrun_watchdog.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({1})) << FormatHangText(*r);
  EXPECT_TRUE(r->missing_ranks.empty());  // rank 1 has a log, just no timeout
  bool pg_edge = false, nccl_edge = false;
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.waited_rank, 1);
    if (e.comm == "pg:0") {
      pg_edge = true;
      EXPECT_EQ(e.seq, 42);
      EXPECT_EQ(e.op, "ALLREDUCE");
    } else {
      nccl_edge = true;
      EXPECT_EQ(e.seq, 0x29);
    }
  }
  EXPECT_TRUE(pg_edge);
  EXPECT_TRUE(nccl_edge);
  EXPECT_TRUE(AnyNote(*r, "aborted the communicator"));
  EXPECT_TRUE(AnyNote(*r, "PyTorch watchdog: rank 2 timed out in ALLREDUCE seq 42"));
}

// Two ranks disagree on the op at one opCount (a Broadcast against an
// AllReduce): a deadlock by mismatched order. Neither is behind; the report
// says it cannot tell which is wrong instead of naming a culprit.
TEST(NcclLogHangTest, MismatchedOpsAtOneSequenceAreReportedNotBlamed) {
  TempDir dir;
  std::string path = dir.path() + "/mismatch.log";
  WriteFile(path,
            "h:1:1 [0] NCCL INFO ncclCommInitRank comm 0xa rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 1000 commId 0x77 - Init COMPLETE\n"
            "h:2:2 [1] NCCL INFO ncclCommInitRank comm 0xb rank 1 nranks 2 cudaDev 1 nvmlDev 1 "
            "busId 2000 commId 0x77 - Init COMPLETE\n"
            "h:1:1 [0] NCCL INFO AllReduce: opCount 3 sendbuff 0x1 recvbuff 0x1 count 4 datatype 7 "
            "op 0 root 0 comm 0xa [nranks=2] stream 0x1\n"
            "h:2:2 [1] NCCL INFO Broadcast: opCount 3 sendbuff 0x1 recvbuff 0x1 count 4 datatype 7 "
            "op 0 root 0 comm 0xb [nranks=2] stream 0x1\n");
  auto r = AnalyzeHang({path});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->root_ranks.empty());
  EXPECT_TRUE(AnyNote(*r, "ranks disagree on the op at seq 3 (AllReduce vs Broadcast)"))
      << FormatHangText(*r);
}

// A rank that logged Init START but never Init COMPLETE is stuck in init.
TEST(NcclLogHangTest, InitStartWithoutCompleteIsNoted) {
  TempDir dir;
  std::string path = dir.path() + "/init.log";
  WriteFile(path,
            "h:1:1 [0] NCCL INFO comm 0xa rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId "
            "0x9ad9b5e4ab2566da - Init START\n");
  auto r = AnalyzeHang({path});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(AnyNote(*r, "Init START but no Init COMPLETE")) << FormatHangText(*r);
  EXPECT_EQ(r->missing_ranks, std::vector<int>({1}));
}

}  // namespace
}  // namespace gpufleet::trace
