// The simulated fleet: a Collector (source "sim") over a Scenario, so the
// agent, the server and the detectors run without a GPU.
//
// Discover() returns one DeviceInfo per GPU or partition, in scenario order,
// with vendor-format UUIDs (NVIDIA "GPU-...", AMD GUID, Intel PCI-derived)
// that depend only on node name and GPU index, and node/cloud/region set.
// Collect() emits readings named after the canonical metrics in canonical
// units (data/mappings/sim.toml maps them 1:1 with method="sim"), computed by
// sim_model.h at the clock's time since the collector was created.
//
// Episodes: gpu_lost -> Collect returns Unavailable("lost") inside its
// window; hang -> Collect blocks on `hang_clock` until the window ends (at
// most max_hang_ns) and then returns DeadlineExceeded; xid -> the
// gpu_xid_errors_total{code} counter steps by one at start_s.
//
// Thread safety: Collect() may run concurrently for different devices (each
// device has its own state and lock); Discover() is const over the scenario.
#pragma once

#include <memory>

#include "collect/collector.h"
#include "collect/scenario.h"
#include "core/clock.h"

namespace gpufleet {

struct SimCollectorOptions {
  // Clock a hang episode sleeps on; nullptr = RealClock::Get(). Tests pass a
  // FakeClock to observe the block without waiting.
  Clock* hang_clock = nullptr;
  int64_t max_hang_ns = 120 * kNsPerSecond;
};

// `clock` must outlive the collector; scenario time 0 is clock.MonotonicNs()
// at construction.
std::unique_ptr<Collector> NewSimCollector(Scenario scenario, Clock& clock,
                                           SimCollectorOptions options = {});

}  // namespace gpufleet
