// The real client against the real server seam on loopback, and the fake.
#include "net/http_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "net/fake_http_client.h"
#include "net/http_server.h"

namespace gpufleet {
namespace {

class LoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/echo", [](const HttpServerRequest& req, HttpServerResponse& res) {
      res.set_header("X-Seen", req.header("x-probe"));
      res.set_content("q=" + req.param("q") + " has=" + (req.has_param("q") ? "1" : "0"),
                      "text/plain");
    });
    server_.Post(R"(/items/(\d+))", [](const HttpServerRequest& req, HttpServerResponse& res) {
      res.set_status(201);
      res.set_content(req.match(1) + ":" + req.body(), "text/plain");
    });
    server_.Get("/slow", [this](const HttpServerRequest&, HttpServerResponse& res) {
      while (!release_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      res.set_content("late", "text/plain");
    });
    server_.SetFilter([](const HttpServerRequest& req, HttpServerResponse& res) {
      if (req.header("X-Block").empty()) return false;
      res.set_status(429);
      res.set_header("Retry-After", "7");
      return true;
    });
    server_.SetMaxBodyBytes(64);
    StatusOr<int> port = server_.Start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status().message();
    base_ = "http://127.0.0.1:" + std::to_string(*port);
  }
  void TearDown() override {
    release_ = true;
    server_.Stop();
  }

  HttpServer server_;
  std::string base_;
  std::atomic<bool> release_{false};
};

TEST_F(LoopbackTest, GetPassesHeadersAndParams) {
  std::unique_ptr<HttpClient> client = NewHttpClient();
  HttpRequest req;
  req.url = base_ + "/echo?q=7";
  req.headers = {{"X-Probe", "yes"}};
  StatusOr<HttpResponse> res = client->Send(req);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "q=7 has=1");
  EXPECT_EQ(res->Header("x-seen"), "yes");  // case-insensitive
}

TEST_F(LoopbackTest, PostWithRouteCapturesAndKeepAlive) {
  std::unique_ptr<HttpClient> client = NewHttpClient({.keep_alive = true});
  for (int i = 0; i < 3; ++i) {
    HttpRequest req;
    req.method = "POST";
    req.url = base_ + "/items/" + std::to_string(40 + i);
    req.body = "body";
    req.content_type = "text/plain";
    StatusOr<HttpResponse> res = client->Send(req);
    ASSERT_TRUE(res.ok()) << res.status().message();
    EXPECT_EQ(res->status, 201);
    EXPECT_EQ(res->body, std::to_string(40 + i) + ":body");
  }
}

TEST_F(LoopbackTest, FilterAnswersBeforeRoutingAndBodyLimitHolds) {
  std::unique_ptr<HttpClient> client = NewHttpClient();
  HttpRequest blocked;
  blocked.url = base_ + "/echo";
  blocked.headers = {{"X-Block", "1"}};
  StatusOr<HttpResponse> res = client->Send(blocked);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 429);
  EXPECT_EQ(res->Header("Retry-After"), "7");

  std::string big(1000, 'x');
  HttpRequest post;
  post.method = "POST";
  post.url = base_ + "/items/1";
  post.body = big;
  StatusOr<HttpResponse> too_big = client->Send(post);
  ASSERT_TRUE(too_big.ok());
  EXPECT_EQ(too_big->status, 413);
}

TEST_F(LoopbackTest, HttpGetNamesUrlAndStatus) {
  StatusOr<std::string> missing = HttpGet(base_ + "/nothing", kNsPerSecond);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), base_ + "/nothing: HTTP 404");
  StatusOr<std::string> ok = HttpGet(base_ + "/echo", kNsPerSecond);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "q= has=0");
}

TEST_F(LoopbackTest, CancelAbortsTheRequestInFlight) {
  std::unique_ptr<HttpClient> client = NewHttpClient();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    client->Cancel();
  });
  HttpRequest req;
  req.url = base_ + "/slow";
  req.timeout_ns = 30 * kNsPerSecond;
  StatusOr<HttpResponse> res = client->Send(req);
  canceller.join();
  EXPECT_FALSE(res.ok());  // aborted long before the 30 s timeout; the server never answered
  EXPECT_EQ(res.status().code(), StatusCode::kUnavailable);
}

TEST(HttpClientTest, NoListenerIsUnavailableNamingTheUrl) {
  HttpServer probe;  // bind a free port, then release it
  StatusOr<int> port = probe.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  probe.Stop();
  std::string url = "http://127.0.0.1:" + std::to_string(*port) + "/x";
  StatusOr<std::string> res = HttpGet(url, kNsPerSecond);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(res.status().message().rfind(url + ": ", 0), 0u) << res.status().message();
}

TEST(HttpServerTest, UnbindableAddressIsAnErrorNamingIt) {
  HttpServer server;
  StatusOr<int> bad = server.Start("256.1.1.1", 9999);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("256.1.1.1:9999"), std::string::npos);
  server.Stop();  // never started: returns at once
}

TEST(FakeHttpClientTest, RecordsRequestsAndAnswersFromTheHandler) {
  FakeHttpClient fake([](const RecordedHttpRequest& req) -> StatusOr<HttpResponse> {
    if (req.url.find("/down") != std::string::npos) return UnavailableError(req.url + ": refused");
    HttpResponse res;
    res.status = 202;
    res.body = req.method + " " + req.body;
    return res;
  });
  std::string body = "payload";
  HttpRequest post;
  post.method = "POST";
  post.url = "http://fake:1/up";
  post.body = body;
  post.headers = {{"Authorization", "Bearer t"}};
  StatusOr<HttpResponse> up = fake.Send(post);
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->status, 202);
  EXPECT_EQ(up->body, "POST payload");
  HttpRequest down;
  down.url = "http://fake:1/down";
  EXPECT_EQ(fake.Send(down).status().code(), StatusCode::kUnavailable);
  HttpRequest bad;
  bad.url = "fake:1/x";
  EXPECT_EQ(fake.Send(bad).status().code(), StatusCode::kInvalidArgument);

  std::vector<RecordedHttpRequest> seen = fake.requests();
  ASSERT_EQ(seen.size(), 2u);  // the malformed URL never reached the "network"
  EXPECT_EQ(seen[0].body, "payload");
  EXPECT_EQ(seen[0].Header("authorization"), "Bearer t");
  fake.Cancel();
  EXPECT_EQ(fake.cancels(), 1);
}

}  // namespace
}  // namespace gpufleet
