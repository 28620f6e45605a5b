// Agent: runs collectors on a schedule, normalizes their readings into
// canonical samples, and publishes an immutable snapshot that /metrics serves.
//
// Fault containment (the reason this class exists):
// - every device is collected on its own Worker with a deadline, so a hung
//   vendor call costs only that device ("timeout") and never blocks a scrape;
// - a lost device is served as gpu_up{reason="lost"} 0 with no stale values,
//   while every other device keeps being served;
// - a collector whose library is missing or mismatched is retried with
//   re-discovery every `rediscover_interval_ns`, so the agent recovers when
//   the device or driver comes back.
//
// Thread safety: CollectOnce/Run are called from one thread; snapshot(),
// Render() and Stop() from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agent/self_metrics.h"
#include "agent/worker.h"
#include "collect/collector.h"
#include "core/clock.h"
#include "core/sample.h"
#include "expo/exposition_writer.h"
#include "normalize/normalizer.h"

namespace gpufleet {

struct AgentOptions {
  NodeIdentity node;
  int64_t interval_ns = 1'000'000'000;
  // How long one cycle waits for device collections; 0 = 80% of the interval,
  // at most 5 s.
  int64_t collect_timeout_ns = 0;
  // How long a cycle waits for a discovery it started.
  int64_t discover_timeout_ns = 5'000'000'000;
  // Retry period for failed discovery and for devices that stay down.
  int64_t rediscover_interval_ns = 30'000'000'000;
  // Mapping table per collector source; default MappingTable::ForSource.
  std::function<StatusOr<MappingTable>(std::string_view source)> table_for;
  // Called every cycle before publishing, once per collector and per extra
  // source, on the samples that source produced this cycle (e.g. to add
  // workload labels to per-process series; the source name lets it skip the
  // simulator, whose pids are not this host's). Optional.
  std::function<void(std::string_view source, std::span<Sample> samples)> enrich;
};

// A source of already-canonical samples (e.g. a translated vendor exporter
// scrape). Called on the agent thread once per cycle; must honour its own
// timeout. `name` labels its self-metrics; `errors` counts skipped input by
// reason (parse_error, unmapped, sentinel, absurd) even when it returns OK.
struct ExtraSource {
  std::string name;
  std::function<Status(std::vector<Sample>& out, std::map<std::string, uint64_t>& errors)> collect;
};

struct Snapshot {
  std::vector<Sample> samples;  // sorted by name, then labels
  int64_t timestamp_ns = 0;     // wall time of the cycle
  int devices_up = 0;
  int devices_discovered = 0;
};

// Maps a collector's Status to the gpu_up / error reason label.
std::string_view DownReason(const Status& status);

class Agent {
 public:
  // `clock` is for timestamps and schedule; deadlines always use the real
  // steady clock because they bound real blocking calls.
  Agent(AgentOptions options, std::vector<std::unique_ptr<Collector>> collectors, Clock& clock);
  ~Agent();

  void AddExtraSource(ExtraSource source);

  // Runs one cycle and publishes its snapshot.
  void CollectOnce();
  // Calls CollectOnce every interval until Stop().
  void Run();
  void Stop();

  std::shared_ptr<const Snapshot> snapshot() const;
  std::string Render(ExpositionFormat format) const;
  // True after the first cycle completed.
  bool ready() const { return ready_.load(); }
  // True when some device call is still stuck (the process should exit with
  // _exit rather than wait for it).
  bool AnyWorkerBusy();

  SelfMetrics& self_metrics() { return self_; }

 private:
  struct DeviceSlot;
  struct CollectorState;

  void CycleCollector(CollectorState& cs, int64_t wall_ns, std::vector<Sample>& out, int& up,
                      int& discovered);
  bool EnsureDiscovered(CollectorState& cs, int64_t mono_ns);
  void ApplyDiscovery(CollectorState& cs);
  void CountError(const std::string& collector, std::string_view reason, uint64_t n = 1);

  AgentOptions options_;
  Clock& clock_;
  std::vector<std::unique_ptr<CollectorState>> collectors_;
  std::vector<ExtraSource> extra_;
  SelfMetrics self_;

  mutable std::mutex snap_mu_;
  std::shared_ptr<const Snapshot> snapshot_;  // guarded by snap_mu_
  std::atomic<bool> ready_{false};

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // guarded by stop_mu_
};

}  // namespace gpufleet
