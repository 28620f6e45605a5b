#include "cost/price_book.h"

#include <gtest/gtest.h>

namespace gpufleet::cost {
namespace {

const CloudOffer* Offer(std::string_view cloud, std::string_view region, std::string_view type) {
  for (const CloudOffer& o : PriceCatalog::Default().offers()) {
    if (o.cloud == cloud && o.region == region && o.instance_type == type) return &o;
  }
  return nullptr;
}

// The embedded catalog names only models of the hardware catalog. By default
// a GPU carries its share of the whole instance price; with the host split
// enabled, a p5.48xlarge (8 x H100, 192 vCPUs, 2,048 GiB) at price P costs
// (P - 192 x 0.031611 - 2048 x 0.004237) / 8 per GPU-hour.
TEST(PriceCatalogTest, InstancePriceLessHostPerGpu) {
  const CloudOffer* o = Offer("aws", "us-east-1", "p5.48xlarge");
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE(o->on_demand_usd_per_hour.has_value());
  EXPECT_EQ(o->gpu, "h100-sxm");
  EXPECT_EQ(o->gpu_count, 8);
  StatusOr<GpuHourPrice> whole = PriceCatalog::PerGpuHour(*o, false, HostSplitRates());
  ASSERT_TRUE(whole.ok());
  EXPECT_NEAR(whole->usd_per_gpu_hour, *o->on_demand_usd_per_hour / 8, 1e-9);
  HostSplitRates split;
  split.enabled = true;
  StatusOr<GpuHourPrice> p = PriceCatalog::PerGpuHour(*o, false, split);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->usd_per_gpu_hour,
              (*o->on_demand_usd_per_hour - 192 * 0.031611 - 2048 * 0.004237) / 8, 1e-9);
  EXPECT_NE(p->basis.find("less host"), std::string::npos) << p->basis;
}

// GCP rows price the accelerators alone: no host to split off.
TEST(PriceCatalogTest, GcpAcceleratorRowsAreGpuOnly) {
  std::vector<const CloudOffer*> offers =
      PriceCatalog::Default().Find("gcp", "us-central1", "h100-sxm");
  ASSERT_FALSE(offers.empty());
  const CloudOffer& o = *offers.front();
  EXPECT_TRUE(o.accelerator_only);
  StatusOr<GpuHourPrice> p = PriceCatalog::PerGpuHour(o, false, HostSplitRates());
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->usd_per_gpu_hour, *o.on_demand_usd_per_hour / o.gpu_count, 1e-9);
}

TEST(PriceCatalogTest, BadOfferNamesFileLineAndField) {
  StatusOr<PriceCatalog> c = PriceCatalog::Parse(R"(snapshot = "t"

[[offer]]
cloud = "aws"
region = "r"
instance_type = "x"
gpu = "h100-sxmm"
gpu_count = 8
scope = "instance"
on_demand = 1
)",
                                                 "prices.toml", HardwareCatalog::Default());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("prices.toml:7"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("offer[0].gpu"), std::string::npos);
}

TEST(PriceBookTest, SiteRulesWinInOrder) {
  StatusOr<PriceBook> b = PriceBook::Parse(R"(
[teams]
serving = "product"

[[node]]
match = "aws-h100-*"
pricing = "committed"
discount = 0.4

[[node]]
match = "azure-mi300x-*"
pricing = "negotiated"
usd_per_gpu_hour = 6.0
source = "Azure EA quote"
date = "2026-11-01"

[[node]]
match = "onprem-*"
pricing = "onprem"
capital_usd_per_gpu = 17532
depreciation_years = 4
overhead_usd_per_gpu_hour = 0.1
usd_per_kwh = 0.12
)",
                                           "site.toml");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->teams().size(), 1u);

  StatusOr<DevicePrice> aws =
      b->Resolve({"aws-h100-0", "aws", "us-east-1", "NVIDIA H100 80GB HBM3"});
  ASSERT_TRUE(aws.ok()) << aws.status().ToString();
  StatusOr<DevicePrice> list = PriceBook().Resolve({"aws-h100-0", "aws", "us-east-1", "h100-sxm"});
  ASSERT_TRUE(list.ok());
  EXPECT_NEAR(aws->usd_per_gpu_hour, list->usd_per_gpu_hour * 0.6, 1e-9);
  EXPECT_EQ(aws->pricing, Pricing::kCommitted);
  EXPECT_EQ(aws->instance_type, "p5.48xlarge");  // the largest H100 offer there

  StatusOr<DevicePrice> az = b->Resolve({"azure-mi300x-0", "azure", "eastus", "mi300x"});
  ASSERT_TRUE(az.ok());
  EXPECT_DOUBLE_EQ(az->usd_per_gpu_hour, 6.0);
  EXPECT_EQ(az->source, "Azure EA quote");
  EXPECT_EQ(az->date, "2026-11-01");

  // $17,532 / (4 x 8,766 h) = $0.50/h, + $0.10 overhead.
  StatusOr<DevicePrice> op = b->Resolve({"onprem-1", "onprem", "dc", "max-1550"});
  ASSERT_TRUE(op.ok());
  EXPECT_NEAR(op->usd_per_gpu_hour, 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(op->usd_per_kwh, 0.12);
}

TEST(PriceBookTest, UnpriceableDeviceNamesItself) {
  StatusOr<DevicePrice> p = PriceBook().Resolve({"azure-mi300x-0", "azure", "eastus", "mi300x"});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("azure-mi300x-0"), std::string::npos);
  EXPECT_NE(p.status().message().find("[[node]]"), std::string::npos);
}

TEST(PriceBookTest, BadRulesNameFileLineAndField) {
  struct Case {
    const char* toml;
    const char* want;
  } cases[] = {
      {"[[node]]\ncloud = \"aws\"\nregion = \"us-east-99\"\n",
       "site.toml:3: field 'node[0].region'"},
      {"[[node]]\ncloud = \"aws\"\ninstance_type = \"p9.huge\"\n", "field 'node[0].instance_type'"},
      {"[[node]]\ncloud = \"nimbus\"\n", "field 'node[0].cloud'"},
      {"\n[[node]]\ngpu = \"h100-sxmm\"\n", "site.toml:3: field 'node[0].gpu'"},
      {"[[node]]\npricing = \"negotiated\"\n", "missing field 'node[0].usd_per_gpu_hour'"},
      {"[[node]]\nusd_per_gpu_hour = 3.0\n", "needs 'source'"},
      {"[[node]]\npricing = \"onprem\"\n", "capital_usd_per_gpu"},
      {"[[node]]\npricing = \"reserved\"\n", "field 'node[0].pricing'"},
      {"[teams]\nresearch = 3\n", "field 'teams.research'"},
  };
  for (const Case& c : cases) {
    StatusOr<PriceBook> b = PriceBook::Parse(c.toml, "site.toml");
    ASSERT_FALSE(b.ok()) << c.toml;
    EXPECT_NE(b.status().message().find(c.want), std::string::npos)
        << b.status().message() << " / want " << c.want;
  }
}

}  // namespace
}  // namespace gpufleet::cost
