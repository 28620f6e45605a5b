#include <algorithm>
#include <string>

#include <memory>

#include "gtest/gtest.h"
#include "trace/hang.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

int64_t PendingSeqForTest(const HangRankState& s) {
  return s.completion_known && s.last_enqueued > s.last_completed ? s.last_completed + 1 : -1;
}

TEST(NcclLogImporterTest, ImportsNvidiaLogWithRanksCollectivesAndWarn) {
  std::string path = TestData("nccl/hang_nvidia_node1.log");
  auto importer = NewNcclLogImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_EQ(t.files[0].format, "nccl_log");
  EXPECT_EQ(t.files[0].skipped, 0u);
  ASSERT_EQ(t.processes.size(), 2u);
  for (const Process& p : t.processes) {
    EXPECT_EQ(p.host, "node1");
    EXPECT_EQ(p.vendor, Vendor::kNvidia);
    EXPECT_EQ(p.world_size, 4);
    EXPECT_EQ(p.rank, p.pid == 2201 ? 0 : 1);
  }
  ASSERT_EQ(t.collectives.size(), 8u);  // opCount 1d..20 on two ranks
  int64_t max_seq = -1;
  for (const Collective& c : t.collectives) {
    EXPECT_EQ(t.strings.Get(c.op), "AllReduce");
    EXPECT_EQ(t.strings.Get(c.comm), "0x7e5a5dd6e3b0c1f2");
    EXPECT_EQ(c.bytes, 1048576 * 4);  // count x float32
    EXPECT_EQ(c.nranks, 4);
    max_seq = std::max(max_seq, c.seq);
  }
  EXPECT_EQ(max_seq, 0x20);
  // The WARN line becomes an instant event and a file message with its line.
  EXPECT_EQ(
      CountNamed(t, "NCCL WARN socketProgress: Connection closed by remote peer node3<41862>"), 1);
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors.back().find("hang_nvidia_node1.log:16: NCCL WARN"),
            std::string::npos);
}

TEST(NcclLogImporterTest, DetectsRcclAsAmdAndUsesGlobalRank) {
  std::string path = TestData("nccl/hang_amd_node3.log");
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNcclLogImporter()->Import(path, b, nullptr).ok());
  ASSERT_EQ(t.processes.size(), 2u);
  for (const Process& p : t.processes) {
    EXPECT_EQ(p.vendor, Vendor::kAmd);
    EXPECT_EQ(p.rank, p.pid == 3307 ? 2 : 3);
  }
  EXPECT_EQ(t.collectives.size(), 7u);
  EXPECT_NE(t.files[0].alignment.find("line order"), std::string::npos);
}

TEST(NcclLogImporterTest, CountsBadLinesWithLineNumbers) {
  TempDir dir;
  std::string path = dir.path() + "/bad.log";
  WriteFile(
      path,
      "n:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
      "n:1:1 [0] NCCL INFO ncclCommInitRank comm 0xa rank 7 nranks 2 cudaDev 0 busId 1 - Init "
      "COMPLETE\n"
      "n:1:1 [0] NCCL INFO AllReduce: opCount zz sendbuff 0x1 recvbuff 0x1 count 1 datatype 7 "
      "op 0 root 0 comm 0xa [nranks=2] stream 0x1\n"
      "n:1:1 [0] NCCL INFO Broadcast: opCount 3 sendbuff 0x1 recvbuff 0x1 count 8 datatype 0 "
      "op 0 root 0 comm 0xa [nranks=2] stream 0x1\n");
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNcclLogImporter()->Import(path, b, nullptr).ok());
  EXPECT_EQ(t.files[0].skipped, 2u);
  ASSERT_EQ(t.files[0].errors.size(), 2u);
  EXPECT_NE(t.files[0].errors[0].find("bad.log:2:"), std::string::npos);
  EXPECT_NE(t.files[0].errors[1].find("bad.log:3:"), std::string::npos);
  ASSERT_EQ(t.collectives.size(), 1u);
  EXPECT_EQ(t.collectives[0].bytes, 8);
  EXPECT_EQ(t.collectives[0].seq, 3);
}

TEST(NcclLogImporterTest, RejectsFileWithoutNcclLines) {
  TempDir dir;
  std::string path = dir.path() + "/app.log";
  WriteFile(path, "epoch 1 loss 3.2\nepoch 2 loss 2.9\n");
  EXPECT_FALSE(NewNcclLogImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewNcclLogImporter()->Import(path, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("app.log"), std::string::npos);
  EXPECT_TRUE(t.files.empty());
}

// Imports one real sample (tests/data/trace/nccl/real/, origins in the README).
struct Imported {
  Timeline t;
  Status status;
};
std::unique_ptr<Imported> ImportReal(const std::string& name) {
  auto out = std::make_unique<Imported>();
  std::string path = TestData("nccl/real/" + name);
  EXPECT_TRUE(NewNcclLogImporter()->Sniff(path, ReadHead(path))) << name;
  TimelineBuilder b(out->t);
  out->status = NewNcclLogImporter()->Import(path, b, nullptr);
  b.Finish();
  return out;
}

// An application timestamp before the NCCL prefix is not taken for host:pid:tid.
TEST(NcclLogImporterTest, PlainTimeBeforeThePrefixIsNotAHost) {
  TempDir dir;
  std::string path = dir.path() + "/timed.log";
  WriteFile(path,
            "2025-03-01 10:00:05 n1:7:8 [0] NCCL INFO comm 0xa rank 0 nranks 1 cudaDev 0 busId "
            "1000 - Init COMPLETE\n");
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNcclLogImporter()->Import(path, b, nullptr).ok());
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].host, "n1");
  EXPECT_EQ(t.processes[0].pid, 7);
}

// NCCL <= 2.11 (NVIDIA/nccl#629): "comm %p rank %d nranks %d cudaDev %d busId %lx".
TEST(NcclLogImporterTest, RealInitLinesWithoutCommId) {
  auto r = ImportReal("nccl_le2.11_init_nccl629.log");
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->t.files[0].skipped, 0u);
  EXPECT_NE(r->t.files[0].format_version.find("NCCL <= 2.11"), std::string::npos)
      << r->t.files[0].format_version;
  ASSERT_EQ(r->t.processes.size(), 2u);
  for (const Process& p : r->t.processes) EXPECT_EQ(p.world_size, 16);
}

// NCCL 2.14-2.18 under pdsh (NVIDIA/nccl#1029): "host: host:pid:tid [d] ... Init START".
TEST(NcclLogImporterTest, RealPdshPrefixedInitStartLines) {
  auto r = ImportReal("nccl_2.18_pdsh_initstart_nccl1029.log");
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->t.files[0].skipped, 0u);
  EXPECT_NE(r->t.files[0].format_version.find("nvmlDev commId"), std::string::npos)
      << r->t.files[0].format_version;
  ASSERT_EQ(r->t.processes.size(), 4u);
  for (const Process& p : r->t.processes) EXPECT_EQ(p.host, "rdma-gpu-train-worker-0");
  auto hang = AnalyzeHang({TestData("nccl/real/nccl_2.18_pdsh_initstart_nccl1029.log")});
  ASSERT_TRUE(hang.ok());
  int stuck_in_init = 0;
  for (const std::string& n : hang->notes) {
    stuck_in_init += n.find("Init START but no Init COMPLETE") != std::string::npos;
  }
  EXPECT_EQ(stuck_in_init, 4);
}

// NCCL 2.19+ (NVIDIA/nccl-tests#273): "ncclCommInitRank comm ..." and "Init timings:" lines.
TEST(NcclLogImporterTest, RealNccl219InitLines) {
  auto r = ImportReal("nccl_2.2x_init_nccltests273.log");
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->t.files[0].skipped, 0u);
  EXPECT_NE(r->t.files[0].format_version.find("NCCL 2.19+ (ncclCommInitRank"), std::string::npos)
      << r->t.files[0].format_version;
}

// RCCL 2.27.7 / ROCm 7.2 (ROCm/legacy-rocm-build#6074): "RCCL version : X",
// ncclCommInitRankConfig_impl, "acc (nil)" and "stream (nil)" in COLL lines,
// "nRanks" topology lines that are not init lines, Destroy COMPLETE.
TEST(NcclLogImporterTest, RealRccl227Log) {
  auto r = ImportReal("rccl_2.27.7_rocm7.2_rocm6074.log");
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->t.files[0].skipped, 0u);
  EXPECT_NE(r->t.files[0].format_version.find("RCCL 2.27.7-HEAD:0d2c4fd"), std::string::npos)
      << r->t.files[0].format_version;
  ASSERT_EQ(r->t.processes.size(), 2u);
  for (const Process& p : r->t.processes) EXPECT_EQ(p.vendor, Vendor::kAmd);
  EXPECT_EQ(r->t.collectives.size(), 5u);
  for (const Collective& c : r->t.collectives) {
    EXPECT_EQ(r->t.strings.Get(c.comm), "0xcde2ea451c75c2ba");
    EXPECT_EQ(c.bytes, 4);
  }
  auto hang = AnalyzeHang({TestData("nccl/real/rccl_2.27.7_rocm7.2_rocm6074.log")});
  ASSERT_TRUE(hang.ok());
  EXPECT_TRUE(hang->root_ranks.empty());  // both ranks reached opCount 2
}

// NCCL lines quoted without their host:pid:tid (NVIDIA/nccl#783) are counted
// as unreadable with their line numbers, never dropped silently.
TEST(NcclLogImporterTest, RealLinesWithoutHostPrefixAreCounted) {
  auto r = ImportReal("nccl_send_lines_without_host_nccl783.log");
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->t.files[0].skipped, 3u);
  ASSERT_GE(r->t.files[0].errors.size(), 3u);
  EXPECT_NE(r->t.files[0].errors[2].find("nccl783.log:3: NCCL line without a host:pid:tid"),
            std::string::npos)
      << r->t.files[0].errors[2];
}

// PyTorch watchdog lines of three generations; rank, PG and seq are read.
TEST(NcclLogImporterTest, RealPyTorchWatchdogLines) {
  auto v24 = AnalyzeHang({TestData("nccl/real/torch_2.4_watchdog_basicsr737.log")});
  ASSERT_TRUE(v24.ok()) << v24.status().ToString();
  ASSERT_EQ(v24->ranks.size(), 3u);
  for (const HangRankState& s : v24->ranks) {
    EXPECT_EQ(s.comm, "pg:0");  // rank 2's PG is borrowed from the others' seq 808 lines
    EXPECT_EQ(PendingSeqForTest(s), 808);
  }
  EXPECT_EQ(v24->ranks[0].last_enqueued, 811);  // "last enqueued NCCL work: 811"
  auto v25 = AnalyzeHang({TestData("nccl/real/torch_2.5_pg_timeout_sglang1693.log")});
  ASSERT_TRUE(v25.ok()) << v25.status().ToString();
  ASSERT_EQ(v25->ranks.size(), 2u);
  for (const HangRankState& s : v25->ranks) EXPECT_EQ(s.comm, "pg:3");
  auto v1 = AnalyzeHang({TestData("nccl/real/torch_1.x_watchdog_ofa271.log")});
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  ASSERT_EQ(v1->ranks.size(), 3u);
  for (const HangRankState& s : v1->ranks) {
    EXPECT_EQ(s.comm, "pg:unknown");
    EXPECT_EQ(s.last_enqueued, 469508);
  }
}

}  // namespace
}  // namespace gpufleet::trace
