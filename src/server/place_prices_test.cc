#include "server/place_prices.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(PlacePricesTest, NodesArePricedFromThePriceBookWithSource) {
  place::PriceLookup lookup = PriceBookLookup(std::make_shared<const cost::PriceBook>());
  place::NodeSpec h100;
  h100.name = "gcp-a3-h100-01";
  h100.gpu_model = "H100-SXM";  // the inventory's spelling of catalog key h100-sxm
  h100.cloud = "gcp";
  h100.region = "us-central1";
  h100.price_usd_per_gpu_hour = 99;  // ignored: the catalog knows this offer
  StatusOr<place::GpuHourQuote> q = lookup(h100);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_GT(q->usd_per_gpu_hour, 0);
  EXPECT_NE(q->usd_per_gpu_hour, 99);
  EXPECT_NE(q->source.find("cloud_gpu_prices.toml"), std::string::npos) << q->source;
  EXPECT_FALSE(q->date.empty());

  place::NodeSpec odd = h100;
  odd.gpu_model = "A";  // not in data/hardware.toml: the inventory's price, said so
  odd.price_usd_per_gpu_hour = 3;
  q = lookup(odd);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->usd_per_gpu_hour, 3);
  EXPECT_EQ(q->source, "inventory price_usd_per_gpu_hour");
  odd.price_usd_per_gpu_hour = 0;
  EXPECT_FALSE(lookup(odd).ok());
}

TEST(PlacePricesTest, GavelWorkersFromTheCatalogOrTheFlags) {
  // The public snapshot has GCP's P100 in us-central1 but no K80 (left out
  // of data/prices: not in data/hardware.toml's offers) and no GCP V100 row.
  GavelWorkerPrices p = PriceGavelWorkers(cost::PriceBook(), {"k80", "p100", "v100"}, "gcp",
                                          "us-central1", {0.52, 1.68, 2.85});
  ASSERT_EQ(p.usd_per_gpu_hour.size(), 3u);
  EXPECT_EQ(p.usd_per_gpu_hour[0], 0.52);
  EXPECT_EQ(p.sources[0].rfind("--prices", 0), 0u) << p.sources[0];
  EXPECT_NE(p.usd_per_gpu_hour[1], 1.68);
  EXPECT_NE(p.sources[1].find("cloud_gpu_prices.toml"), std::string::npos) << p.sources[1];
}

}  // namespace
}  // namespace gpufleet
