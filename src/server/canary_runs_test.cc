#include "server/canary_runs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace gpufleet {
namespace {

using nlohmann::json;

class CanaryRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("gpufleet_canary_runs_" + std::to_string(getpid()) + ".db"))
                .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
    auto db = StateDb::Open(path_, CanaryRunMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    runs_ = std::make_unique<CanaryRuns>(db_.get());
  }
  void TearDown() override {
    runs_.reset();
    db_.reset();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
  }
  std::string path_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<CanaryRuns> runs_;
};

TEST_F(CanaryRunsTest, KeepsPassesAndFailuresNewestFirst) {
  ASSERT_TRUE(runs_
                  ->Record(R"({"node":"n1","image":"img:1","checks":[
      {"target":"model=h100","benchmark":"gemm.bf16","unit":"flop_per_second","verdict":"pass",
       "median":7.0e14,"baseline_median":7.0e14,"reason":"within noise"}]})",
                           1'000'000'000'000'000'000)
                  .ok());
  ASSERT_TRUE(runs_
                  ->Record(R"({"node":"n2","checks":[
      {"target":"model=mi300x","benchmark":"stream.triad","verdict":"regression",
       "median":4.0e12,"baseline_median":5.0e12,"reason":"20% slower"},
      {"target":"model=mi300x","benchmark":"nccl","verdict":"inconclusive","median":1}]})",
                           2'000'000'000'000'000'000)
                  .ok());
  ASSERT_TRUE(runs_
                  ->Record(R"({"node":"n3","checks":[{"benchmark":"x","verdict":"no baseline"}]})",
                           3'000'000'000'000'000'000)
                  .ok());
  json all = json::parse(*runs_->ListJson("", 50));
  ASSERT_EQ(all["runs"].size(), 3u);
  EXPECT_EQ(all["runs"][0]["verdict"], "warn");
  EXPECT_EQ(all["runs"][1]["verdict"], "fail");
  EXPECT_EQ(all["runs"][2]["verdict"], "pass");
  EXPECT_EQ(all["runs"][2]["image"], "img:1");
  EXPECT_DOUBLE_EQ(all["runs"][2]["started"].get<double>(), 1e9);
  const json& c = all["runs"][1]["checks"][0];
  EXPECT_EQ(c["name"], "stream.triad");
  EXPECT_DOUBLE_EQ(c["delta_ratio"].get<double>(), -0.2);
  EXPECT_EQ(c["message"], "20% slower");
  EXPECT_TRUE(all["runs"][1]["checks"][1]["baseline"].is_null());
  EXPECT_TRUE(all["runs"][1]["checks"][1]["delta_ratio"].is_null());

  json by_node = json::parse(*runs_->ListJson("n1", 50));
  ASSERT_EQ(by_node["runs"].size(), 1u);
  json by_target = json::parse(*runs_->ListJson("model=mi300x", 50));
  ASSERT_EQ(by_target["runs"].size(), 1u);
  EXPECT_EQ(by_target["runs"][0]["target"], "n2");
  EXPECT_EQ(json::parse(*runs_->ListJson("model=mi300", 50))["runs"].size(), 0u);
  EXPECT_EQ(json::parse(*runs_->ListJson("", 1))["runs"].size(), 1u);

  // A newer run of n1: each node's newest only, newest first, n1's old one
  // left out; with a target too.
  ASSERT_TRUE(runs_
                  ->Record(R"({"node":"n1","checks":[{"benchmark":"y","verdict":"pass"}]})",
                           4'000'000'000'000'000'000)
                  .ok());
  json latest = json::parse(*runs_->ListJson("", 50, /*latest_per_node=*/true));
  ASSERT_EQ(latest["runs"].size(), 3u);
  EXPECT_EQ(latest["runs"][0]["target"], "n1");
  EXPECT_EQ(latest["runs"][0]["checks"][0]["name"], "y");
  EXPECT_EQ(latest["runs"][1]["target"], "n3");
  EXPECT_EQ(latest["runs"][2]["target"], "n2");
  EXPECT_EQ(json::parse(*runs_->ListJson("n1", 50, true))["runs"].size(), 1u);
  EXPECT_EQ(json::parse(*runs_->ListJson("n1", 50))["runs"].size(), 2u);
}

TEST_F(CanaryRunsTest, RejectsWhatIsNotAPush) {
  EXPECT_FALSE(runs_->Record("not json", 1).ok());
  EXPECT_FALSE(runs_->Record(R"({"node":"n1"})", 1).ok());
  EXPECT_EQ(json::parse(*runs_->ListJson("", 50))["runs"].size(), 0u);
}

}  // namespace
}  // namespace gpufleet
