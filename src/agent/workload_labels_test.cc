#include "agent/workload_labels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "agent/agent.h"
#include "collect/scenario.h"
#include "collect/sim_collector.h"
#include "core/file_util.h"

namespace gpufleet {
namespace {

// A real containerd cgroup line, so every pid the test plants resolves.
constexpr char kContainerCgroup[] =
    "0::/kubepods.slice/kubepods-burstable.slice/"
    "kubepods-burstable-pod9c2f5a1e_8b7d_4c3a_9e21_0123456789ab.slice/"
    "cri-containerd-4f3b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.scope\n";

// A fake /proc in which every given pid sits in a Kubernetes container.
class FakeProcRoot {
 public:
  explicit FakeProcRoot(const std::string& name)
      : root_(std::string(GPUFLEET_BINARY_DIR) + "/" + name) {
    std::filesystem::remove_all(root_);
  }
  ~FakeProcRoot() { std::filesystem::remove_all(root_); }
  void Plant(int64_t pid) {
    const std::string dir = root_ + "/" + std::to_string(pid);
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(WriteStringToFile(dir + "/cgroup", kContainerCgroup).ok());
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

TEST(WorkloadLabelsTest, HostSourcesAreAttributedSimIsNot) {
  FakeProcRoot proc("workload_labels_test_proc_unit");
  proc.Plant(4242);
  FakeClock clock;
  ProcessAttributor attributor(proc.root(), clock);
  auto samples = [] {
    return std::vector<Sample>{
        Sample{"gpu_process_memory_bytes", Labels{{"pid", "4242"}}, 1e9, 0},
        Sample{"gpu_power_watts", Labels{}, 300, 0},
    };
  };

  std::vector<Sample> nvml = samples();
  AddWorkloadLabels(attributor, "nvml", nvml);
  EXPECT_EQ(nvml[0].labels.Get("workload_pod_uid"), "9c2f5a1e-8b7d-4c3a-9e21-0123456789ab");
  EXPECT_FALSE(nvml[1].labels.Has("workload_pod_uid")) << "no pid, nothing to attribute";

  std::vector<Sample> sim = samples();
  const uint64_t lookups_before = attributor.stats().lookups;
  AddWorkloadLabels(attributor, "sim", sim);
  EXPECT_FALSE(sim[0].labels.Has("workload_pod_uid"));
  EXPECT_FALSE(sim[0].labels.Has("workload_container_id"));
  EXPECT_EQ(attributor.stats().lookups, lookups_before) << "sim pids never reach /proc";
  EXPECT_FALSE(HasHostPids("sim"));
  EXPECT_TRUE(HasHostPids("scrape:http://127.0.0.1:9400/metrics"));
}

// Regression: the agent handed the whole snapshot to one attribution pass, so
// a simulated pid that a real container happened to hold picked up that
// container's labels. Here every sim pid is planted in a container.
TEST(WorkloadLabelsTest, SimProcessesKeepTheScenarioLabelsAndNoHostLabels) {
  StatusOr<Scenario> scenario = LoadScenario("default");
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  FakeProcRoot proc("workload_labels_test_proc_agent");
  for (const ScenarioWorkload& w : scenario->workloads) proc.Plant(w.pid);
  proc.Plant(77);  // a real process of a vendor exporter, below

  FakeClock clock;
  auto attributor = std::make_shared<ProcessAttributor>(proc.root(), clock);
  AgentOptions options;
  options.node.node = "host-a";
  std::set<std::string> enriched_sources;
  options.enrich = [&](std::string_view source, std::span<Sample> samples) {
    enriched_sources.insert(std::string(source));
    AddWorkloadLabels(*attributor, source, samples);
  };
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(NewSimCollector(*scenario, clock));
  Agent agent(options, std::move(collectors), clock);
  agent.AddExtraSource(ExtraSource{
      "scrape:exporter", [](std::vector<Sample>& out, std::map<std::string, uint64_t>&) {
        out.push_back(Sample{"gpu_process_memory_bytes", Labels{{"pid", "77"}}, 1e9, 0});
        return OkStatus();
      }});
  clock.Advance(5 * kNsPerSecond);
  agent.CollectOnce();

  EXPECT_EQ(enriched_sources, (std::set<std::string>{"sim", "scrape:exporter"}));
  int sim_processes = 0, with_pod = 0, exporter_attributed = 0;
  for (const Sample& s : agent.snapshot()->samples) {
    if (s.name != "gpu_process_memory_bytes") continue;
    if (s.labels.Get("pid") == "77") {
      exporter_attributed += s.labels.Has("workload_pod_uid") ? 1 : 0;
      continue;
    }
    ++sim_processes;
    EXPECT_FALSE(s.labels.Has("workload_pod_uid")) << s.labels.ToString();
    EXPECT_FALSE(s.labels.Has("workload_container_id")) << s.labels.ToString();
    with_pod += s.labels.Has("workload_pod") ? 1 : 0;
  }
  EXPECT_GE(sim_processes, 10);
  EXPECT_EQ(with_pod, sim_processes) << "every scenario workload names its pod";
  EXPECT_EQ(exporter_attributed, 1) << "host pids from other sources are still attributed";
}

}  // namespace
}  // namespace gpufleet
