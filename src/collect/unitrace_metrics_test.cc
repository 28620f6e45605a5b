#include "collect/unitrace_metrics.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace gpufleet::collect {
namespace {

// Reports in unitrace's layout (banner, NAME[unit] header, quoted kernel
// names with commas inside); the values are written here. The column names
// are those of the ComputeBasic and VectorEngineStalls groups on Xe GPUs.
constexpr char kComputeBasic[] =
    "[app] step 12 loss 0.731\n"
    "\n"
    "=== Device #0 Metrics ===\n"
    "\n"
    "Kernel,GlobalInstanceId,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%],XVE_STALL[%],"
    "L3_HIT[events],L3_MISS[events],L3_READ[events],GPU_MEMORY_BYTE_READ[bytes]\n"
    "\"gemm<float, 3>[SIMD16 {4096; 1; 1} {16; 1; 1}]\",1,0,7708,61.5,30.2,7000,3000,9800,"
    "640000\n"
    "\"copy[SIMD32 {1024; 1; 1} {32; 1; 1}]\",2,0,2000,20.0,70.0,1000,9000,9900,1280000\n";

TEST(UnitraceMetricsTest, L3MissRatioIsMissesOverLookupsOfEveryInstance) {
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(kComputeBasic, "cb.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->sections, 1);
  EXPECT_EQ(s->rows, 2);
  EXPECT_EQ(s->bad_rows, 0);
  // (3000 + 9000) / (7000 + 3000 + 1000 + 9000): the kernel name's commas
  // do not shift the columns.
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 0.6);
  // XVE_STALL counts every stall, so it is not a memory stall.
  EXPECT_FALSE(s->MemoryStallRatio().has_value());
}

// Data Center GPU Max's ComputeBasic counts no L3 lookups (its metric list
// in unitrace's docs: L3_BYTE_READ/WRITE, GPU_MEMORY_BYTE_READ/WRITE,
// XVE_STALL, ...): the bytes read from memory over those read from L3
// stand in, at most 1; a row with a bad byte count is counted, not used.
TEST(UnitraceMetricsTest, WithoutLookupsMemoryReadBytesOverL3ReadBytes) {
  const std::string report =
      "=== Device #0 Metrics ===\n"
      "Kernel,GlobalInstanceId,GpuTime[ns],XVE_ACTIVE[%],XVE_STALL[%],L3_BYTE_READ[bytes],"
      "L3_BYTE_WRITE[bytes],GPU_MEMORY_BYTE_READ[bytes],GPU_MEMORY_BYTE_WRITE[bytes]\n"
      "\"main::{lambda(auto:1)#4}[SIMD32 {4096; 1; 1} {256; 1; 1}]\",1,5000,80.1,12.5,1000,64,"
      "250,64\n"
      "\"stream_copy\",2,9000,40.0,55.0,3000,3000,500,2900\n"
      "\"broken\",3,100,1.0,1.0,n/a,0,0,0\n";
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(report, "pvc.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->rows, 2);
  EXPECT_EQ(s->bad_rows, 1);
  EXPECT_EQ(s->first_bad, "pvc.log:5: a metric value is not a non-negative number");
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 750.0 / 4000.0);
  EXPECT_FALSE(s->MemoryStallRatio().has_value());  // XVE_STALL is every stall

  // Memory reads beyond L3 reads (prefetch, uncached reads): at most 1.
  StatusOr<UnitraceMetricSummary> over = ParseUnitraceMetrics(
      "=== Device #0 Metrics "
      "===\nKernel,L3_BYTE_READ[bytes],GPU_MEMORY_BYTE_READ[bytes]\nk,10,40\n",
      "over.log");
  ASSERT_TRUE(over.ok()) << over.status().ToString();
  EXPECT_DOUBLE_EQ(*over->L2MissRatio(), 1.0);
}

// VectorEngineStalls: SBID + SENDWR, weighted by GpuTime; a padded header as
// unitrace right-aligns it; two devices' sections pooled.
TEST(UnitraceMetricsTest, MemoryStallIsSbidPlusSendWeightedByGpuTime) {
  const std::string report =
      "=== Device #0 Metrics ===\n"
      "                    Kernel, GlobalInstanceId, GpuTime[ns], XVE_STALL_ALUWR[%], "
      "XVE_STALL_SBID[%], XVE_STALL_SENDWR[%], XVE_STALL_BARRIER[%]\n"
      "\"gemm_kernel\", 1, 3000, 1.0, 30.0, 10.0, 2.0\n"
      "=== Device #1 Metrics ===\n"
      "Kernel,GlobalInstanceId,GpuTime[ns],XVE_STALL_SBID[%],XVE_STALL_SENDWR[%]\n"
      "\"reduce<int, 2>\",2,1000,50.0,30.0\n";
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(report, "vs.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->sections, 2);
  // (0.40 x 3000 + 0.80 x 1000) / 4000.
  EXPECT_DOUBLE_EQ(*s->MemoryStallRatio(), 0.5);
  EXPECT_FALSE(s->L2MissRatio().has_value());
}

TEST(UnitraceMetricsTest, EachInstanceCountsOnceWhenOneLacksGpuTime) {
  const std::string report =
      "=== Device #0 Metrics ===\n"
      "Kernel,GlobalInstanceId,XVE_STALL_SBID[%],XVE_STALL_SENDWR[%]\n"
      "a,1,20,0\n"
      "b,2,40,20\n";
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(report, "x.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->durations_complete);
  EXPECT_DOUBLE_EQ(*s->MemoryStallRatio(), 0.4);
}

// --stall-sampling: one row per instruction address, counts per reason.
TEST(UnitraceMetricsTest, StallSamplingGivesSbidAndSendOverAllSamples) {
  const std::string report =
      "=== Device #0 Metrics ===\n"
      "Kernel, IP[Address], Active[Events], PSDepStall[Events], ControlStall[Events], "
      "PipeStall[Events], SendStall[Events], DistStall[Events], SbidStall[Events], "
      "SyncStall[Events], InstrFetchStall[Events], OtherStall[Events]\n"
      "\"gemm_kernel\", c0, 10, 0, 0, 5, 20, 0, 40, 5, 0, 0\n"
      "\"gemm_kernel\", d8, 15, 0, 0, 0, 0, 0, 5, 0, 0, 0\n";
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(report, "ss.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // (20 + 40 + 5) / 100 samples.
  EXPECT_DOUBLE_EQ(*s->MemoryStallRatio(), 0.65);
}

TEST(UnitraceMetricsTest, BadRowsAreCountedAndOtherTextRefused) {
  const std::string report =
      "=== Device #0 Metrics ===\n"
      "Kernel,GlobalInstanceId,L3_HIT[events],L3_MISS[events]\n"
      "good,1,50,50\n"
      "short,2\n"
      "negative,3,-1,4\n"
      "nan,4,nan,4\n";
  StatusOr<UnitraceMetricSummary> s = ParseUnitraceMetrics(report, "bad.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->rows, 1);
  EXPECT_EQ(s->bad_rows, 3);
  EXPECT_EQ(s->first_bad, "bad.log:4: 2 fields, the header has 4");
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 0.5);

  StatusOr<UnitraceMetricSummary> other =
      ParseUnitraceMetrics("Kernel,GpuTime[ns]\nk,12\n", "plain.csv");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("plain.csv: not a unitrace metric report"),
            std::string::npos);
  // A banner with something else under it is not a section either.
  EXPECT_FALSE(ParseUnitraceMetrics("=== Device #0 Metrics ===\nhello\n", "h.log").ok());
}

TEST(UnitraceMetricsTest, FoldersPoolReportsAndPassOverOtherFiles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpufleet_unitrace_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "rank1");
  std::ofstream(dir / "rank0.log") << kComputeBasic;
  std::ofstream(dir / "rank1" / "metrics.txt")
      << "=== Device #0 Metrics ===\nKernel,L3_HIT[events],L3_MISS[events]\nk,0,20000\n";
  std::ofstream(dir / "notes.log") << "the job's own log\n";
  std::ofstream(dir / "trace.json") << "{}";
  StatusOr<UnitraceMetricSummary> s = ReadUnitraceMetrics(dir.string());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->files, 2);
  EXPECT_DOUBLE_EQ(*s->L2MissRatio(), 32000.0 / 40000.0);
  std::filesystem::remove_all(dir / "rank1");
  std::filesystem::remove(dir / "rank0.log");
  StatusOr<UnitraceMetricSummary> none = ReadUnitraceMetrics(dir.string());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpufleet::collect
