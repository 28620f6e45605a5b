// Clocks. Everything that reads time takes a Clock& so tests can use FakeClock.
//
// Thread safety: all methods of RealClock and FakeClock are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace gpufleet {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, nanoseconds since the Unix epoch (for sample timestamps).
  virtual int64_t NowNs() const = 0;
  // Monotonic time in nanoseconds from an arbitrary origin (for durations,
  // deadlines and rates).
  virtual int64_t MonotonicNs() const = 0;
  // Blocks for `ns` of this clock's time. FakeClock advances instead.
  virtual void SleepNs(int64_t ns) = 0;
};

class RealClock final : public Clock {
 public:
  int64_t NowNs() const override;
  int64_t MonotonicNs() const override;
  void SleepNs(int64_t ns) override;
  // A process-wide instance.
  static RealClock& Get();
};

// Manually advanced clock. Wall and monotonic time move together.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_ns = 1'700'000'000'000'000'000) : now_ns_(start_ns) {}
  int64_t NowNs() const override { return now_ns_.load(); }
  int64_t MonotonicNs() const override { return now_ns_.load(); }
  void SleepNs(int64_t ns) override { Advance(ns); }
  void Advance(int64_t ns) { now_ns_.fetch_add(ns); }
  void Set(int64_t ns) { now_ns_.store(ns); }

 private:
  std::atomic<int64_t> now_ns_;
};

constexpr int64_t kNsPerUs = 1'000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerSecond = 1'000'000'000;

}  // namespace gpufleet
