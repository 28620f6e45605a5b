#include "agent/worker.h"

#include <atomic>
#include <future>

#include <gtest/gtest.h>

#include "core/clock.h"

namespace gpufleet {
namespace {

TEST(WorkerTest, RunsTaskAndReportsCompletion) {
  Worker w;
  int value = 0;
  ASSERT_TRUE(w.Start([&] { value = 42; }));
  ASSERT_TRUE(w.WaitUntil(RealClock::Get().MonotonicNs() + 10 * kNsPerSecond));
  EXPECT_EQ(value, 42);
  EXPECT_FALSE(w.busy());
}

TEST(WorkerTest, RefusesNewTaskWhileOneIsStuckAndGivesUpAtDeadline) {
  Worker w;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE(w.Start([released] { released.wait(); }));
  EXPECT_FALSE(w.WaitUntil(RealClock::Get().MonotonicNs() + 20 * kNsPerMs));
  EXPECT_TRUE(w.busy());
  EXPECT_FALSE(w.Start([] {}));
  release.set_value();
  ASSERT_TRUE(w.WaitUntil(RealClock::Get().MonotonicNs() + 10 * kNsPerSecond));
  EXPECT_TRUE(w.Start([] {}));
}

}  // namespace
}  // namespace gpufleet
