#include "collect/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace gpufleet {
namespace {

constexpr char kNodes[] = R"(name = "t"
[[node]]
name = "n0"
cloud = "aws"
gpus = [{ model = "h100-sxm", count = 2 }]

[[node]]
name = "n1"
gpus = [{ model = "max-1550", count = 1, partitions = { kind = "intel_tile", count = 2 } }]
)";

// Parses kNodes + `tail` and returns the error message ("" on success).
std::string ErrorOf(const std::string& tail) {
  StatusOr<Scenario> s = ParseScenario(std::string(kNodes) + tail, "s.toml");
  return s.ok() ? "" : s.status().message();
}

TEST(ScenarioTest, DefaultScenarioHasAMixedFleet) {
  StatusOr<Scenario> s = LoadScenario("default");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->nodes.size(), 3u);
  bool vendors[4] = {};
  std::set<std::string> clouds;
  for (const ScenarioNode& n : s->nodes) {
    clouds.insert(n.cloud);
    for (const ScenarioGpu& g : n.gpus) vendors[static_cast<int>(g.spec->vendor)] = true;
  }
  EXPECT_TRUE(vendors[static_cast<int>(Vendor::kNvidia)]);
  EXPECT_TRUE(vendors[static_cast<int>(Vendor::kAmd)]);
  EXPECT_TRUE(vendors[static_cast<int>(Vendor::kIntel)]);
  EXPECT_GE(clouds.size(), 2u);
  EXPECT_GE(s->workloads.size(), 3u);
  bool contention = false, fault = false;
  for (const ScenarioEpisode& e : s->episodes) {
    contention |= e.kind == EpisodeKind::kMemoryContention;
    fault |= e.kind == EpisodeKind::kGpuLost || e.kind == EpisodeKind::kXid;
  }
  EXPECT_TRUE(contention);
  EXPECT_TRUE(fault);
  EXPECT_EQ(s->seed, 42u);
}

TEST(ScenarioTest, ParsesNodesWorkloadsAndEpisodes) {
  StatusOr<Scenario> s = ParseScenario(std::string(kNodes) + R"(
[[workload]]
id = "w"
kind = "inference"
node = "n1"
gpus = [0]
partitions = [1]
start_s = 10
duration_s = 20
load = { sm_activity = 0.5, memory_gib = 8 }

[[episode]]
kind = "ecc"
node = "n0"
gpus = [1]
severity = "uncorrected"
magnitude = 3
)",
                                       "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->nodes[1].gpus.size(), 1u);
  EXPECT_EQ(s->nodes[1].gpus[0].partition_count(), 2u);
  EXPECT_EQ(s->nodes[0].gpus[0].power_limit_watts, 700);
  const ScenarioWorkload& w = s->workloads[0];
  EXPECT_EQ(w.kind, WorkloadKind::kInference);
  EXPECT_EQ(w.node, 1u);
  EXPECT_EQ(w.partitions, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(w.end_s, 30);
  EXPECT_EQ(w.load.memory_bytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(w.load.memory_bandwidth, LoadProfile{}.memory_bandwidth);
  EXPECT_GT(w.pid, 0);
  const ScenarioEpisode& e = s->episodes[0];
  EXPECT_EQ(e.kind, EpisodeKind::kEcc);
  EXPECT_TRUE(e.uncorrected);
  EXPECT_TRUE(e.Targets(0, 1));
  EXPECT_FALSE(e.Targets(0, 0));
}

TEST(ScenarioTest, ErrorsNameFileLineAndField) {
  // Line numbers count from the first line of kNodes (10 lines + tail).
  std::string msg = ErrorOf("\n[[workload]]\nid = \"w\"\nnode = \"n0\"\ngpus = [0, 7]\n");
  EXPECT_NE(msg.find("s.toml:14"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPU index 7"), std::string::npos) << msg;

  msg = ErrorOf("\n[[node]]\nname = \"n2\"\ngpus = [{ model = \"h900\" }]\n");
  EXPECT_NE(msg.find("s.toml:13"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown GPU model 'h900'"), std::string::npos) << msg;
}

TEST(ScenarioTest, RejectsInconsistentScenarios) {
  const std::string w = "\n[[workload]]\nid = \"a\"\nnode = \"n0\"\ngpus = [0]\n";
  EXPECT_NE(ErrorOf(w + w).find("duplicate workload id 'a'"), std::string::npos);
  EXPECT_NE(ErrorOf("\n[[node]]\nname = \"n0\"\ngpus = [{ model = \"l4\" }]\n")
                .find("duplicate node name"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("\n[[workload]]\nid = \"a\"\nnode = \"nx\"\ngpus = [0]\n").find("unknown node 'nx'"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf("\n[[workload]]\nid = \"a\"\nnode = \"n0\"\ngpu = [0]\n").find("unknown field 'gpu'"),
      std::string::npos);
  EXPECT_NE(ErrorOf(w + "load = { sm_activity = 1.5 }\n").find("'sm_activity'"), std::string::npos);
  EXPECT_NE(ErrorOf(w + "load = { memory_gib = 200 }\n").find("exceeds"), std::string::npos);
  EXPECT_NE(ErrorOf(w + "partitions = [0]\n").find("partition 0 does not exist"),
            std::string::npos);
  EXPECT_NE(ErrorOf("\n[[episode]]\nkind = \"meltdown\"\nnode = \"n0\"\n")
                .find("unknown episode kind 'meltdown'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("\n[[episode]]\nkind = \"hang\"\nnode = \"n0\"\ncode = 3\n")
                .find("'code' applies only"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("\n[[node]]\nname = \"n2\"\n"
              "gpus = [{ model = \"h100-sxm\", partitions = { kind = \"amd_xcp\", count = 2 } }]\n")
          .find("do not exist on"),
      std::string::npos);
  EXPECT_NE(ErrorOf("\n[[node]]\nname = \"n2\"\ngpus = [{ model = \"h100-sxm\", "
                    "power_limit_watts = 2000 }]\n")
                .find("power_limit_watts"),
            std::string::npos);
  // Syntax errors keep toml++'s line:column.
  StatusOr<Scenario> bad = ParseScenario("[[node]\nname=", "x.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.toml:1"), std::string::npos);
  EXPECT_FALSE(ParseScenario("name = \"empty\"\n", "e.toml").ok());
}

TEST(ScenarioTest, MissingFileIsNotFound) {
  StatusOr<Scenario> s = LoadScenario("/nonexistent/scenario.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

TEST(ScenarioTest, EveryShippedScenarioLoads) {
  const std::filesystem::path dir = std::filesystem::path(GPUFLEET_SOURCE_DIR) / "data/scenarios";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    StatusOr<Scenario> s = LoadScenario(entry.path().string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_FALSE(s->nodes.empty()) << entry.path();
    if (entry.path().filename() == "footprint_8gpu.toml") {
      // bench/agent_footprint.py measures the issue's goal on exactly 8 GPUs.
      ASSERT_EQ(s->nodes.size(), 1u);
      EXPECT_EQ(s->nodes[0].gpus.size(), 8u);
      EXPECT_TRUE(s->episodes.empty()) << "every cycle must do the same work";
    }
  }
  EXPECT_GE(files, 2);
}

}  // namespace
}  // namespace gpufleet
