// FleetSimulator: `gpufleet server --simulate`: the simulated mixed fleet
// (sim collector + normalizer inside an Agent, exactly as `gpufleet agent
// --source sim` runs them) feeding the server's remote-write ingest path in
// process, on a clock sped up so that a scenario's episodes, and the
// incidents they cause, arrive within a minute.
//
// Thread safety: Start/Stop from one thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agent/agent.h"
#include "core/clock.h"
#include "core/status.h"
#include "server/ingest.h"

namespace gpufleet {

// Wall and monotonic time that run `scale` times faster than real time,
// starting at the real time of construction. Thread-safe.
class ScaledClock final : public Clock {
 public:
  explicit ScaledClock(double scale);
  int64_t NowNs() const override;
  int64_t MonotonicNs() const override;
  // Sleeps ns / scale of real time.
  void SleepNs(int64_t ns) override;
  double scale() const { return scale_; }

 private:
  int64_t Elapsed() const;
  const double scale_;
  const int64_t start_wall_ns_;
  const int64_t start_mono_ns_;
};

class FleetSimulator {
 public:
  // `scenario` is a file or "default". `clock` drives the simulation and
  // must outlive it; one collection happens every scenario interval of
  // `clock` time.
  static StatusOr<std::unique_ptr<FleetSimulator>> Create(const std::string& scenario,
                                                          ScaledClock& clock, Ingester& ingester);
  ~FleetSimulator();

  void Start();
  void Stop();
  // One collection, encoded as remote write and ingested.
  IngestResult StepOnce();
  uint64_t steps() const { return steps_.load(); }

 private:
  FleetSimulator(std::unique_ptr<Agent> agent, int64_t interval_ns, ScaledClock& clock,
                 Ingester& ingester)
      : agent_(std::move(agent)), interval_ns_(interval_ns), clock_(clock), ingester_(ingester) {}

  std::unique_ptr<Agent> agent_;
  const int64_t interval_ns_;
  ScaledClock& clock_;
  Ingester& ingester_;
  std::atomic<uint64_t> steps_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gpufleet
