// Worker: a dedicated thread that runs one task at a time, so the caller can
// wait for it with a deadline and walk away when a vendor call hangs.
//
// A vendor library call stuck in the kernel (D state) cannot be cancelled.
// The agent therefore gives every device its own Worker: a hung call ties up
// only that worker; the agent marks the device down ("timeout") and does not
// start another call on it until the stuck one returns.
//
// Thread safety: Start/WaitUntil/busy are called from one owner thread. The
// task runs on the worker thread; everything it writes is visible to the
// owner after WaitUntil returned true (mutex hand-off).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace gpufleet {

class Worker {
 public:
  Worker();
  // Blocks until a running task returns (tasks are bounded by their own
  // vendor call; the agent binary exits without destroying hung workers).
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts `task` unless the previous one is still running (returns false).
  bool Start(std::function<void()> task);
  // Waits for the running task until `deadline_ns` on the steady clock
  // (RealClock::MonotonicNs). Returns true when no task is running.
  bool WaitUntil(int64_t deadline_ns);
  bool busy();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> task_;  // guarded by mu_
  bool running_ = false;        // guarded by mu_: task_ set and not finished
  bool stop_ = false;           // guarded by mu_
  std::thread thread_;
};

}  // namespace gpufleet
