#include "server/server_config.h"

#include <gtest/gtest.h>

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
