// The scrape loop against a real HTTP listener on loopback: samples land in
// the window store with the target as `instance`, bad lines are skipped and
// counted, a target that does not answer is counted as a failure, and the
// loop keeps scraping at its period until stopped.
#include "server/scrape_loop.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "store/window_store.h"

namespace gpufleet {
namespace {

constexpr int64_t kT0 = 1'700'000'000LL * kNsPerSecond;

constexpr char kExposition[] =
    "# HELP gpufleet_gpu_power_watts Power draw.\n"
    "# TYPE gpufleet_gpu_power_watts gauge\n"
    "gpufleet_gpu_power_watts{gpu_uuid=\"GPU-a\",vendor=\"nvidia\"} 312.5\n"
    "gpufleet_gpu_power_watts{gpu_uuid=\"GPU-b\",vendor=\"amd\",instance=\"node7\"} 401\n"
    "this line is not exposition\n"
    "gpufleet_gpu_up{gpu_uuid=\"GPU-a\"} 1 1700000001000\n";

class ScrapeLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      ++served_;
      res.set_content(kExposition, "text/plain; version=0.0.4");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the listen loop runs would be lost: wait for it.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

  // Points of `metric` by instance/gpu_uuid.
  std::map<std::string, std::vector<WindowPoint>> Points(std::string_view metric) {
    std::map<std::string, std::vector<WindowPoint>> out;
    window_.ForEach(metric, 0, INT64_MAX,
                    [&](const StoredLabels& l, std::span<const WindowPoint> p) {
                      out[std::string(l.Get("instance")) + "/" + std::string(l.Get("gpu_uuid"))] =
                          std::vector<WindowPoint>(p.begin(), p.end());
                    });
    return out;
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> served_{0};
  FakeClock clock_{kT0};
  WindowStore window_{WindowStoreOptions{}};
  Ingester ingester_{window_, nullptr, nullptr, clock_};
};

TEST_F(ScrapeLoopTest, OneRoundStoresSamplesWithTheTargetAsInstance) {
  ScrapeLoop loop({Url()}, kNsPerSecond, ingester_, clock_);
  ASSERT_TRUE(loop.Start().ok());  // validates targets; the thread scrapes too
  loop.Stop();
  loop.ScrapeOnce();
  ScrapeCounters c = loop.counters();
  EXPECT_GE(c.scrapes, 1u);
  EXPECT_EQ(c.failures, 0u);
  EXPECT_EQ(c.parse_errors, c.scrapes);  // one bad line per scrape
  std::string self = "127.0.0.1:" + std::to_string(port_);
  auto power = Points("gpufleet_gpu_power_watts");
  ASSERT_EQ(power.size(), 2u);
  ASSERT_EQ(power.count(self + "/GPU-a"), 1u);
  EXPECT_EQ(power[self + "/GPU-a"].back().value, 312.5);
  EXPECT_EQ(power[self + "/GPU-a"].back().timestamp_ns, kT0);  // no timestamp: the clock's
  ASSERT_EQ(power.count("node7/GPU-b"), 1u);  // an instance label of its own is kept
  EXPECT_EQ(power["node7/GPU-b"].back().value, 401);
  auto up = Points("gpufleet_gpu_up");
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up.begin()->second.back().timestamp_ns, 1'700'000'001'000LL * 1'000'000);
}

TEST_F(ScrapeLoopTest, DeadTargetIsCountedAndTheOthersStillScraped) {
  // A port nobody listens on: bind one, then close it.
  int dead_port;
  {
    httplib::Server s;
    dead_port = s.bind_to_any_port("127.0.0.1");
  }
  ScrapeLoop loop({"http://127.0.0.1:" + std::to_string(dead_port) + "/metrics", Url()},
                  kNsPerSecond / 2, ingester_, clock_);
  loop.ScrapeOnce();
  ScrapeCounters c = loop.counters();
  EXPECT_EQ(c.scrapes, 2u);
  EXPECT_EQ(c.failures, 1u);
  EXPECT_EQ(Points("gpufleet_gpu_power_watts").size(), 2u);
}

TEST_F(ScrapeLoopTest, LoopScrapesAtItsPeriodUntilStopped) {
  ScrapeLoop loop({Url()}, 50'000'000, ingester_, clock_);  // 50 ms
  ASSERT_TRUE(loop.Start().ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (served_ < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  loop.Stop();
  EXPECT_GE(served_, 3);
  int after_stop = served_;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(served_, after_stop);
}

TEST_F(ScrapeLoopTest, RejectsTargetsThatAreNotHttpUrls) {
  ScrapeLoop loop({"ftp://example/metrics"}, kNsPerSecond, ingester_, clock_);
  Status st = loop.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("scrape target"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace gpufleet
