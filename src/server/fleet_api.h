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
// Cost: one pass over the latest point of each series of eight metrics, no
// copy of the points; the answer is written without an intermediate JSON
// tree (bench/fleet_api_vs_victoriametrics.py measures 10,000 devices).
//
// Thread safety: reads the thread-safe WindowStore; otherwise pure.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

#include "store/window_store.h"

namespace gpufleet {

struct FleetFilter {
  std::string vendor, model, cloud, node, team;
};

struct FleetOptions {
  int64_t window_ns = 30LL * 60 * 1'000'000'000;
  int64_t stale_after_ns = 5LL * 60 * 1'000'000'000;
};

// The canonical metrics the summary reads (for benchmarks that build a fleet).
std::span<const char* const> FleetSummaryMetrics();

// `open_incidents`: open incidents per device, by gpu uuid or by the
// device's "node/gpu" key (incident device names).
std::string FleetSummaryJson(const WindowStore& window, const FleetFilter& filter,
                             const std::unordered_map<std::string, int>& open_incidents,
                             int64_t now_ns, const FleetOptions& options);

}  // namespace gpufleet
