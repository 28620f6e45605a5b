#include "core/clock.h"

#include <chrono>
#include <thread>

namespace gpufleet {

int64_t RealClock::NowNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t RealClock::MonotonicNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RealClock::SleepNs(int64_t ns) {
  if (ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
}

RealClock& RealClock::Get() {
  static RealClock clock;
  return clock;
}

}  // namespace gpufleet
