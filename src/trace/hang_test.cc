#include "trace/hang.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

std::vector<std::pair<int, int>> Edges(const HangReport& r) {
  std::vector<std::pair<int, int>> out;
  for (const HangEdge& e : r.chain) out.emplace_back(e.waiter_rank, e.waited_rank);
  return out;
}

const HangRankState* Rank(const HangReport& r, int rank) {
  for (const HangRankState& s : r.ranks) {
    if (s.rank == rank) return &s;
  }
  return nullptr;
}

// Ranks 0-1 on NVIDIA (NCCL log), 2-3 on AMD (RCCL log); rank 2 never
// enqueued AllReduce opCount 0x20, so ranks 0, 1 and 3 wait on it.
TEST(HangTest, WaitChainCrossesNvidiaAndAmdRanks) {
  auto r =
      AnalyzeHang({TestData("nccl/hang_nvidia_node1.log"), TestData("nccl/hang_amd_node3.log")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({2}));
  EXPECT_TRUE(r->missing_ranks.empty());
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 2}, {1, 2}, {3, 2}}));
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.seq, 0x20);
    EXPECT_EQ(e.op, "AllReduce");
    EXPECT_EQ(e.comm, "0x7e5a5dd6e3b0c1f2");
  }
  ASSERT_NE(Rank(*r, 2), nullptr);
  EXPECT_EQ(Rank(*r, 2)->vendor, Vendor::kAmd);
  EXPECT_EQ(Rank(*r, 2)->host, "node3");
  EXPECT_EQ(Rank(*r, 2)->last_enqueued, 0x1f);
  EXPECT_EQ(Rank(*r, 0)->vendor, Vendor::kNvidia);
  EXPECT_FALSE(r->partial);

  std::string text = FormatHangText(*r);
  EXPECT_NE(text.find("Root (everyone waits on): rank 2 (amd 2.20.5+hip6.2, node3 pid 3307)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rank 0 waits on rank 2 in AllReduce seq 32"), std::string::npos) << text;
  auto j = nlohmann::json::parse(HangReportJson(*r));
  EXPECT_EQ(j["root_ranks"], nlohmann::json::array({2}));
  EXPECT_EQ(j["chain"].size(), 3u);
  EXPECT_EQ(j["ranks"].size(), 4u);
}

// With only node1's log, ranks 2 and 3 sent nothing: they are the suspects.
TEST(HangTest, MissingLogsMakeMissingRanksTheSuspects) {
  auto r = AnalyzeHang({TestData("nccl/hang_nvidia_node1.log")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->missing_ranks, std::vector<int>({2, 3}));
  EXPECT_EQ(r->root_ranks, std::vector<int>({2, 3}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}}));
  bool warned = false;
  for (const std::string& n : r->notes) warned = warned || n.find("NCCL WARN") != std::string::npos;
  EXPECT_TRUE(warned);
}

// RAS: rank 1 launched 6649 AllReduce while the others launched 6650.
TEST(HangTest, RasMismatchPointsAtTheRankBehind) {
  auto r = AnalyzeHang({TestData("nccl_json/ras_mismatch.json")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}, {2, 1}, {3, 1}}));
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.op, "AllReduce");
    EXPECT_EQ(e.comm, "0x27a079b828ff1a75");
  }
}

// The RAS text examples from the NCCL docs: 26 of 32 ranks at operation
// 6650, the 6 listed ranks at 6649; another comm misses rank 21.
TEST(HangTest, RasTextMismatchFromNcclDocs) {
  auto r = AnalyzeHang({TestData("nccl_json/ras_text_output_examples.txt")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({0, 2, 3, 4, 5, 7}));
  EXPECT_EQ(r->chain.size(), 26u * 6u);
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.comm, "0x27a079b828ff1a75");
    EXPECT_EQ(e.seq, 6650);
  }
  EXPECT_EQ(r->missing_ranks, std::vector<int>({21}));
  ASSERT_NE(Rank(*r, 0), nullptr);
  EXPECT_EQ(Rank(*r, 0)->pid, 483072);
  EXPECT_EQ(Rank(*r, 0)->host, "172.16.64.210");
  bool dead = false;
  for (const std::string& n : r->notes) {
    dead = dead || n.find("Process 3487984 on node 172.16.64.213") != std::string::npos;
  }
  EXPECT_TRUE(dead);
}

// The real RAS doc example: a 2-rank comm whose rank 1 is unresponsive.
TEST(HangTest, RasStatusExampleReportsTheMissingRank) {
  auto r = AnalyzeHang({TestData("nccl_json/ras_status_example.json")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->missing_ranks, std::vector<int>({1}));
  ASSERT_EQ(r->ranks.size(), 1u);
  EXPECT_EQ(r->ranks[0].host, "172.16.64.245");
  bool unresponsive = false;
  for (const std::string& n : r->notes) {
    unresponsive = unresponsive ||
                   n.find("rank 1 on 172.16.64.245 pid 1524345 unresponsive") != std::string::npos;
  }
  EXPECT_TRUE(unresponsive);
}

// Flight recorder: ranks 0, 2, 3 are stuck in seq 5 all_reduce; rank 1 left no dump.
TEST(HangTest, FlightRecorderWithMissingRank) {
  auto r =
      AnalyzeHang({TestData("fr/nccl_trace_rank_0.json"), TestData("fr/nccl_trace_rank_2.json"),
                   TestData("fr/nccl_trace_rank_3.json")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->missing_ranks, std::vector<int>({1}));
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}, {2, 1}, {3, 1}}));
  for (const HangEdge& e : r->chain) {
    EXPECT_EQ(e.seq, 5);
    EXPECT_EQ(e.op, "nccl:all_reduce");
    EXPECT_EQ(e.comm, "pg:0");
  }
  ASSERT_NE(Rank(*r, 0), nullptr);
  EXPECT_EQ(Rank(*r, 0)->last_started, 5);
  EXPECT_EQ(Rank(*r, 0)->last_completed, 4);
}

// Issue 19, flight-recorder dump versions. 2.2 (no pg_status): rank 0 enqueued
// seq 3 all_reduce, rank 1's last entry is seq 2, so rank 1 holds the job.
TEST(HangTest, FlightRecorderVersion22DerivesStateFromEntries) {
  auto r = AnalyzeHang(
      {TestData("fr/v2.2/nccl_trace_rank_0.json"), TestData("fr/v2.2/nccl_trace_rank_1.json")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->missing_ranks.empty());
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}}));
  ASSERT_FALSE(r->chain.empty());
  EXPECT_EQ(r->chain[0].seq, 3);
  EXPECT_EQ(r->chain[0].op, "nccl:all_reduce");
}

// 2.7 (2.4 layout plus nccl_version): both ranks completed seq 1-4; rank 0
// started seq 5 all_reduce, rank 1 never enqueued it, so rank 1 holds the job.
TEST(HangTest, FlightRecorderVersion27) {
  auto r = AnalyzeHang(
      {TestData("fr/v2.7/nccl_trace_rank_0.json"), TestData("fr/v2.7/nccl_trace_rank_1.json")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->missing_ranks.empty());
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}}));
  ASSERT_FALSE(r->chain.empty());
  EXPECT_EQ(r->chain[0].seq, 5);
  EXPECT_EQ(r->chain[0].op, "nccl:all_reduce");
}

// 2.10 JSON dumps: the default group is complete everywhere (seq 4); in
// tp_group (pg_id 1, ranks 0 and 1) rank 0 started seq 7 and enqueued 8 while
// rank 1 completed 6 and enqueued nothing more, so rank 1 holds the job at
// seq 7. Rank 2 is not in tp_group and is not missing from it. pg_status
// values are strings here; read as numbers, they give rank 0 started 7.
TEST(HangTest, FlightRecorderVersion210JsonDumpsNamedGroup) {
  auto r = AnalyzeHang({TestData("fr/v2.10_json/nccl_trace_rank_0.json"),
                        TestData("fr/v2.10_json/nccl_trace_rank_1.json"),
                        TestData("fr/v2.10_json/nccl_trace_rank_2.json")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->missing_ranks.empty());
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}}));
  ASSERT_FALSE(r->chain.empty());
  EXPECT_EQ(r->chain[0].seq, 7);
  EXPECT_EQ(r->chain[0].op, "nccl:all_reduce");
  EXPECT_EQ(r->chain[0].comm, "pg:tp_group");
}

TEST(HangTest, FlightRecorderLaggardIsRoot) {
  TempDir dir;
  auto dump = [&](int rank, int enq, int done) {
    std::string p = dir.path() + "/nccl_trace_rank_" + std::to_string(rank);
    WriteFile(p,
              "{\"version\": \"2.4\", \"pg_config\": {\"0\": {\"name\": \"0\", \"ranks\": "
              "\"[0, 1]\"}}, \"pg_status\": {\"0\": {\"last_enqueued_collective\": " +
                  std::to_string(enq) +
                  ", \"last_started_collective\": -1, "
                  "\"last_completed_collective\": " +
                  std::to_string(done) + "}}, \"entries\": []}");
    return p;
  };
  auto r = AnalyzeHang({dump(0, 8, 7), dump(1, 7, 7)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root_ranks, std::vector<int>({1}));
  EXPECT_EQ(Edges(*r), (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_EQ(r->chain[0].seq, 8);
}

TEST(HangTest, PickleDumpAsksForJsonConversion) {
  TempDir dir;
  std::string p = dir.path() + "/nccl_trace_rank_0";
  WriteFile(p, std::string("\x80\x04\x95\x10\x00\x00", 6) + "rest");
  auto r = AnalyzeHang({p});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("convert it with torch to JSON"), std::string::npos);
  EXPECT_NE(r.status().message().find(p), std::string::npos);
}

TEST(HangTest, UnknownFileIsAnErrorNamingIt) {
  TempDir dir;
  std::string p = dir.path() + "/notes.txt";
  WriteFile(p, "nothing to see\n");
  auto r = AnalyzeHang({p});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p), std::string::npos);
  EXPECT_FALSE(AnalyzeHang({}).ok());
  EXPECT_FALSE(AnalyzeHang({dir.path() + "/absent"}).ok());
}

}  // namespace
}  // namespace gpufleet::trace
