#include "agent/remote_write_pusher.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "expo/remote_write.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

class RemoteWritePusherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpufleet_pusher_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    server_.Post("/api/v1/write", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(req.body);
      res.status = 204;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
    fs::remove_all(dir_);
  }

  std::vector<std::string> Bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }

  fs::path dir_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
};

TEST_F(RemoteWritePusherTest, PushesEachNewSnapshotOnce) {
  ForwarderOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/write";
  options.queue_dir = dir_.string();
  options.min_backoff_ms = 1;
  options.max_backoff_ms = 10;
  options.queue_sync = DiskQueueOptions::Sync::kNone;
  auto forwarder = RemoteWriteForwarder::Start(options);
  ASSERT_TRUE(forwarder.ok()) << forwarder.status().ToString();

  auto snapshot = std::make_shared<Snapshot>();
  snapshot->timestamp_ns = 1'700'000'000'000'000'000;
  snapshot->samples = {
      {"gpu_power_watts", Labels{{"gpu", "0"}, {"vendor", "nvidia"}}, 300, 0},
      {"gpu_up", Labels{{"gpu", "0"}, {"vendor", "nvidia"}}, 1, 0},
  };
  std::shared_ptr<const Snapshot> current = snapshot;
  RemoteWritePusher pusher([&] { return current; }, **forwarder);

  auto pushed = pusher.PushNew();
  ASSERT_TRUE(pushed.ok() && *pushed);
  pushed = pusher.PushNew();  // same snapshot again: nothing new
  ASSERT_TRUE(pushed.ok());
  EXPECT_FALSE(*pushed);

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((*forwarder)->stats().sent_batches < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ((*forwarder)->stats().sent_batches, 1u);
  EXPECT_EQ((*forwarder)->stats().sent_samples, 2u);
  std::vector<std::string> bodies = Bodies();
  ASSERT_EQ(bodies.size(), 1u);
  auto decoded = DecodeRemoteWrite(bodies[0], RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->series.size(), 2u);
  EXPECT_EQ(decoded->series[0].labels.Get("__name__"), "gpu_power_watts");
  EXPECT_EQ(decoded->series[0].labels.Get("vendor"), "nvidia");
  EXPECT_EQ(decoded->series[0].samples[0].value, 300);
  // Samples without their own time carry the snapshot's.
  EXPECT_EQ(decoded->series[0].samples[0].timestamp_ms, 1'700'000'000'000);
  EXPECT_EQ(pusher.pushed_snapshots(), 1u);
}

TEST_F(RemoteWritePusherTest, SplitsLargeSnapshotsIntoBatches) {
  ForwarderOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/write";
  options.queue_dir = dir_.string();
  options.queue_sync = DiskQueueOptions::Sync::kNone;
  auto forwarder = RemoteWriteForwarder::Start(options);
  ASSERT_TRUE(forwarder.ok());
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->timestamp_ns = 5'000'000;
  const size_t n = RemoteWritePusher::kMaxSeriesPerBatch + 1;
  for (size_t i = 0; i < n; ++i) {
    snapshot->samples.push_back({"gpu_up", Labels{{"gpu", std::to_string(i)}}, 1, 0});
  }
  RemoteWritePusher pusher([&] { return snapshot; }, **forwarder);
  ASSERT_TRUE(pusher.PushNew().ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((*forwarder)->stats().sent_batches < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ((*forwarder)->stats().sent_batches, 2u);
  EXPECT_EQ((*forwarder)->stats().sent_samples, n);
}

}  // namespace
}  // namespace gpufleet
