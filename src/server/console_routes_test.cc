#include "server/console_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

#include "console/console_assets.h"

namespace gpufleet {
namespace {

class ConsoleRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterConsoleRoutes(server_);
    StatusOr<int> port = server_.Start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override { server_.Stop(); }

  static void ExpectSecurityHeaders(const httplib::Result& r) {
    for (const auto& [name, value] : kConsoleSecurityHeaders) {
      EXPECT_EQ(r->get_header_value(std::string(name)), value) << name;
    }
  }

  HttpServer server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ConsoleRoutesTest, RootServesIndexWithSecurityHeaders) {
  httplib::Result r = client_->Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, console::FindAsset("index.html")->body);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-cache");
  ExpectSecurityHeaders(r);
  EXPECT_NE(r->get_header_value("Content-Security-Policy").find("script-src 'self';"),
            std::string::npos);
}

TEST_F(ConsoleRoutesTest, EveryAssetIsServedWithLongCache) {
  for (const console::Asset* a : console::AllAssets()) {
    if (!a->immutable) continue;
    httplib::Result r = client_->Get("/" + std::string(a->path));
    ASSERT_TRUE(r) << a->path;
    EXPECT_EQ(r->status, 200) << a->path;
    EXPECT_EQ(r->body.size(), a->body.size()) << a->path;
    EXPECT_EQ(r->get_header_value("Content-Type"), a->content_type) << a->path;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "public, max-age=31536000, immutable");
    ExpectSecurityHeaders(r);
  }
}

TEST_F(ConsoleRoutesTest, UnknownOrClimbingAssetPathsAre404) {
  for (const char* path : {"/assets/nope.js", "/assets/..", "/assets/%2e%2e%2fetc%2fpasswd",
                           "/assets/../index.html", "/assets/"}) {
    httplib::Result r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->body.find("<html"), std::string::npos) << path;
  }
}

// Browsers accept "br"; httplib's brotli (quality 11) takes seconds per
// megabyte, so the server answers them with gzip (net/http_server.cc).
TEST_F(ConsoleRoutesTest, BrowsersGetGzipNotBrotli) {
  const console::Asset* js = console::AllAssets().back();
  httplib::Headers headers = {{"Accept-Encoding", "gzip, deflate, br, zstd"}};
  httplib::Result r = client_->Get("/" + std::string(js->path), headers);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(r->body.size(), js->body.size());  // the client decompressed it
  r = client_->Get("/" + std::string(js->path), {{"Accept-Encoding", "br"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Encoding"), "");
}

}  // namespace
}  // namespace gpufleet
