#include "server/server_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpufleet {
namespace {

TEST(ServerConfigTest, EmbeddedDefaultsBindLoopback) {
  StatusOr<ServerConfig> c = DefaultServerConfig();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->listen, "127.0.0.1:9840");
  EXPECT_TRUE(c->token.empty());
  EXPECT_EQ(c->detect_interval_ns, 10'000'000'000);
  EXPECT_FALSE(c->capture_enabled);
}

TEST(ServerConfigTest, FileOverridesOnlyWhatItSets) {
  ServerConfig base = *DefaultServerConfig();
  StatusOr<ServerConfig> c = ParseServerConfig(
      "token = \"t\"\n[alerts]\nalertmanager = [\"http://127.0.0.1:9093\"]\nresend = \"30s\"\n"
      "[limits]\nburst = 7\n[capture]\nenabled = true\n",
      "site.toml", base);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->token, "t");
  EXPECT_EQ(c->alertmanager_urls, std::vector<std::string>{"http://127.0.0.1:9093"});
  EXPECT_EQ(c->alert_resend_ns, 30'000'000'000);
  EXPECT_DOUBLE_EQ(c->burst, 7);
  EXPECT_TRUE(c->capture_enabled);
  EXPECT_EQ(c->listen, base.listen);
  EXPECT_EQ(c->db_path, base.db_path);
}

TEST(ServerConfigTest, ErrorsNameFileLineAndKey) {
  StatusOr<ServerConfig> c =
      ParseServerConfig("listen = \"x\"\n[detect]\ninterval = 10\n", "site.toml", ServerConfig());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("site.toml:3"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("detect.interval"), std::string::npos);
  StatusOr<ServerConfig> unknown = ParseServerConfig("lisen = \"x\"\n", "s.toml", ServerConfig());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("lisen"), std::string::npos);
}

std::string TlsFile(const std::string& name) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/tls/" + name;
}

// A file in the temp folder, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_((std::filesystem::temp_directory_path() / (name + "." + std::to_string(getpid())))
                  .string()) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ServerConfigTest, TokensComeFromTheConfigAndFilesWithTlsSection) {
  TempFile admin("admin_tokens", "# admins\n\n  adm1n  \nadm2n\n");
  TempFile readers("read_tokens", "r3ad\n");
  std::string toml = "listen = \"0.0.0.0:9840\"\ntoken = \"inline\"\ntoken_file = \"" +
                     admin.path() + "\"\nread_tokens = [\"r1\"]\nread_token_file = \"" +
                     readers.path() + "\"\n[tls]\ncert_file = \"" + TlsFile("server.pem") +
                     "\"\nkey_file = \"" + TlsFile("server.key") + "\"\n";
  StatusOr<ServerConfig> c = ParseServerConfig(toml, "site.toml", *DefaultServerConfig());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->tls_cert_file, TlsFile("server.pem"));
  StatusOr<AccessPolicy> p = AccessPolicyFromConfig(*c);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->beyond_loopback);
  EXPECT_EQ(p->admin_tokens, (std::vector<std::string>{"inline", "adm1n", "adm2n"}));
  EXPECT_EQ(p->read_tokens, (std::vector<std::string>{"r1", "r3ad"}));
}

TEST(ServerConfigTest, ExposedServerWithoutTlsOrAdminTokenIsRefused) {
  ServerConfig c = *DefaultServerConfig();
  StatusOr<AccessPolicy> loopback = AccessPolicyFromConfig(c);
  ASSERT_TRUE(loopback.ok());
  EXPECT_FALSE(loopback->beyond_loopback);
  for (const char* listen : {"0.0.0.0:9840", ":9840", "[::]:9840", "10.1.2.3:9840"}) {
    c.listen = listen;
    StatusOr<AccessPolicy> p = AccessPolicyFromConfig(c);
    ASSERT_FALSE(p.ok()) << listen;
    EXPECT_NE(p.status().message().find(std::string("listen ") + listen +
                                        ": refusing to listen beyond loopback without TLS"),
              std::string::npos)
        << p.status().message();
  }
  c.listen = "0.0.0.0:9840";
  c.tls_cert_file = TlsFile("server.pem");
  StatusOr<AccessPolicy> half = AccessPolicyFromConfig(c);
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.status().message().find("[tls]: set both"), std::string::npos);
  c.tls_key_file = TlsFile("server.key");
  StatusOr<AccessPolicy> no_admin = AccessPolicyFromConfig(c);
  ASSERT_FALSE(no_admin.ok());
  EXPECT_NE(no_admin.status().message().find("without an admin token"), std::string::npos);
  c.token = "adm1n";
  EXPECT_TRUE(AccessPolicyFromConfig(c).ok());
}

TEST(ServerConfigTest, BadTokenFilesAreNamedWithTheLine) {
  ServerConfig c = *DefaultServerConfig();
  TempFile spaced("spaced_tokens", "good\nhas space\n");
  c.token_file = spaced.path();
  StatusOr<AccessPolicy> p = AccessPolicyFromConfig(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(spaced.path() + ":2: a token has spaces"), std::string::npos)
      << p.status().message();
  TempFile empty("empty_tokens", "# nothing\n\n");
  c.token_file = empty.path();
  p = AccessPolicyFromConfig(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no token in it"), std::string::npos);
  c.token_file = "/nonexistent/tokens";
  p = AccessPolicyFromConfig(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("token_file: /nonexistent/tokens"), std::string::npos)
      << p.status().message();
  StatusOr<ServerConfig> typo = ParseServerConfig("[tls]\ncert = \"x\"\n", "s.toml", c);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("cert"), std::string::npos);
}

TEST(ServerConfigTest, LongtermStoreAndStaleness) {
  StatusOr<ServerConfig> d = DefaultServerConfig();
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->longterm_query_url, "");
  EXPECT_EQ(d->window_stale_after_ns, 300'000'000'000);
  StatusOr<ServerConfig> c = ParseServerConfig(
      "[longterm]\nquery_url = \"http://127.0.0.1:8428\"\ntoken = \"t\"\ntimeout = \"3s\"\n"
      "[window]\nstale_after = \"1m\"\n",
      "site.toml", *d);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->longterm_query_url, "http://127.0.0.1:8428");
  EXPECT_EQ(c->longterm_token, "t");
  EXPECT_EQ(c->longterm_timeout_ns, 3'000'000'000);
  EXPECT_EQ(c->window_stale_after_ns, 60'000'000'000);
  StatusOr<ServerConfig> bad =
      ParseServerConfig("[longterm]\ntimeout = \"0s\"\n", "site.toml", *d);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("longterm.timeout"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace gpufleet
