#include <algorithm>
#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

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

}  // namespace
}  // namespace gpufleet::trace
