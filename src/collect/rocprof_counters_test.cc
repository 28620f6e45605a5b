#include "collect/rocprof_counters.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/file_util.h"
#include "gtest/gtest.h"

namespace gpufleet::collect {
namespace {

std::string TestData(std::string_view rel) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/trace/" + std::string(rel);
}

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream(path, std::ios::binary) << data;
}

// The header of rocprofv3's counter collection, as in the ROCm doc sample.
constexpr std::string_view kHeader =
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
    "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\"\n";

std::string Row(int dispatch, std::string_view counter, std::string_view value) {
  return std::to_string(dispatch) + "," + std::to_string(dispatch) +
         ",1,1,19396,19396,1048576,16,\"void gemm<float>(float*, float const*, int)\",64,0,0,8,16,"
         "\"" +
         std::string(counter) + "\"," + std::string(value) + "\n";
}

TEST(RocprofCountersTest, DocSampleHasNoL2OrStallCounters) {
  StatusOr<std::string> text = ReadFileToString(TestData("rocprof/counter_collection.csv"));
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto s = ParseRocprofCounters(*text, "counter_collection.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->rows, 7);  // SQ_WAVES only
  EXPECT_EQ(s->bad_rows, 0);
  EXPECT_FALSE(s->L2MissRatio().has_value());
  EXPECT_FALSE(s->MemoryStallRatio().has_value());
}

TEST(RocprofCountersTest, L2MissRatioAndStallShareFromTheirCounters) {
  // Hits and misses of one published gfx942 dispatch (32% L2 hit rate),
  // plus a second dispatch.
  std::string text(kHeader);
  text += Row(1, "TCC_HIT_sum", "1623271") + Row(1, "TCC_MISS_sum", "3442362");
  text += Row(1, "MemUnitStalled", "40.0") + Row(1, "SQ_WAVES", "16384");
  text += Row(2, "TCC_HIT_sum", "376729") + Row(2, "TCC_MISS_sum", "557638");
  text += Row(2, "MemUnitStalled", "20.0");
  auto s = ParseRocprofCounters(text, "1_counter_collection.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->L2MissRatio().has_value());
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 4000000.0 / 6000000.0);
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_DOUBLE_EQ(*s->MemoryStallRatio(), 0.30);  // mean of 40% and 20%
}

TEST(RocprofCountersTest, ChannelCountersAreSummedOnlyWithoutTheSums) {
  std::string channels(kHeader);
  channels += Row(1, "TCC_HIT[0]", "300") + Row(1, "TCC_HIT[1]", "100");
  channels += Row(1, "TCC_MISS[0]", "50") + Row(1, "TCC_MISS[1]", "50");
  auto s = ParseRocprofCounters(channels, "c.csv");
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 0.2);
  // Both collected: the _sum counters already hold the channels.
  std::string both = channels + Row(1, "TCC_HIT_sum", "400") + Row(1, "TCC_MISS_sum", "400");
  s = ParseRocprofCounters(both, "b.csv");
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 0.5);
}

TEST(RocprofCountersTest, BadRowsAreCountedWithTheirPlaceAndBadHeadersRefused) {
  std::string text(kHeader);
  text += Row(1, "TCC_HIT_sum", "90") + Row(1, "TCC_MISS_sum", "abc");
  text += "1,1,\"unterminated\n" + Row(2, "TCC_MISS_sum", "10");
  auto s = ParseRocprofCounters(text, "x.csv");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rows, 4);
  EXPECT_EQ(s->bad_rows, 2);
  EXPECT_EQ(s->first_bad.rfind("x.csv:3: Counter_Value 'abc' of TCC_MISS_sum", 0), 0u)
      << s->first_bad;
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 0.1);  // the good rows still count

  auto no_counter = ParseRocprofCounters("\"Kind\",\"Agent_Id\"\n1,2\n", "k.csv");
  ASSERT_FALSE(no_counter.ok());
  EXPECT_NE(no_counter.status().message().find("k.csv:1: not a rocprofv3 counter collection"),
            std::string::npos);
  EXPECT_FALSE(ParseRocprofCounters("", "e.csv").ok());
}

TEST(RocprofCountersTest, ReadsEveryCounterFileUnderACaptureDirectory) {
  const std::string root =
      (std::filesystem::temp_directory_path() / ("gpufleet_rocprof_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  struct RemovedAtEnd {
    std::string path;
    ~RemovedAtEnd() { std::filesystem::remove_all(path); }
  } dir{root};
  auto missing = ReadRocprofCounters(dir.path);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::filesystem::create_directories(dir.path + "/node-a");
  WriteFile(dir.path + "/node-a/4242_counter_collection.csv",
            std::string(kHeader) + Row(1, "TCC_HIT_sum", "30") + Row(1, "TCC_MISS_sum", "10"));
  WriteFile(dir.path + "/node-a/4243_counter_collection.csv",
            std::string(kHeader) + Row(1, "TCC_HIT_sum", "30") + Row(1, "TCC_MISS_sum", "30"));
  WriteFile(dir.path + "/node-a/4242_kernel_trace.csv", "\"Kind\"\n");
  auto s = ReadRocprofCounters(dir.path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->files, 2);
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 40.0 / 100.0);
}

}  // namespace
}  // namespace gpufleet::collect
