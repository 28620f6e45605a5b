#include "canary/magnitude.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"
#include "core/strings.h"

namespace gpufleet::canary {
namespace {

TEST(MagnitudeTest, BoundsPerBenchmarkKind) {
  const HardwareCatalog& cat = HardwareCatalog::Default();
  std::optional<PeakBound> stream = PeakFor(cat, "h200-sxm", "stream.triad", "bytes_per_second");
  ASSERT_TRUE(stream.has_value());
  EXPECT_DOUBLE_EQ(stream->peak, 4.8e12);
  std::optional<PeakBound> gemm = PeakFor(cat, "h100-sxm", "gemm.bf16", "flop_per_second");
  ASSERT_TRUE(gemm.has_value());
  EXPECT_NEAR(gemm->peak, 989.4e12, 1e9);
  std::optional<PeakBound> busbw =
      PeakFor(cat, "h100-sxm", "nccl.all_reduce.busbw@8589934592", "bytes_per_second");
  ASSERT_TRUE(busbw.has_value());
  EXPECT_FALSE(busbw->check_low);
  EXPECT_TRUE(CheckMagnitude(*busbw, 338.82e9).ok());    // the real 16xH100 figure
  EXPECT_FALSE(CheckMagnitude(*busbw, 338.82e12).ok());  // GB/s read as MB/s
  EXPECT_FALSE(PeakFor(cat, "TITAN Xp", "stream.triad", "bytes_per_second").has_value());
  EXPECT_FALSE(PeakFor(cat, "h100-sxm", "dcgm.memory", "pass").has_value());
}

// The DCGM SKU table (excerpt of ../shared/fixtures/canary) states
// memory_bandwidth minimums in MB/s; the H200 row holds 2333 where 3110000 x
// 0.75 was meant. Loaded as a floor, the H100 row passes the check and the
// H200 row is caught.
TEST(MagnitudeTest, CatchesDcgmH200ThresholdUnitSlip) {
  std::string csv = ReadCanaryData("dcgm_diag_sku_thresholds_excerpt.csv");
  std::vector<std::string_view> lines = SplitString(csv, '\n');
  ASSERT_GE(lines.size(), 3u);
  const HardwareCatalog& cat = HardwareCatalog::Default();
  int checked = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string_view> f = SplitString(lines[i], ',');
    if (f.size() < 6) continue;
    std::string model = f[0] == "H200" ? "h200-sxm" : "h100-sxm";
    double min_bytes_per_s = *ParseDouble(f[5]) * 1e6;
    std::optional<PeakBound> b = PeakFor(cat, model, "stream.triad", "bytes_per_second");
    ASSERT_TRUE(b.has_value());
    Status st = CheckMagnitude(*b, min_bytes_per_s);
    if (f[0] == "H200") {
      EXPECT_FALSE(st.ok()) << "2333 MB/s on an H200 must be flagged";
      EXPECT_NE(st.message().find("1000x"), std::string::npos) << st.message();
    } else {
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace gpufleet::canary
