#include "net/url.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(UrlTest, PercentEncodeKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(PercentEncode("{__name__=\"gpu_up\"}[3600s]"),
            "%7B__name__%3D%22gpu_up%22%7D%5B3600s%5D");
  EXPECT_EQ(PercentEncode("a-b_c.d~e f/\xff"), "a-b_c.d~e%20f%2F%FF");
  EXPECT_EQ(PercentEncode(""), "");
}

TEST(UrlTest, SplitsBaseAndPath) {
  StatusOr<HttpUrl> u = ParseHttpUrl("http://127.0.0.1:8428/api/v1/write?extra_label=a");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->base, "http://127.0.0.1:8428");
  EXPECT_EQ(u->host, "127.0.0.1:8428");
  EXPECT_EQ(u->path, "/api/v1/write?extra_label=a");
  EXPECT_EQ(u->Full(), "http://127.0.0.1:8428/api/v1/write?extra_label=a");
}

TEST(UrlTest, MissingPathTakesTheDefault) {
  StatusOr<HttpUrl> alertmanager = ParseHttpUrl("http://127.0.0.1:9093");
  ASSERT_TRUE(alertmanager.ok());
  EXPECT_EQ(alertmanager->path, "/");
  StatusOr<HttpUrl> exporter = ParseHttpUrl("http://node1:9400", "/metrics");
  ASSERT_TRUE(exporter.ok());
  EXPECT_EQ(exporter->Full(), "http://node1:9400/metrics");
}

TEST(UrlTest, RejectsOtherSchemesAndMissingHostsWithTheUrlQuoted) {
  StatusOr<HttpUrl> ftp = ParseHttpUrl("ftp://x/y");
  ASSERT_FALSE(ftp.ok());
  EXPECT_NE(ftp.status().message().find("'ftp://x/y'"), std::string::npos);
  EXPECT_FALSE(ParseHttpUrl("http:///api/v1/write").ok());
  EXPECT_FALSE(ParseHttpUrl("127.0.0.1:9093").ok());
  StatusOr<HttpUrl> tls = ParseHttpUrl("https://h/hook/1");
  ASSERT_TRUE(tls.ok());
  EXPECT_EQ(tls->base, "https://h");
  EXPECT_EQ(tls->path, "/hook/1");
}

TEST(UrlTest, ListenAddressForms) {
  StatusOr<ListenAddress> a = ParseListenAddress("127.0.0.1:9835");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9835);
  StatusOr<ListenAddress> all = ParseListenAddress(":9000");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->host, "0.0.0.0");
  StatusOr<ListenAddress> bare = ParseListenAddress("9001");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->host, "127.0.0.1");
  EXPECT_EQ(bare->port, 9001);
  StatusOr<ListenAddress> v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
}

TEST(UrlTest, BadListenPortNamesFlagAndValue) {
  StatusOr<ListenAddress> bad = ParseListenAddress("host:notaport", "listen");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("listen: bad port in 'host:notaport'"), std::string::npos);
  EXPECT_FALSE(ParseListenAddress("host:65536").ok());
  EXPECT_FALSE(ParseListenAddress("host:-1").ok());
}

TEST(UrlTest, LoopbackHostsAreOnlyThoseOfThisMachine) {
  for (const char* h : {"127.0.0.1", "127.1.2.254", "localhost", "LocalHost", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  }
  for (const char* h : {"0.0.0.0", "::", "[::]", "", "10.0.0.1", "128.0.0.1", "127.0.0.256",
                        "127.0.0", "127.0.0.1.5", "127.-1.0.1", "127.0.0.1x", "localhost.evil.com",
                        "gpu-server", "::ffff:10.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
  }
}

}  // namespace
}  // namespace gpufleet
