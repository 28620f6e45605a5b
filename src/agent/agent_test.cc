#include "agent/agent.h"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

#include "agent/agent_server.h"

namespace gpufleet {
namespace {

// An in-process collector whose per-device behaviour the test scripts. The
// vendor-specific failure paths are tested against fake vendor libraries in
// collect/; this double exercises the agent's containment logic.
class ScriptedCollector : public Collector {
 public:
  struct Dev {
    std::string uuid;
    Status status;          // returned by Collect
    bool block = false;     // Collect waits until Release()
    double power_watts = 300;
  };

  std::string_view source() const override { return "scripted"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++discover_calls;
    if (!discover_status.ok()) return discover_status;
    std::vector<DeviceInfo> out;
    for (const Dev& d : devs) {
      DeviceInfo info;
      info.vendor = Vendor::kNvidia;
      info.model = "NVIDIA H100 80GB HBM3";
      info.uuid = d.uuid;
      info.pci_bus_id = "0000:3b:00.0";
      out.push_back(info);
    }
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++collect_calls;
    Dev d = devs.at(index);
    if (d.block) {
      ++blocked_now;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
      --blocked_now;
    }
    if (!d.status.ok()) return d.status;
    out.Add("power_mw", d.power_watts * 1000);
    out.Add("temp_millic", 1e9);  // absurd: a million degrees
    return OkStatus();
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  void WaitBlocked() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return blocked_now > 0; });
  }
  template <typename F>
  void Edit(F f) {
    std::lock_guard<std::mutex> lock(mu_);
    f(*this);
  }

  std::vector<Dev> devs;
  Status discover_status;
  int discover_calls = 0;
  int collect_calls = 0;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  int blocked_now = 0;
};

constexpr char kTable[] = R"(
source = "scripted"
vendor = "nvidia"
[[metric]]
from = "power_mw"
to = "gpu_power_watts"
scale = 0.001
[[metric]]
from = "temp_millic"
to = "gpu_temperature_celsius"
scale = 0.001
labels = { sensor = "gpu" }
)";

struct Fixture {
  explicit Fixture(std::vector<ScriptedCollector::Dev> devs, int64_t timeout_ns = 200 * kNsPerMs) {
    auto c = std::make_unique<ScriptedCollector>();
    c->devs = std::move(devs);
    collector = c.get();
    AgentOptions o;
    o.node.node = "node-a";
    o.collect_timeout_ns = timeout_ns;
    o.rediscover_interval_ns = 0;
    o.table_for = [](std::string_view) {
      return MappingTable::Parse(kTable, "test", MetricCatalog::Default());
    };
    std::vector<std::unique_ptr<Collector>> v;
    v.push_back(std::move(c));
    agent = std::make_unique<Agent>(o, std::move(v), clock);
  }
  ~Fixture() {
    collector->Release();
    agent.reset();
  }

  // Value of the first sample of `name` whose labels include `uuid` (and
  // `reason` when given); nullopt when absent.
  std::optional<double> Find(std::string_view name, std::string_view uuid,
                             std::string_view reason = "") {
    for (const Sample& s : agent->snapshot()->samples) {
      if (s.name != name || s.labels.Get("gpu_uuid") != uuid) continue;
      if (!reason.empty() && s.labels.Get("reason") != reason) continue;
      return s.value;
    }
    return std::nullopt;
  }
  double SelfMetric(std::string_view name, const Labels& l) {
    return agent->self_metrics().Get(name, l);
  }

  FakeClock clock;
  ScriptedCollector* collector;
  std::unique_ptr<Agent> agent;
};

TEST(AgentTest, HealthyDevicesAreServedWithDeviceLabels) {
  Fixture f({{"GPU-a", OkStatus()}, {"GPU-b", OkStatus()}});
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "ok"), 1.0);
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "ok"), 1.0);
  EXPECT_DOUBLE_EQ(*f.Find("gpu_power_watts", "GPU-a"), 300.0);
  EXPECT_EQ(f.Find("gpu_info", "GPU-a"), 1.0);
  const Sample* power = nullptr;
  for (const Sample& s : f.agent->snapshot()->samples) {
    if (s.name == "gpu_power_watts") power = &s;
  }
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->labels.Get("vendor"), "nvidia");
  EXPECT_EQ(power->labels.Get("node"), "node-a");
  EXPECT_EQ(power->labels.Get("model"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(f.SelfMetric("gpufleet_agent_devices_up", Labels{{"collector", "scripted"}}), 2);
}

TEST(AgentTest, AbsurdValuesAreDroppedAndCounted) {
  Fixture f({{"GPU-a", OkStatus()}});
  f.agent->CollectOnce();
  EXPECT_FALSE(f.Find("gpu_temperature_celsius", "GPU-a").has_value());
  EXPECT_EQ(f.SelfMetric("gpufleet_agent_collector_errors_total",
                         Labels{{"collector", "scripted"}, {"reason", "absurd"}}),
            1);
}

TEST(AgentTest, LostDeviceIsMarkedDownWhileOthersKeepServingAndRecovers) {
  Fixture f({{"GPU-a", OkStatus()}, {"GPU-b", UnavailableError("GPU is lost")}});
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "lost"), 0.0);
  EXPECT_FALSE(f.Find("gpu_power_watts", "GPU-b").has_value()) << "no stale values for a lost GPU";
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "ok"), 1.0);
  EXPECT_TRUE(f.Find("gpu_power_watts", "GPU-a").has_value());

  f.collector->Edit([](ScriptedCollector& c) { c.devs[1].status = OkStatus(); });
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "ok"), 1.0);
  EXPECT_FALSE(f.Find("gpu_up", "GPU-b", "lost").has_value());
  EXPECT_TRUE(f.Find("gpu_power_watts", "GPU-b").has_value());
}

TEST(AgentTest, HungCallCostsOnlyItsDeviceAndIsNotCalledAgainUntilItReturns) {
  Fixture f({{"GPU-a", OkStatus()}, {"GPU-b", OkStatus(), /*block=*/true}});
  // The cycle returns although GPU-b's call is still blocked (the test would
  // hang otherwise: the call is only released below).
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "timeout"), 0.0);
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "ok"), 1.0);
  EXPECT_TRUE(f.agent->AnyWorkerBusy());

  int calls_before = 0;
  f.collector->Edit([&](ScriptedCollector& c) { calls_before = c.collect_calls; });
  f.agent->CollectOnce();  // still stuck: no second call on GPU-b
  int calls_after = 0;
  f.collector->Edit([&](ScriptedCollector& c) { calls_after = c.collect_calls; });
  EXPECT_EQ(calls_after - calls_before, 1) << "only GPU-a may be called while GPU-b hangs";
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "timeout"), 0.0);

  f.collector->Edit([](ScriptedCollector& c) { c.devs[1].block = false; });
  f.collector->Release();
  while (f.agent->AnyWorkerBusy()) std::this_thread::yield();
  f.agent->CollectOnce();  // the late result was stale; this cycle calls again
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "ok"), 1.0);
  EXPECT_GE(f.SelfMetric("gpufleet_agent_collector_errors_total",
                         Labels{{"collector", "scripted"}, {"reason", "timeout"}}),
            2);
}

TEST(AgentTest, DriverMismatchMarksEveryKnownDeviceDown) {
  Fixture f({{"GPU-a", OkStatus()}, {"GPU-b", UnavailableError("lost")}});
  f.agent->CollectOnce();
  f.collector->Edit([](ScriptedCollector& c) {
    c.discover_status = FailedPreconditionError("Driver/library version mismatch");
  });
  f.agent->CollectOnce();  // GPU-b down -> rediscovery -> mismatch
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "driver_mismatch"), 0.0);
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "driver_mismatch"), 0.0);
  EXPECT_FALSE(f.Find("gpu_power_watts", "GPU-a").has_value());

  f.collector->Edit([](ScriptedCollector& c) {
    c.discover_status = OkStatus();
    c.devs[1].status = OkStatus();
  });
  f.agent->CollectOnce();
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "ok"), 1.0);
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "ok"), 1.0);
}

TEST(AgentTest, DeviceThatStopsEnumeratingStaysVisibleAsLost) {
  Fixture f({{"GPU-a", OkStatus()}, {"GPU-b", UnavailableError("fell off the bus")}});
  f.agent->CollectOnce();
  f.collector->Edit([](ScriptedCollector& c) { c.devs.pop_back(); });
  f.agent->CollectOnce();  // rediscovery finds only GPU-a
  EXPECT_EQ(f.Find("gpu_up", "GPU-b", "lost"), 0.0);
  EXPECT_EQ(f.Find("gpu_up", "GPU-a", "ok"), 1.0);
}

TEST(AgentTest, ServesMetricsAndHealthOverHttpWithContentNegotiation) {
  Fixture f({{"GPU-a", OkStatus()}});
  AgentServer server(*f.agent);
  ASSERT_TRUE(server.Start("127.0.0.1", 0).ok());
  httplib::Client client("127.0.0.1", server.port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503) << "not ready before the first collection";

  f.agent->CollectOnce();
  health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  auto text = client.Get("/metrics");
  ASSERT_TRUE(text);
  EXPECT_NE(text->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  EXPECT_NE(text->body.find("# TYPE gpu_power_watts gauge"), std::string::npos);
  EXPECT_NE(text->body.find("gpufleet_agent_collections_total 1"), std::string::npos);

  auto om = client.Get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0"}});
  ASSERT_TRUE(om);
  EXPECT_NE(om->get_header_value("Content-Type").find("openmetrics-text"), std::string::npos);
  EXPECT_NE(om->body.find("# EOF"), std::string::npos);
  server.Stop();
}

}  // namespace
}  // namespace gpufleet
