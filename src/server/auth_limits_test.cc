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
