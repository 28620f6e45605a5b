// HTTPS through the server and client seams with the committed test
// certificate (tests/data/tls/README.md), and the errors for bad TLS files.
#include <gtest/gtest.h>

#include <string>

#include "net/http_client.h"
#include "net/http_server.h"

namespace gpufleet {
namespace {

std::string TlsFile(const std::string& name) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/tls/" + name;
}

HttpServerTls TestTls() { return {TlsFile("server.pem"), TlsFile("server.key")}; }

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::NewTls(TestTls());
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(*server);
    EXPECT_TRUE(server_->tls());
    server_->Get("/hello", [](const HttpServerRequest& req, HttpServerResponse& res) {
      res.set_content(req.method() + " " + req.path() + " " + req.header("Authorization"),
                      "text/plain");
    });
    StatusOr<int> port = server_->Start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status().message();
    port_ = std::to_string(*port);
  }
  void TearDown() override { server_->Stop(); }

  std::unique_ptr<HttpServer> server_;
  std::string port_;
};

TEST_F(TlsTest, ClientTrustingTheTestCaGetsTheAnswerWithItsHeaders) {
  std::unique_ptr<HttpClient> client = NewHttpClient({.ca_file = TlsFile("ca.pem")});
  StatusOr<std::string> body = HttpGet(*client, "https://127.0.0.1:" + port_ + "/hello?x=1",
                                       5 * kNsPerSecond, BearerHeader("t0k"));
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(*body, "GET /hello Bearer t0k");
  // The certificate names localhost too.
  body = HttpGet(*client, "https://localhost:" + port_ + "/hello", 5 * kNsPerSecond);
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(*body, "GET /hello ");
}

TEST_F(TlsTest, ClientWithoutTheTestCaRefusesTheServer) {
  // The system's CAs do not include the test CA.
  StatusOr<std::string> body =
      HttpGet(*NewHttpClient(), "https://127.0.0.1:" + port_ + "/hello", 5 * kNsPerSecond);
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.status().message().find("not signed by a trusted CA"), std::string::npos)
      << body.status().message();
  // A CA file that is not there is named.
  body = HttpGet(*NewHttpClient({.ca_file = TlsFile("absent.pem")}),
                 "https://127.0.0.1:" + port_ + "/hello", 5 * kNsPerSecond);
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.status().message().find("absent.pem"), std::string::npos)
      << body.status().message();
}

TEST_F(TlsTest, PlainHttpToTheTlsPortGetsNoAnswer) {
  StatusOr<std::string> body =
      HttpGet(*NewHttpClient(), "http://127.0.0.1:" + port_ + "/hello", 5 * kNsPerSecond);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), StatusCode::kUnavailable) << body.status().message();
}

TEST(TlsFilesTest, BadFilesAreNamedWithTheCause) {
  struct Case {
    HttpServerTls tls;
    std::string want;
  };
  const Case cases[] = {
      {{TlsFile("missing.pem"), TlsFile("server.key")},
       "TLS cert_file " + TlsFile("missing.pem") + ": cannot open"},
      {{TlsFile("server.pem"), TlsFile("missing.key")},
       "TLS key_file " + TlsFile("missing.key") + ": cannot open"},
      {{TlsFile("README.md"), TlsFile("server.key")}, "README.md: no PEM certificate"},
      {{TlsFile("server.pem"), TlsFile("ca.pem")}, "ca.pem: no unencrypted PEM private key"},
      {{TlsFile("server.pem"), TlsFile("other.key")},
       "other.key does not match the certificate in cert_file"},
      {{"", TlsFile("server.key")}, "no cert_file given"},
  };
  for (const Case& c : cases) {
    StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::NewTls(c.tls);
    ASSERT_FALSE(server.ok()) << c.want;
    EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(server.status().message().find(c.want), std::string::npos)
        << server.status().message();
  }
}

}  // namespace
}  // namespace gpufleet
