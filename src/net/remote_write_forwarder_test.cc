#include "net/remote_write_forwarder.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "expo/remote_write.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

struct Reply {
  int status = 200;
  std::string retry_after;
};

struct Received {
  std::string body;
  std::string content_encoding;
  std::string content_type;
  std::string version;
  std::string authorization;
};

// A loopback remote-write receiver that answers from a script (then 200) and records what
// it was sent.
class FakeReceiver {
 public:
  explicit FakeReceiver(std::vector<Reply> script) : script_(script.begin(), script.end()) {
    server_.Post("/api/v1/write", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      Reply reply;
      if (!script_.empty()) {
        reply = script_.front();
        script_.pop_front();
      }
      attempts_.push_back({req.body, req.get_header_value("Content-Encoding"),
                           req.get_header_value("Content-Type"),
                           req.get_header_value("X-Prometheus-Remote-Write-Version"),
                           req.get_header_value("Authorization")});
      res.status = reply.status;
      if (!reply.retry_after.empty()) res.set_header("Retry-After", reply.retry_after);
      if (reply.status >= 200 && reply.status < 300) accepted_.push_back(req.body);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeReceiver() {
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/write"; }
  std::vector<Received> attempts() {
    std::lock_guard<std::mutex> lock(mu_);
    return attempts_;
  }
  std::vector<std::string> accepted() {
    std::lock_guard<std::mutex> lock(mu_);
    return accepted_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::deque<Reply> script_;
  std::vector<Received> attempts_;
  std::vector<std::string> accepted_;
};

// A loopback port nobody listens on (bound, then closed), so connections are refused.
int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ADD_FAILURE() << "cannot bind a loopback port";
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Waits (bounded) until `done` holds; the caller asserts on the outcome.
bool WaitFor(const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

std::string Batch(int i) {
  RemoteWriteRequest request;
  RemoteWriteSeries& series = request.series.emplace_back();
  series.labels = Labels{{"__name__", "gpu_power_watts"}, {"gpu", std::to_string(i)}};
  series.samples = {{1000 + i, 100.0 + i}, {2000 + i, 200.0 + i}};
  return EncodeRemoteWrite(request);
}

class ForwarderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpufleet_forwarder_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    options_.queue_dir = dir_.string();
    options_.min_backoff_ms = 1;
    options_.max_backoff_ms = 20;
    options_.timeout_ms = 2000;
    options_.queue_sync = DiskQueueOptions::Sync::kNone;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  ForwarderOptions options_;
};

TEST_F(ForwarderTest, RetriesServerErrorsUntilAccepted) {
  FakeReceiver receiver({{503, ""}, {500, ""}, {200, ""}});
  options_.url = receiver.url();
  options_.bearer_token = "s3cret";
  auto forwarder = RemoteWriteForwarder::Start(options_);
  ASSERT_TRUE(forwarder.ok()) << forwarder.status().ToString();
  ASSERT_TRUE((*forwarder)->Enqueue(Batch(1), 2).ok());
  ASSERT_TRUE(WaitFor([&] { return (*forwarder)->stats().sent_batches == 1; }));
  ForwarderStats stats = (*forwarder)->stats();
  EXPECT_EQ(stats.sent_samples, 2u);
  EXPECT_EQ(stats.retries, 2u);
  EXPECT_EQ(stats.queue_batches, 0u);
  EXPECT_EQ(stats.last_http_status, 200);

  std::vector<Received> attempts = receiver.attempts();
  ASSERT_EQ(attempts.size(), 3u);
  for (const Received& r : attempts) EXPECT_EQ(r.body, Batch(1));  // the same batch, resent
  EXPECT_EQ(attempts[0].content_encoding, "snappy");
  EXPECT_EQ(attempts[0].content_type, "application/x-protobuf");
  EXPECT_EQ(attempts[0].version, "0.1.0");
  EXPECT_EQ(attempts[0].authorization, "Bearer s3cret");
  auto decoded = DecodeRemoteWrite(receiver.accepted()[0], RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->series[0].labels.Get("gpu"), "1");
}

TEST_F(ForwarderTest, DropsBatchesTheReceiverRejectsAndKeepsGoing) {
  FakeReceiver receiver({{400, ""}, {200, ""}});
  options_.url = receiver.url();
  auto forwarder = RemoteWriteForwarder::Start(options_);
  ASSERT_TRUE(forwarder.ok());
  ASSERT_TRUE((*forwarder)->Enqueue(Batch(1), 2).ok());
  ASSERT_TRUE((*forwarder)->Enqueue(Batch(2), 2).ok());
  ASSERT_TRUE(WaitFor([&] { return (*forwarder)->stats().sent_batches == 1; }));
  ForwarderStats stats = (*forwarder)->stats();
  EXPECT_EQ(stats.dropped_rejected_batches, 1u);
  EXPECT_EQ(stats.dropped_rejected_samples, 2u);
  EXPECT_EQ(stats.retries, 0u);  // a 4xx is never retried
  EXPECT_EQ(receiver.attempts().size(), 2u);
  EXPECT_EQ(receiver.accepted(), std::vector<std::string>{Batch(2)});
}

TEST_F(ForwarderTest, HonoursRetryAfterOn429) {
  FakeReceiver receiver({{429, "1"}, {200, ""}});
  options_.url = receiver.url();
  auto forwarder = RemoteWriteForwarder::Start(options_);
  ASSERT_TRUE(forwarder.ok());
  ASSERT_TRUE((*forwarder)->Enqueue(Batch(7), 2).ok());
  ASSERT_TRUE(WaitFor([&] { return (*forwarder)->stats().sent_batches == 1; }));
  ForwarderStats stats = (*forwarder)->stats();
  EXPECT_EQ(stats.retries, 1u);
  // Retry-After wins over the 20 ms backoff ceiling.
  EXPECT_EQ(stats.last_retry_delay_ms, 1000);
  EXPECT_EQ(receiver.accepted(), std::vector<std::string>{Batch(7)});
}

TEST_F(ForwarderTest, QueueOutlivesAnUnreachableReceiverAndARestart) {
  const int dead_port = UnusedPort();
  options_.url = "http://127.0.0.1:" + std::to_string(dead_port) + "/api/v1/write";
  {
    auto forwarder = RemoteWriteForwarder::Start(options_);
    ASSERT_TRUE(forwarder.ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*forwarder)->Enqueue(Batch(i), 2).ok());
    ASSERT_TRUE(WaitFor([&] { return (*forwarder)->stats().retries >= 3; }));
    ForwarderStats stats = (*forwarder)->stats();
    EXPECT_EQ(stats.sent_batches, 0u);
    EXPECT_EQ(stats.queue_batches, 3u);
    EXPECT_EQ(stats.last_http_status, 0);
    EXPECT_LE(stats.last_retry_delay_ms, options_.max_backoff_ms);
    (*forwarder)->Stop();
  }
  FakeReceiver receiver({});
  options_.url = receiver.url();
  auto forwarder = RemoteWriteForwarder::Start(options_);
  ASSERT_TRUE(forwarder.ok());
  ASSERT_TRUE(WaitFor([&] { return (*forwarder)->stats().sent_batches == 3; }));
  EXPECT_EQ(receiver.accepted(), (std::vector<std::string>{Batch(0), Batch(1), Batch(2)}));
  EXPECT_EQ((*forwarder)->stats().sent_samples, 6u);
}

TEST_F(ForwarderTest, CountsBatchesDroppedWhenTheQueueIsFull) {
  options_.url = "http://127.0.0.1:" + std::to_string(UnusedPort()) + "/api/v1/write";
  options_.queue_max_bytes = 3 * (Batch(0).size() + 16);
  options_.max_backoff_ms = 1000;
  auto forwarder = RemoteWriteForwarder::Start(options_);
  ASSERT_TRUE(forwarder.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*forwarder)->Enqueue(Batch(i), 2).ok());
  ForwarderStats stats = (*forwarder)->stats();
  EXPECT_EQ(stats.dropped_queue_full_batches, 2u);
  EXPECT_EQ(stats.queue_batches, 3u);
}

TEST_F(ForwarderTest, RejectsBadUrls) {
  options_.url = "ftp://x/y";
  EXPECT_EQ(RemoteWriteForwarder::Start(options_).status().code(),
            StatusCode::kInvalidArgument);
  options_.url = "http:///api/v1/write";
  EXPECT_EQ(RemoteWriteForwarder::Start(options_).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpufleet
