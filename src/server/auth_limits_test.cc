#include "server/auth_limits.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(AuthLimitsTest, ConstantTimeEqualsComparesContentAndLength) {
  EXPECT_TRUE(ConstantTimeEquals("s3cret", "s3cret"));
  EXPECT_FALSE(ConstantTimeEquals("s3cret", "s3creT"));
  EXPECT_FALSE(ConstantTimeEquals("s3cret", "s3cre"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(AuthLimitsTest, BearerTokenChecksSchemeAndToken) {
  EXPECT_TRUE(BearerAuthorized("", ""));  // no token configured: open
  EXPECT_TRUE(BearerAuthorized("Bearer abc", "abc"));
  EXPECT_TRUE(BearerAuthorized("bearer  abc ", "abc"));
  EXPECT_FALSE(BearerAuthorized("Bearer abd", "abc"));
  EXPECT_FALSE(BearerAuthorized("Basic abc", "abc"));
  EXPECT_FALSE(BearerAuthorized("", "abc"));
  EXPECT_FALSE(BearerAuthorized("Bearer ", "abc"));
}

TEST(AccessRuleTest, ClassifiesByMethodWithAnExplicitExemptionList) {
  EXPECT_EQ(ClassifyRequest("GET", "/"), AccessKind::kOpen);
  EXPECT_EQ(ClassifyRequest("GET", "/index.html"), AccessKind::kOpen);
  EXPECT_EQ(ClassifyRequest("HEAD", "/assets/app.3f2a.js"), AccessKind::kOpen);
  EXPECT_EQ(ClassifyRequest("GET", "/favicon.ico"), AccessKind::kOpen);
  EXPECT_EQ(ClassifyRequest("GET", "/-/healthy"), AccessKind::kOpen);
  EXPECT_EQ(ClassifyRequest("GET", "/-/ready"), AccessKind::kOpen);
  // Not the exemption: the folder itself, traversal, anything else.
  EXPECT_EQ(ClassifyRequest("GET", "/assets/"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("GET", "/assets/../api/v1/incidents"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("GET", "/assets//etc/passwd"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("GET", "/api/v1/incidents"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("GET", "/metrics"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("GET", "/api/v1/some-route-added-later"), AccessKind::kRead);
  // POSTs that only compute are reads; every other POST and method writes.
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/place"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/plan/inference"), AccessKind::kRead);
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/plan/"), AccessKind::kWrite);
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/plan/x/y"), AccessKind::kWrite);
  EXPECT_EQ(ClassifyRequest("POST", "/"), AccessKind::kWrite);
  EXPECT_EQ(ClassifyRequest("POST", "/assets/app.js"), AccessKind::kWrite);
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/write"), AccessKind::kWrite);
  EXPECT_EQ(ClassifyRequest("POST", "/api/v1/incidents/7/ack"), AccessKind::kWrite);
  for (const char* m : {"PUT", "DELETE", "PATCH", "OPTIONS", "get"}) {
    EXPECT_EQ(ClassifyRequest(m, "/api/v1/incidents"), AccessKind::kWrite) << m;
  }
}

// The whole table: where the server listens x what the request does x which
// token it carries.
TEST(AccessRuleTest, DecidesEveryCombination) {
  const std::string kNone, kBad = "Bearer nope", kRead = "Bearer r3ad", kAdmin = "Bearer adm1n";
  struct Row {
    bool beyond;
    AccessKind kind;
    std::string header;
    int want;
  };
  const AccessKind R = AccessKind::kRead, W = AccessKind::kWrite, O = AccessKind::kOpen;
  const Row rows[] = {
      // Loopback: reads open whatever is sent; writes need the admin token.
      {false, R, kNone, 0},
      {false, R, kBad, 0},
      {false, R, kRead, 0},
      {false, R, kAdmin, 0},
      {false, W, kNone, 401},
      {false, W, kBad, 401},
      {false, W, kRead, 403},
      {false, W, kAdmin, 0},
      {false, O, kNone, 0},
      // Beyond loopback: reads need a read or admin token too.
      {true, R, kNone, 401},
      {true, R, kBad, 401},
      {true, R, kRead, 0},
      {true, R, kAdmin, 0},
      {true, W, kNone, 401},
      {true, W, kBad, 401},
      {true, W, kRead, 403},
      {true, W, kAdmin, 0},
      {true, O, kNone, 0},
      {true, O, kBad, 0},
  };
  for (const Row& row : rows) {
    AccessPolicy p{row.beyond, {"adm1n", "other-admin"}, {"r3ad"}};
    AccessDecision d = Authorize(p, row.kind, row.header);
    EXPECT_EQ(d.http_status, row.want)
        << "beyond=" << row.beyond << " kind=" << static_cast<int>(row.kind) << " header='"
        << row.header << "' message=" << d.message;
    EXPECT_EQ(d.message.empty(), row.want == 0);
  }
  // The second admin token works as well; the scheme is case-insensitive.
  AccessPolicy p{true, {"adm1n", "other-admin"}, {"r3ad"}};
  EXPECT_EQ(Authorize(p, AccessKind::kWrite, "bearer other-admin").http_status, 0);
  EXPECT_EQ(Authorize(p, AccessKind::kRead, "Basic r3ad").http_status, 401);
  EXPECT_EQ(Authorize(p, AccessKind::kRead, "Bearer r3a").http_status, 401);
  // No admin token on loopback: writes stay open as they always were.
  AccessPolicy open{false, {}, {}};
  EXPECT_EQ(Authorize(open, AccessKind::kWrite, "").http_status, 0);
}

TEST(AccessRuleTest, RefusesPoliciesItCannotProtect) {
  EXPECT_TRUE(CheckAccessPolicy({false, {}, {}}, false).ok());
  EXPECT_TRUE(CheckAccessPolicy({false, {"a"}, {"r"}}, false).ok());
  EXPECT_TRUE(CheckAccessPolicy({true, {"a"}, {}}, true).ok());

  Status no_tls = CheckAccessPolicy({true, {"a"}, {}}, false);
  EXPECT_EQ(no_tls.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(no_tls.message().find("without TLS ([tls] cert_file and key_file)"), std::string::npos)
      << no_tls.message();
  Status neither = CheckAccessPolicy({true, {}, {}}, false);
  EXPECT_NE(neither.message().find("without TLS ([tls] cert_file and key_file) and an admin token"),
            std::string::npos)
      << neither.message();
  Status no_admin = CheckAccessPolicy({true, {}, {}}, true);
  EXPECT_NE(no_admin.message().find("without an admin token"), std::string::npos)
      << no_admin.message();
  EXPECT_EQ(CheckAccessPolicy({false, {}, {"r"}}, false).code(), StatusCode::kFailedPrecondition);

  Status both = CheckAccessPolicy({false, {"same"}, {"same"}}, false);
  EXPECT_EQ(both.code(), StatusCode::kInvalidArgument);
  Status spaced = CheckAccessPolicy({false, {"ok", "with blank"}, {}}, false);
  EXPECT_EQ(spaced.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(spaced.message().find("admin token #2"), std::string::npos) << spaced.message();
  EXPECT_EQ(spaced.message().find("with blank"), std::string::npos);  // never quoted
  EXPECT_FALSE(CheckAccessPolicy({false, {"a"}, {""}}, false).ok());
}

TEST(AuthLimitsTest, TokenBucketLimitsPerClientAndRefills) {
  FakeClock clock;
  RateLimitOptions o;
  o.requests_per_second = 2;
  o.burst = 3;
  RateLimiter limiter(o, clock);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Admit("10.0.0.1"), 0) << i;
  EXPECT_EQ(limiter.Admit("10.0.0.1"), 1);  // empty: retry after a second
  EXPECT_EQ(limiter.Admit("10.0.0.2"), 0);  // other clients unaffected
  clock.Advance(kNsPerSecond / 2);          // one token back
  EXPECT_EQ(limiter.Admit("10.0.0.1"), 0);
  EXPECT_GE(limiter.Admit("10.0.0.1"), 1);
}

TEST(AuthLimitsTest, ClientTableStaysBounded) {
  FakeClock clock;
  RateLimitOptions o;
  o.requests_per_second = 1;
  o.burst = 1;
  o.max_clients = 2;
  RateLimiter limiter(o, clock);
  EXPECT_EQ(limiter.Admit("a"), 0);
  EXPECT_EQ(limiter.Admit("b"), 0);
  EXPECT_EQ(limiter.Admit("c"), 0);  // evicts the idlest, still admits
  EXPECT_GE(limiter.Admit("c"), 1);
}

TEST(AuthLimitsTest, ZeroRateDisablesLimiting) {
  FakeClock clock;
  RateLimitOptions o;
  o.requests_per_second = 0;
  RateLimiter limiter(o, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(limiter.Admit("x"), 0);
}

}  // namespace
}  // namespace gpufleet
