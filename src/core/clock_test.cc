#include "core/clock.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(ClockTest, FakeClockAdvancesOnlyWhenTold) {
  FakeClock clock(1000);
  EXPECT_EQ(clock.NowNs(), 1000);
  clock.Advance(500);
  EXPECT_EQ(clock.NowNs(), 1500);
  EXPECT_EQ(clock.MonotonicNs(), 1500);
  clock.SleepNs(kNsPerSecond);
  EXPECT_EQ(clock.NowNs(), 1500 + kNsPerSecond);
}

TEST(ClockTest, RealClockIsMonotonicAndNearWallTime) {
  RealClock& c = RealClock::Get();
  int64_t a = c.MonotonicNs();
  int64_t b = c.MonotonicNs();
  EXPECT_LE(a, b);
  // After 2020-01-01.
  EXPECT_GT(c.NowNs(), int64_t{1'577'836'800} * kNsPerSecond);
}

}  // namespace
}  // namespace gpufleet
