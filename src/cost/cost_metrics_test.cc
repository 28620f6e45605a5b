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

// The forwarded samples carry what /metrics shows, at the given time; an
// on-premises device adds its energy price, a cloud device does not.
TEST(CostMetricsTest, PriceSeriesForTheStore) {
  StatusOr<PriceBook> book = PriceBook::Parse(
      "[[node]]\nmatch = \"cloud-*\"\npricing = \"negotiated\"\nusd_per_gpu_hour = 4.0\n"
      "source = \"test\"\ndate = \"2026-12-01\"\n"
      "[[node]]\nmatch = \"dc-*\"\npricing = \"onprem\"\ncapital_usd_per_gpu = 35064\n"
      "depreciation_years = 4\nusd_per_kwh = 0.12\nsource = \"test\"\ndate = \"2026-12-01\"\n",
      "site.toml");
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  std::vector<MeteredDevice> devices(2);
  devices[0].node = "cloud-a";
  devices[1].node = "dc-b";
  for (int i = 0; i < 2; ++i) {
    devices[i].gpu_uuid = "GPU-" + std::to_string(i);
    devices[i].model = "h100-sxm";
    devices[i].key = devices[i].node + "/0";
  }
  std::vector<RemoteWriteSeries> series = DevicePriceSeries(devices, *book, 1'764'547'200'000);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].labels.Get("__name__"), "gpufleet_cost_device_usd_per_hour");
  EXPECT_EQ(series[0].labels.Get("node"), "cloud-a");
  EXPECT_DOUBLE_EQ(series[0].samples.at(0).value, 4.0);
  EXPECT_EQ(series[0].samples[0].timestamp_ms, 1'764'547'200'000);
  // $35,064 over 4 years of 8,766 hours (365.25 days): $1/h.
  EXPECT_EQ(series[1].labels.Get("node"), "dc-b");
  EXPECT_NEAR(series[1].samples.at(0).value, 1.0, 1e-9);
  EXPECT_EQ(series[2].labels.Get("__name__"), "gpufleet_cost_device_usd_per_kwh");
  EXPECT_DOUBLE_EQ(series[2].samples.at(0).value, 0.12);
  std::string text = RenderCostMetrics(devices, *book, {});
  EXPECT_DOUBLE_EQ(ValueOf(text, "gpufleet_cost_device_usd_per_kwh{"), 0.12);
}

}  // namespace
}  // namespace gpufleet::cost
