#include "collect/ncu_metrics.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace gpufleet::collect {
namespace {

// The files below are written here in ncu's documented CSV layouts (the
// column set, quoting, thousands separators, "n/a" and the ==PROF== framing
// of `ncu --csv`); ../shared holds no Nsight Compute output.
constexpr std::string_view kDetailsHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\","
    "\"Metric Unit\",\"Metric Value\"\n";

std::string Row(int id, std::string_view metric, std::string_view unit, std::string_view value,
                std::string_view pid = "4711") {
  return "\"" + std::to_string(id) + "\",\"" + std::string(pid) +
         "\",\"python3\",\"node-a\",\"gemm_kernel\",\"1\",\"7\",\"(256, 1, 1)\",\"(1024, 1, "
         "1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" +
         std::string(metric) + "\",\"" + std::string(unit) + "\",\"" + std::string(value) + "\"\n";
}

constexpr std::string_view kLongScoreboard =
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct";
constexpr std::string_view kLgThrottle = "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct";

TEST(NcuMetricsTest, DetailsPageWeightsKernelsByDuration) {
  const std::string text =
      "==PROF== Connected to process 4711 (/usr/bin/python3)\n"
      "==PROF== Profiling \"gemm_kernel\" - 0: 0%....50%....100% - 9 passes\n"
      "step 3 loss 2.31\n" +
      std::string(kDetailsHeader) + Row(0, "dram__bytes_read.sum", "Mbyte", "53,261.31") +
      Row(0, "gpu__time_duration.sum", "msecond", "2.00") +
      Row(0, "lts__t_sector_hit_rate.pct", "%", "80") + Row(0, kLongScoreboard, "%", "30") +
      Row(0, kLgThrottle, "%", "10") + Row(1, "gpu__time_duration.sum", "usecond", "500") +
      Row(1, "lts__t_sector_hit_rate.pct", "%", "40") + Row(1, kLongScoreboard, "%", "60") +
      Row(1, kLgThrottle, "%", "n/a") + "==PROF== Disconnected from process 4711\n";
  auto s = ParseNcuCsv(text, "ncu.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->kernels, 2);
  EXPECT_EQ(s->rows, 9);
  EXPECT_EQ(s->bad_rows, 0) << s->first_bad;
  // 2 ms at 80% hits and 0.5 ms at 40%: (0.002 x 0.8 + 0.0005 x 0.4) / 0.0025.
  ASSERT_TRUE(s->L2MissRatio().has_value());
  EXPECT_NEAR(*s->L2MissRatio(), 1 - 0.72, 1e-12);
  // Long scoreboard + LG throttle: 0.4 for 2 ms, 0.6 for 0.5 ms.
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_NEAR(*s->MemoryStallRatio(), 0.44, 1e-12);
}

TEST(NcuMetricsTest, SectorLookupsWinOverTheHitRateAndUnitsScale) {
  const std::string text = std::string(kDetailsHeader) +
                           Row(0, "lts__t_sectors_lookup_hit.sum", "sector", "1,200") +
                           Row(0, "lts__t_sectors_lookup_miss.sum", "Ksector", "3.5") +
                           Row(0, "lts__t_sector_hit_rate.pct", "%", "25.53") +
                           Row(1, "lts__t_sectors_lookup_hit.sum", "Msector", "2") +
                           Row(1, "lts__t_sectors_lookup_miss.sum", "sector", "500,000");
  auto s = ParseNcuCsv(text, "ncu.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->L2MissRatio().has_value());
  EXPECT_NEAR(*s->L2MissRatio(), 503'500.0 / (2'001'200.0 + 503'500.0), 1e-12);
  EXPECT_FALSE(s->MemoryStallRatio().has_value());
}

TEST(NcuMetricsTest, KernelsWithoutADurationCountOnceEach) {
  // One kernel lacks its duration: no weights at all, rather than weights
  // for some.
  const std::string text = std::string(kDetailsHeader) +
                           Row(0, "gpu__time_duration.sum", "nsecond", "9,000") +
                           Row(0, "lts__t_sector_hit_rate.pct", "%", "80") +
                           Row(1, "lts__t_sector_hit_rate.pct", "%", "40") +
                           // Same launch ID in another process: another kernel.
                           Row(1, "lts__t_sector_hit_rate.pct", "%", "60", "4712");
  auto s = ParseNcuCsv(text, "ncu.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->kernels, 3);
  ASSERT_TRUE(s->L2MissRatio().has_value());
  EXPECT_NEAR(*s->L2MissRatio(), 0.4, 1e-12);
}

TEST(NcuMetricsTest, RawPageReadsMetricColumnsWithTheirUnitsRow) {
  const std::string text =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Device\",\"CC\","
      "\"gpu__time_duration.sum\",\"lts__t_sector_hit_rate.pct\",\"" +
      std::string(kLongScoreboard) +
      "\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"%\",\"%\"\n"
      "\"0\",\"77\",\"a.out\",\"h\",\"k1\",\"0\",\"9.0\",\"10\",\"50\",\"20\"\n"
      "\"1\",\"77\",\"a.out\",\"h\",\"k2\",\"0\",\"9.0\",\"30\",\"90\",\"40\"\n";
  auto s = ParseNcuCsv(text, "raw.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->kernels, 2);
  EXPECT_EQ(s->rows, 2);
  ASSERT_TRUE(s->L2MissRatio().has_value());
  EXPECT_NEAR(*s->L2MissRatio(), 1 - (10 * 0.5 + 30 * 0.9) / 40, 1e-12);
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_NEAR(*s->MemoryStallRatio(), (10 * 0.2 + 30 * 0.4) / 40, 1e-12);
}

TEST(NcuMetricsTest, WarpStateSamplesGiveTheStallShare) {
  const std::string text = std::string(kDetailsHeader) +
                           Row(0, "smsp__pcsamp_warps_issue_stalled_long_scoreboard", "", "300") +
                           Row(0, "smsp__pcsamp_warps_issue_stalled_lg_throttle", "", "100") +
                           Row(0, "smsp__pcsamp_sample_count", "", "1,000");
  auto s = ParseNcuCsv(text, "ncu.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_NEAR(*s->MemoryStallRatio(), 0.4, 1e-12);
}

TEST(NcuMetricsTest, BadRowsAreCountedAndNamedTheRestIsRead) {
  const std::string text = std::string(kDetailsHeader) +          // line 1
                           Row(0, kLongScoreboard, "%", "abc") +  // 2: bad value
                           "\"1\",\"4711\",\"short\"\n" +         // 3: short
                           Row(1, kLongScoreboard, "%", "25") +   // 4
                           "Segmentation fault (core dumped)\n";  // 5: stray text
  auto s = ParseNcuCsv(text, "caps/ncu.csv");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->rows, 4);
  EXPECT_EQ(s->bad_rows, 3);
  EXPECT_EQ(s->first_bad.rfind(
                "caps/ncu.csv:2: Metric Value 'abc' of " + std::string(kLongScoreboard), 0),
            0u)
      << s->first_bad;
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_NEAR(*s->MemoryStallRatio(), 0.25, 1e-12);
}

TEST(NcuMetricsTest, OtherFilesAreNotNcuCsv) {
  auto rocprof =
      ParseNcuCsv("\"Correlation_Id\",\"Counter_Name\",\"Counter_Value\"\n1,\"TCC_HIT\",3\n",
                  "counter_collection.csv");
  ASSERT_FALSE(rocprof.ok());
  EXPECT_EQ(rocprof.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rocprof.status().message().find(
                "counter_collection.csv: not an Nsight Compute CSV (none of its 2 lines"),
            std::string::npos)
      << rocprof.status().ToString();
  EXPECT_FALSE(ParseNcuCsv("", "empty.csv").ok());
  // An "ID" header without metric columns (another tool's table).
  EXPECT_FALSE(ParseNcuCsv("\"ID\",\"Name\"\n\"1\",\"x\"\n", "other.csv").ok());
}

TEST(NcuMetricsTest, DirectoryPoolsItsNcuCsvsAndPassesOverOthers) {
  const std::string dir = ::testing::TempDir() + "/ncu-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/node-a");
  EXPECT_EQ(ReadNcuCsv(dir).status().code(), StatusCode::kNotFound);
  std::ofstream(dir + "/node-a/ncu.csv")
      << std::string(kDetailsHeader) + Row(0, kLongScoreboard, "%", "20");
  std::ofstream(dir + "/ncu-2.csv")
      << std::string(kDetailsHeader) + Row(0, kLongScoreboard, "%", "40", "99");
  std::ofstream(dir + "/node-a/nvidia-smi.csv") << "index, utilization.gpu [%]\n0, 93 %\n";
  auto s = ReadNcuCsv(dir);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->files, 2);
  EXPECT_EQ(s->kernels, 2);
  ASSERT_TRUE(s->MemoryStallRatio().has_value());
  EXPECT_NEAR(*s->MemoryStallRatio(), 0.3, 1e-12);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpufleet::collect
