#include "place/spec_file.h"

#include <gtest/gtest.h>

#include <string>

namespace gpufleet::place {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/data/place/" + name;
}

// The error of a parse that must fail; fails the test when it succeeds.
template <typename T>
std::string ErrorOf(const StatusOr<T>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

TEST(SpecFileTest, LoadsTheExampleInventory) {
  StatusOr<Inventory> inv = LoadInventoryFile(DataPath("inventory.toml"));
  ASSERT_TRUE(inv.ok()) << inv.status().ToString();
  ASSERT_EQ(inv->nodes.size(), 6u);
  ASSERT_EQ(inv->free.size(), 6u);
  const NodeSpec& h100 = inv->nodes[0];
  EXPECT_EQ(h100.name, "gcp-a3-h100-01");
  EXPECT_EQ(h100.cpu_milli, 208000);
  EXPECT_EQ(h100.memory_mib, 1872 * 1024);
  EXPECT_EQ(h100.gpu_count, 8);
  EXPECT_EQ(h100.gpu_memory_mib, 80 * 1024);
  EXPECT_EQ(h100.vendor, "nvidia");
  EXPECT_EQ(h100.software.at("cuda"), "12.4");
  EXPECT_DOUBLE_EQ(h100.price_usd_per_gpu_hour, 3.67);
  EXPECT_EQ(inv->free[0].cpu_free_milli, 120000);
  EXPECT_EQ(inv->free[0].memory_free_mib, 1000 * 1024);
  EXPECT_EQ(inv->free[0].fully_free_gpus(), 4);
  // A node without free fields is empty.
  EXPECT_EQ(inv->free[1].fully_free_gpus(), 8);
  EXPECT_EQ(inv->free[1].cpu_free_milli, 208000);
  // The CPU-only node.
  EXPECT_EQ(inv->nodes[5].gpu_count, 0);
  EXPECT_TRUE(inv->free[5].gpu_free_milli.empty());

  Cluster c = MakeCluster(*inv);
  EXPECT_EQ(c.size(), 6);
  EXPECT_EQ(c.total_gpus(), 36);
  // Used: 4 (h100-01) + 0.5+0.75+2 (a100) + 2 (mi300x) GPUs.
  EXPECT_EQ(c.used_gpu_milli(), 4000 + 3250 + 2000);
  EXPECT_EQ(c.state(2).gpu_free_milli[3], 250);
}

TEST(SpecFileTest, LoadsTheExampleRequests) {
  StatusOr<WorkloadRequest> train = LoadRequestFile(DataPath("request-train.toml"));
  ASSERT_TRUE(train.ok()) << train.status().ToString();
  EXPECT_EQ(train->name, "train-llm");
  EXPECT_EQ(train->cpu_milli, 32000);
  EXPECT_EQ(train->memory_mib, 256 * 1024);
  EXPECT_EQ(train->gpu_count, 4);
  EXPECT_EQ(train->gpu_milli, 1000);
  EXPECT_EQ(train->min_gpu_memory_mib, 80 * 1024);
  EXPECT_EQ(train->intent, Intent::kThroughput);
  EXPECT_EQ(train->priority, 10);
  EXPECT_EQ(train->software.at("cuda"), "12.4");

  StatusOr<WorkloadRequest> infer = LoadRequestFile(DataPath("request-infer.toml"));
  ASSERT_TRUE(infer.ok()) << infer.status().ToString();
  EXPECT_EQ(infer->gpu_count, 1);  // a share implies one device
  EXPECT_EQ(infer->gpu_milli, 250);
  EXPECT_TRUE(infer->is_gpu_share());
  EXPECT_EQ(infer->cpu_milli, 4000);
  EXPECT_EQ(infer->intent, Intent::kLatency);
}

TEST(SpecFileTest, QuantitiesFollowKubernetes) {
  EXPECT_EQ(*ParseCpuMilli("500m"), 500);
  EXPECT_EQ(*ParseCpuMilli("2"), 2000);
  EXPECT_EQ(*ParseCpuMilli("0.25"), 250);
  EXPECT_EQ(*ParseCpuMilli("1.0001"), 1001);  // rounded up
  EXPECT_EQ(*ParseMemoryMib("4Gi", false), 4096);
  EXPECT_EQ(*ParseMemoryMib("512Mi", false), 512);
  EXPECT_EQ(*ParseMemoryMib("1G", false), 954);         // 1e9 bytes, rounded up
  EXPECT_EQ(*ParseMemoryMib("1048576", false), 1);      // bytes in Kubernetes
  EXPECT_EQ(*ParseMemoryMib("1048576", true), 1048576);  // MiB in inventories
  EXPECT_FALSE(ParseCpuMilli("-1").ok());
  EXPECT_FALSE(ParseCpuMilli("nan").ok());
  EXPECT_FALSE(ParseCpuMilli("inf").ok());
  EXPECT_FALSE(ParseCpuMilli("2 cores").ok());
  EXPECT_FALSE(ParseMemoryMib("4GB", false).ok());
  EXPECT_FALSE(ParseMemoryMib("100m", false).ok());  // milli-bytes make no sense
  EXPECT_FALSE(ParseMemoryMib("1e30Ei", false).ok());
}

TEST(SpecFileTest, ErrorsNameFileLineAndField) {
  std::string e = ErrorOf(ParseInventory(R"([[node]]
name = "n1"
cpu = 8
memory = "64Gi"
gpus = 99
)",
                                         "inv.toml"));
  EXPECT_EQ(e, "inv.toml:5: node \"n1\": gpus: must be an integer 0..32");

  e = ErrorOf(ParseInventory("[[node]]\nname = \"n1\"\ncpu = 8\nmemory = \"64Gb\"\n", "inv.toml"));
  EXPECT_NE(e.find("inv.toml:4: node \"n1\": memory: '64Gb' is not a memory quantity"),
            std::string::npos)
      << e;

  e = ErrorOf(ParseRequest("gpus = 2\ngpu_share = 0.5\n", "req.toml"));
  EXPECT_NE(e.find("req.toml:2: gpu_share: a share below 1 is for one GPU"), std::string::npos)
      << e;

  e = ErrorOf(ParseRequest("gpus = 1\nvendor = \"nvidai\"\n", "req.toml"));
  EXPECT_EQ(e, "req.toml:2: vendor: 'nvidai' is not one of nvidia, amd, intel");

  // Version numbers must be strings: TOML reads 12.10 as 12.1.
  e = ErrorOf(ParseRequest("gpus = 1\n[software]\ncuda = 12.10\n", "req.toml"));
  EXPECT_NE(e.find("req.toml:3: software.cuda: want a version string"), std::string::npos) << e;

  e = ErrorOf(ParseRequest("gpus = = 1\n", "req.toml"));
  EXPECT_NE(e.find("req.toml:1:"), std::string::npos) << e;
}

TEST(SpecFileTest, UnknownKeysAreErrorsWithASuggestion) {
  std::string e = ErrorOf(ParseRequest("gpus = 1\ngpu_modles = [\"H100-SXM\"]\n", "req.toml"));
  EXPECT_EQ(e, "req.toml:2: unknown key 'gpu_modles' (did you mean 'gpu_models'?)");
  e = ErrorOf(ParseInventory(
      "[[node]]\nname = \"n1\"\ncpu = 8\nmemory = 1024\nzoen = \"a\"\n", "inv.toml"));
  EXPECT_EQ(e, "inv.toml:5: node \"n1\": unknown key 'zoen' (did you mean 'zone'?)");
  e = ErrorOf(ParseInventory("[[nodes]]\nname = \"n1\"\n", "inv.toml"));
  EXPECT_NE(e.find("unknown key 'nodes' (did you mean 'node'?)"), std::string::npos) << e;
}

TEST(SpecFileTest, InventoryConsistencyChecks) {
  const char* kBase = "[[node]]\nname = \"n1\"\ncpu = 8\nmemory = \"64Gi\"\n";
  std::string e = ErrorOf(ParseInventory(std::string(kBase) + kBase, "inv.toml"));
  EXPECT_NE(e.find("inv.toml:5: node \"n1\": duplicate node name"), std::string::npos) << e;

  e = ErrorOf(ParseInventory(std::string(kBase) + "gpus = 2\ngpu_model = \"A100\"\n"
                                                   "gpu_free = [1000]\n",
                             "inv.toml"));
  EXPECT_NE(e.find("inv.toml:7: node \"n1\": gpu_free: want an array of 2"), std::string::npos)
      << e;

  e = ErrorOf(ParseInventory(std::string(kBase) + "gpus = 2\ngpu_model = \"A100\"\n"
                                                   "gpu_free = [1000, 1001]\n",
                             "inv.toml"));
  EXPECT_NE(e.find("gpu_free[1]: must be an integer 0..1000"), std::string::npos) << e;

  e = ErrorOf(ParseInventory(std::string(kBase) + "cpu_free = 9\n", "inv.toml"));
  EXPECT_NE(e.find("cpu_free: more than the node's cpu"), std::string::npos) << e;

  e = ErrorOf(ParseInventory(std::string(kBase) + "gpus = 2\n", "inv.toml"));
  EXPECT_NE(e.find("node \"n1\": missing field 'gpu_model'"), std::string::npos) << e;

  e = ErrorOf(ParseInventory("[[node]]\ncpu = 8\n", "inv.toml"));
  EXPECT_NE(e.find("inv.toml:1: node: missing field 'name'"), std::string::npos) << e;

  e = ErrorOf(ParseInventory("# nothing\n", "inv.toml"));
  EXPECT_EQ(e, "inv.toml: no [[node]] tables");

  e = ErrorOf(ParseInventory("node = 3\n", "inv.toml"));
  EXPECT_NE(e.find("node: want [[node]] tables"), std::string::npos) << e;
}

TEST(SpecFileTest, JsonRequestSharesTheFieldChecks) {
  StatusOr<WorkloadRequest> r = ParseRequestJson(
      R"({"name": "j", "cpu": "500m", "memory": 2048, "gpus": 2, "gpu_models": ["MI300X"],
          "vendor": "AMD", "software": {"rocm": "6.1"}})",
      "request");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cpu_milli, 500);
  EXPECT_EQ(r->memory_mib, 2048);
  EXPECT_EQ(r->gpu_count, 2);
  EXPECT_EQ(r->vendor, "amd");  // normalised to lower case
  EXPECT_EQ(r->gpu_models, std::vector<std::string>{"MI300X"});
  EXPECT_EQ(r->software.at("rocm"), "6.1");

  EXPECT_EQ(ErrorOf(ParseRequestJson(R"({"gpus": 40})", "request")),
            "request: gpus: must be an integer 0..32");
  EXPECT_EQ(ErrorOf(ParseRequestJson(R"({"gpuss": 1})", "request")),
            "request: unknown key 'gpuss' (did you mean 'gpus'?)");
  EXPECT_EQ(ErrorOf(ParseRequestJson(R"({"gpus": 1, "software": {"cuda": 12.4}})", "request")),
            "request: software.cuda: want a version string (quote it: \"12.4\")");
  EXPECT_EQ(ErrorOf(ParseRequestJson("[1]", "request")), "request: want a JSON object");
  EXPECT_EQ(ErrorOf(ParseRequestJson("{", "request")), "request: not valid JSON");
  EXPECT_EQ(ErrorOf(ParseRequestJson(R"({"gpus": 18446744073709551615})", "request")),
            "request: gpus: must be an integer 0..32");
}

TEST(SpecFileTest, CheckRequestCatchesCrossFieldMistakes) {
  WorkloadRequest r;
  EXPECT_TRUE(CheckRequest(r).ok());
  r.gpu_count = 2;
  r.gpu_milli = 500;
  EXPECT_FALSE(CheckRequest(r).ok());
  r.gpu_milli = 1000;
  EXPECT_TRUE(CheckRequest(r).ok());
  r.gpu_count = 0;
  r.gpu_models = {"H100-SXM"};
  EXPECT_FALSE(CheckRequest(r).ok());
  EXPECT_EQ(ErrorOf(ParseRequest("gpu_models = [\"H100-SXM\"]\n", "req.toml")),
            "req.toml:1: gpu_models/min_gpu_memory given but no GPUs requested");
}

}  // namespace
}  // namespace gpufleet::place
