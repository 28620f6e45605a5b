#include "agent/worker.h"

#include <chrono>

namespace gpufleet {

Worker::Worker() : thread_([this] { Loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool Worker::Start(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_) return false;
    task_ = std::move(task);
    running_ = true;
  }
  cv_.notify_all();
  return true;
}

bool Worker::WaitUntil(int64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(mu_);
  auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline_ns));
  return cv_.wait_until(lock, deadline, [this] { return !running_; });
}

bool Worker::busy() {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void Worker::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || running_; });
    if (running_) {
      std::function<void()> task = std::move(task_);
      lock.unlock();
      task();
      lock.lock();
      running_ = false;
      cv_.notify_all();
      continue;
    }
    if (stop_) return;
  }
}

}  // namespace gpufleet
