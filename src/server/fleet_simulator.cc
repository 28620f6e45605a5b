#include "server/fleet_simulator.h"

#include <chrono>

#include "collect/scenario.h"
#include "collect/sim_collector.h"
#include "expo/remote_write.h"

namespace gpufleet {

ScaledClock::ScaledClock(double scale)
    : scale_(scale > 0 ? scale : 1),
      start_wall_ns_(RealClock::Get().NowNs()),
      start_mono_ns_(RealClock::Get().MonotonicNs()) {}

int64_t ScaledClock::Elapsed() const {
  return static_cast<int64_t>(static_cast<double>(RealClock::Get().MonotonicNs() - start_mono_ns_) *
                              scale_);
}

int64_t ScaledClock::NowNs() const { return start_wall_ns_ + Elapsed(); }
int64_t ScaledClock::MonotonicNs() const { return start_mono_ns_ + Elapsed(); }
void ScaledClock::SleepNs(int64_t ns) {
  RealClock::Get().SleepNs(static_cast<int64_t>(static_cast<double>(ns) / scale_));
}

StatusOr<std::unique_ptr<FleetSimulator>> FleetSimulator::Create(const std::string& scenario,
                                                                 ScaledClock& clock,
                                                                 Ingester& ingester) {
  ASSIGN_OR_RETURN(Scenario s, LoadScenario(scenario));
  int64_t interval_ns =
      s.interval_s > 0 ? static_cast<int64_t>(s.interval_s * kNsPerSecond) : 10 * kNsPerSecond;
  std::vector<std::unique_ptr<Collector>> collectors;
  // A hang episode sleeps on the sped-up clock, so it ends when the scenario
  // says, not minutes of real time later.
  SimCollectorOptions sim_options;
  sim_options.hang_clock = &clock;
  sim_options.max_hang_ns = 4 * interval_ns;
  collectors.push_back(NewSimCollector(std::move(s), clock, sim_options));
  AgentOptions options;
  options.interval_ns = interval_ns;
  // Deadlines are real time; the simulator answers at once.
  options.collect_timeout_ns = 5 * kNsPerSecond;
  options.node.node = "simulated";
  auto agent = std::make_unique<Agent>(options, std::move(collectors), clock);
  return std::unique_ptr<FleetSimulator>(
      new FleetSimulator(std::move(agent), interval_ns, clock, ingester));
}

FleetSimulator::~FleetSimulator() { Stop(); }

IngestResult FleetSimulator::StepOnce() {
  agent_->CollectOnce();
  std::shared_ptr<const Snapshot> snap = agent_->snapshot();
  steps_++;
  if (snap == nullptr) return {};
  std::string body = EncodeRemoteWrite(ToRemoteWrite(snap->samples, snap->timestamp_ns / kNsPerMs));
  return ingester_.IngestRemoteWrite(body);
}

void FleetSimulator::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    auto period = std::chrono::nanoseconds(
        static_cast<int64_t>(static_cast<double>(interval_ns_) / clock_.scale()));
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      StepOnce();
      lock.lock();
      cv_.wait_for(lock, period, [this] { return stop_; });
    }
  });
}

void FleetSimulator::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gpufleet
