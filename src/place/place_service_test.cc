#include "place/place_service.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace gpufleet::place {
namespace {

const std::string kInventory = std::string(GPUFLEET_SOURCE_DIR) + "/data/place/inventory.toml";

TEST(PlaceServiceTest, AnswersAJsonRequestWithTheDecision) {
  StatusOr<std::unique_ptr<PlaceService>> svc = PlaceService::Create(kInventory, "gpufleet");
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  PlaceReply r = (*svc)->Place(R"({"name": "train", "cpu": 32, "memory": "256Gi", "gpus": 4,
      "vendor": "nvidia", "min_gpu_memory": "80Gi", "software": {"cuda": "12.4"}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  nlohmann::json j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["placed"], true);
  EXPECT_EQ(j["node"], "gcp-a3-h100-01");
  EXPECT_EQ(j["gpus"], nlohmann::json::array({0, 1, 2, 3}));
  EXPECT_EQ(j["policy"], "gpufleet");
  EXPECT_EQ(j["rejections"].size(), 5u);
}

TEST(PlaceServiceTest, BadRequestsAre400WithTheField) {
  StatusOr<std::unique_ptr<PlaceService>> svc = PlaceService::Create(kInventory, "fgd");
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  PlaceReply r = (*svc)->Place(R"({"gpus": "two"})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"], "request: gpus: must be an integer 0..32");
  EXPECT_EQ((*svc)->Place("not json").http_status, 400);
}

TEST(PlaceServiceTest, CreateChecksPolicyAndInventory) {
  StatusOr<std::unique_ptr<PlaceService>> bad = PlaceService::Create(kInventory, "fgdd");
  EXPECT_FALSE(bad.ok());
  bad = PlaceService::Create("/nonexistent/inventory.toml", "fgd");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/nonexistent/inventory.toml"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace gpufleet::place
