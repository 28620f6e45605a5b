// GET /api/v1/fleet: one row per device with its health and latest readings,
// from the window store, for the console's fleet page (contract in
// docs/server.md, "Console APIs").
//
// A device is node + (gpu_uuid | gpu | pci_bus_id) + partition_id, as the
// detectors name them. Each value is the latest sample of its series within
// [now - window_ns, now]; absent readings are null. A device whose newest
// sample of any metric is older than now - stale_after_ns is counted
// "stale" (and neither up nor down). team / workload come from the labels of
// gpu_workload_info and gpu_workload_step_duration_seconds (several joined
// with ","). Filters (vendor, model, cloud, node, team) are exact matches;
// team matches any one of a device's teams.
//
// Cost: one pass over the latest point of each series of nine metrics
// (WindowStore::ForEachLatest), no copy of the points; the answer is written
// without an intermediate JSON tree. FleetSummary keeps what it derived from
// each series' labels (its device, names, team, workload, reason) by series
// id between calls, so a call reads labels only for series new since the
// last one (bench/fleet_api_bench and bench/fleet_api_vs_victoriametrics.py
// measure 10,000 devices).
//
// Thread safety: FleetSummary serializes its calls; the WindowStore is
// thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "detect/detect_config.h"
#include "store/window_store.h"

namespace gpufleet {

struct FleetFilter {
  std::string vendor, model, cloud, node, team;
};

// Where the configured memory-contention rule fires on the contention map:
// bandwidth utilization above one level while SM occupancy is below another.
struct ContentionRegion {
  std::string rule;  // the rule's name, e.g. "memory_contention"
  double bandwidth_above = 0;
  double occupancy_below = 0;
};

// The first rule whose conditions are exactly bandwidth ">" and occupancy
// "<" (the field rule); nullopt when the configuration has none.
std::optional<ContentionRegion> FindContentionRegion(const detect::DetectConfig& config);

struct FleetOptions {
  int64_t window_ns = 30LL * 60 * 1'000'000'000;
  int64_t stale_after_ns = 5LL * 60 * 1'000'000'000;
  // Answered as "contention_region" (null when unset).
  std::optional<ContentionRegion> contention_region;
};

// The canonical metrics the summary reads (for benchmarks that build a fleet).
std::span<const char* const> FleetSummaryMetrics();

// `open_incidents`: open incidents per device, by gpu uuid or by the
// device's "node/gpu" key (incident device names).
class FleetSummary {
 public:
  FleetSummary();
  ~FleetSummary();
  FleetSummary(const FleetSummary&) = delete;
  FleetSummary& operator=(const FleetSummary&) = delete;

  // The cache belongs to one store: a call with another store starts afresh.
  std::string Json(const WindowStore& window, const FleetFilter& filter,
                   const std::unordered_map<std::string, int>& open_incidents, int64_t now_ns,
                   const FleetOptions& options);

  // Series whose derived labels are cached (for tests of the eviction).
  size_t cached_series() const;

 private:
  struct Cache;
  mutable std::mutex mu_;
  std::unique_ptr<Cache> cache_;
};

// One call with a fresh cache.
std::string FleetSummaryJson(const WindowStore& window, const FleetFilter& filter,
                             const std::unordered_map<std::string, int>& open_incidents,
                             int64_t now_ns, const FleetOptions& options);

}  // namespace gpufleet
