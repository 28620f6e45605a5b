#include "place/k8s_extender.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "core/file_util.h"
#include "place/compat_hook.h"

namespace gpufleet::place {
namespace {

using nlohmann::json;

std::string Read(const std::string& rel) {
  StatusOr<std::string> s = ReadFileToString(std::string(GPUFLEET_SOURCE_DIR) + "/" + rel);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : std::string();
}

Inventory ExampleInventory() {
  StatusOr<Inventory> inv = ParseInventory(Read("data/place/inventory.toml"), "inventory.toml");
  EXPECT_TRUE(inv.ok()) << inv.status().ToString();
  return inv.ok() ? *inv : Inventory();
}

json Filter(const std::string& file) {
  ExtenderReply r =
      ExtenderFilter(ExampleInventory(), CatalogCompatHook(), Read("tests/data/k8s/" + file));
  EXPECT_EQ(r.http_status, 200);
  return json::parse(r.body);
}

TEST(K8sExtenderTest, PodTranslationSumsContainersAndReadsAnnotations) {
  json args = json::parse(Read("tests/data/k8s/filter-train-nodenames.json"));
  StatusOr<WorkloadRequest> r = PodToRequest(args["pod"].dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->name, "ml/train-llm-0");
  EXPECT_EQ(r->cpu_milli, 32000);             // 30 + 2; the init container's 1 is less
  EXPECT_EQ(r->memory_mib, 256 * 1024);       // 240Gi + 16Gi
  EXPECT_EQ(r->gpu_count, 4);
  EXPECT_EQ(r->gpu_milli, 1000);
  EXPECT_EQ(r->vendor, "nvidia");
  EXPECT_EQ(r->intent, Intent::kThroughput);
  EXPECT_EQ(r->software.at("cuda"), "12.4");

  args = json::parse(Read("tests/data/k8s/filter-infer-nodes.json"));
  r = PodToRequest(args["pod"].dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gpu_count, 1);
  EXPECT_EQ(r->gpu_milli, 250);
  EXPECT_EQ(r->vendor, "");
  EXPECT_EQ(r->gpu_models, (std::vector<std::string>{"A100-SXM4-40GB", "H100-SXM"}));
  EXPECT_EQ(r->intent, Intent::kLatency);

  // Limits stand in for missing requests; the vendor follows the resource.
  args = json::parse(Read("tests/data/k8s/filter-amd.json"));
  r = PodToRequest(args["pod"].dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->vendor, "amd");
  EXPECT_EQ(r->gpu_count, 2);
  EXPECT_EQ(r->cpu_milli, 16000);

  r = PodToRequest(R"({"spec": {"containers": [{"resources": {"limits":
      {"gpu.intel.com/i915": "1", "cpu": "250m"}}}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->vendor, "intel");
  EXPECT_EQ(r->cpu_milli, 250);
}

TEST(K8sExtenderTest, BadPodsAreClearErrors) {
  auto error = [](std::string_view pod) {
    StatusOr<WorkloadRequest> r = PodToRequest(pod);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error(R"({"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1.5"}}}]}})"),
            "pod.spec.containers[0].resources.limits.nvidia.com/gpu: want a whole number of GPUs, "
            "got \"1.5\"");
  EXPECT_NE(error(R"({"spec": {"containers": [
      {"resources": {"limits": {"nvidia.com/gpu": "1"}}},
      {"resources": {"limits": {"amd.com/gpu": "1"}}}]}})")
                .find("GPUs of two vendors (nvidia, amd) in one pod"),
            std::string::npos);
  EXPECT_EQ(error(R"({"metadata": {"annotations": {"gpufleet.io/gpu-milli": "1500"}},
                      "spec": {"containers": []}})"),
            "pod.metadata.annotations.gpufleet.io/gpu-milli: want 1..1000, got '1500'");
  EXPECT_EQ(error(R"({"metadata": {"annotations": {"gpufleet.io/gpu-milli": "500"}},
                      "spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": 2}}}]}})"),
            "pod: gpu share: a fraction of a GPU is for one GPU, got 2 GPUs");
  EXPECT_EQ(error(R"({"metadata": {"annotations": {"gpufleet.io/intent": "fast"}}, "spec": {}})"),
            "pod.metadata.annotations.gpufleet.io/intent: want latency or throughput, got 'fast'");
  EXPECT_EQ(error(R"({"metadata": {}})"), "pod.spec: missing");
  EXPECT_EQ(error("{"), "pod: not valid JSON");
}

TEST(K8sExtenderTest, FilterByNameSplitsResolvableFromUnresolvable) {
  json r = Filter("filter-train-nodenames.json");
  EXPECT_EQ(r["nodenames"], json::array({"gcp-a3-h100-01", "aws-p4d-a100-01"}));
  EXPECT_FALSE(r.contains("nodes"));
  EXPECT_EQ(r["error"], "");
  EXPECT_EQ(r["failedNodes"], json({{"kind-worker-9", "not in gpufleet inventory"}}));
  const json& u = r["failedAndUnresolvableNodes"];
  ASSERT_EQ(u.size(), 4u) << u.dump();
  EXPECT_NE(u["gcp-a3-h100-02"].get<std::string>().find("gpufleet: software: "), std::string::npos)
      << u.dump();
  EXPECT_EQ(u["azure-nd-mi300x-01"], "gpufleet: vendor: requires vendor nvidia, node has 'amd'");
  EXPECT_EQ(u["aws-cpu-01"], "gpufleet: model: node has no GPUs");
}

TEST(K8sExtenderTest, FilterWithNodeObjectsReturnsTheObjects) {
  json r = Filter("filter-infer-nodes.json");
  ASSERT_TRUE(r["nodes"]["items"].is_array());
  ASSERT_EQ(r["nodes"]["items"].size(), 2u);
  EXPECT_EQ(r["nodes"]["items"][0]["metadata"]["name"], "gcp-a3-h100-01");
  // The objects come back as sent, not rebuilt.
  EXPECT_EQ(r["nodes"]["items"][1]["status"]["allocatable"]["nvidia.com/gpu"], "8");
  EXPECT_FALSE(r.contains("nodenames"));
  EXPECT_TRUE(r["failedNodes"].empty());
  EXPECT_NE(r["failedAndUnresolvableNodes"]["azure-nd-mi300x-01"].get<std::string>().find(
                "gpufleet: model: requires model A100-SXM4-40GB|H100-SXM, node has MI300X"),
            std::string::npos);
}

TEST(K8sExtenderTest, FilterCapacityFailuresAreResolvable) {
  json r = Filter("filter-amd.json");
  EXPECT_EQ(r["nodenames"], json::array({"azure-nd-mi300x-01"}));
  // Ask for more than the MI300X node has free: capacity, so preemption may help.
  json args = json::parse(Read("tests/data/k8s/filter-amd.json"));
  args["pod"]["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"] = "7";
  ExtenderReply reply = ExtenderFilter(ExampleInventory(), CatalogCompatHook(), args.dump());
  json out = json::parse(reply.body);
  EXPECT_TRUE(out["nodenames"].empty());
  EXPECT_EQ(out["failedNodes"]["azure-nd-mi300x-01"],
            "gpufleet: gpu_capacity: needs 7 GPU(s) with 1000 milli free, node has 6");
}

TEST(K8sExtenderTest, MalformedArgsAreAnsweredWithError) {
  json r = Filter("bad-quantity.json");
  EXPECT_EQ(r["error"],
            "gpufleet: pod.spec.containers[0].resources.requests.memory: '4GB' is not a memory "
            "quantity (e.g. \"4Gi\", \"512Mi\")");
  ExtenderReply p = ExtenderPrioritize(ExampleInventory(), "bestfit", CatalogCompatHook(),
                                       Read("tests/data/k8s/bad-quantity.json"));
  EXPECT_EQ(p.http_status, 400);
  std::string deep = "{\"pod\": " + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_NE(json::parse(ExtenderFilter(ExampleInventory(), CatalogCompatHook(), deep).body)["error"]
                .get<std::string>()
                .find("nested deeper than 64 levels"),
            std::string::npos);
  for (std::string_view body : {"", "[]", "{\"pod\": {\"spec\": {}}}", "{\"nodenames\": []}"}) {
    ExtenderReply f = ExtenderFilter(ExampleInventory(), CatalogCompatHook(), body);
    EXPECT_EQ(f.http_status, 200);
    EXPECT_FALSE(json::parse(f.body)["error"].get<std::string>().empty()) << body;
  }
}

TEST(K8sExtenderTest, PrioritizeScalesPolicyScoresToZeroToTen) {
  ExtenderReply r =
      ExtenderPrioritize(ExampleInventory(), "bestfit", CatalogCompatHook(),
                         Read("tests/data/k8s/prioritize-infer-nodenames.json"));
  ASSERT_EQ(r.http_status, 200) << r.body;
  json list = json::parse(r.body);
  std::map<std::string, int> score;
  std::vector<std::string> hosts;
  for (const json& h : list) {
    hosts.push_back(h["host"]);
    score[h["host"]] = h["score"];
  }
  // Answered in the order asked.
  EXPECT_EQ(hosts, (std::vector<std::string>{"gcp-a3-h100-01", "aws-p4d-a100-01",
                                             "azure-nd-mi300x-01", "aws-cpu-01",
                                             "gcp-a3-h100-02", "onprem-max1550-01"}));
  // BestFit scores 57 (A100), 31 (h100-01), -28 (h100-02) -> 10, 1 + round(59/85 * 9) = 7, 1.
  EXPECT_EQ(score["aws-p4d-a100-01"], 10);
  EXPECT_EQ(score["gcp-a3-h100-01"], 7);
  EXPECT_EQ(score["gcp-a3-h100-02"], 1);
  EXPECT_EQ(score["azure-nd-mi300x-01"], 0);  // model not allowed
  EXPECT_EQ(score["onprem-max1550-01"], 0);
  EXPECT_EQ(score["aws-cpu-01"], 0);

  ExtenderReply bad = ExtenderPrioritize(ExampleInventory(), "nosuchpolicy", CatalogCompatHook(),
                                         Read("tests/data/k8s/prioritize-infer-nodenames.json"));
  EXPECT_EQ(bad.http_status, 500);
}

}  // namespace
}  // namespace gpufleet::place
