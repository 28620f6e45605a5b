#include "cost/cost_metrics.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cost/cost_test_util.h"

namespace gpufleet::cost {
namespace {

double ValueOf(const std::string& text, const std::string& series_prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series_prefix, 0) == 0) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  ADD_FAILURE() << "no " << series_prefix << " in\n" << text;
  return -1;
}

// Two H100s at a negotiated $6/h with tensor activity 0.5 and 0.25 deliver
// (0.5 + 0.25) x the H100's peak bf16 PFLOP/s: $12/h over that. A device
// nobody can price is left out.
TEST(CostMetricsTest, PricesAndEffectiveComputeCost) {
  PriceBook book = NegotiatedBook("n6-*", 6.0);
  std::vector<MeteredDevice> devices(3);
  for (int i = 0; i < 3; ++i) {
    devices[i].id = i + 1;
    devices[i].node = i < 2 ? "n6-a" : "mystery";
    devices[i].gpu_uuid = "GPU-" + std::to_string(i);
    devices[i].key = devices[i].node + "/" + std::to_string(i);
    devices[i].model = i < 2 ? "h100-sxm" : "gpu-from-the-future";
    devices[i].cloud = "aws";
    devices[i].region = "us-east-1";
  }
  std::string text =
      RenderCostMetrics(devices, book, {{"n6-a/0", 0.5}, {"n6-a/1", 0.25}, {"mystery/2", 0.9}});
  EXPECT_DOUBLE_EQ(
      ValueOf(text, "gpufleet_cost_device_usd_per_hour{cloud=\"aws\",gpu_uuid=\"GPU-0\""), 6.0);
  EXPECT_EQ(text.find("GPU-2"), std::string::npos) << text;
  const double peak_pflops = HardwareCatalog::Default().Find("h100-sxm")->peak_bf16_flops / 1e15;
  EXPECT_NEAR(ValueOf(text, "gpufleet_cost_usd_per_effective_pflop_hour{cloud=\"aws\""),
              12.0 / (peak_pflops * 0.75), 1e-9);
}

}  // namespace
}  // namespace gpufleet::cost
