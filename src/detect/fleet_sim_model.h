// The physical model behind the detection simulator (fleet_sim.h): what a
// device's counters read when one workload runs alone, beside a neighbour
// that contends for one resource, throttled, or starved of input. Every
// signal a detector reads is computed here from a workload's solo profile,
// the slowdown measured by Gavel for a co-located pair, and the device's
// achievable bandwidth; docs/detection.md ("The simulator's model") writes
// the equations down with their sources.
//
// Units: every ratio is a fraction of the device's peak (bandwidth, link,
// PCIe) or of time / warp cycles (utilization, SM active, occupancy, stall
// share, L2 miss share); step time in seconds. Pure functions, no state.
#pragma once

#include <random>

namespace gpufleet::detect {

// A workload alone on a device. `mem_fraction` is the share of its step
// time bound by DRAM; the other fields follow from it (DrawProfile).
struct TenantProfile {
  double mem_fraction = 0.3;  // m
  double bw_demand = 0.2;     // d: DRAM bytes/s alone / peak
  double util = 0.95;         // time with a kernel running
  double sm_active = 0.9;     // a: SM-cycles with a warp resident
  double occupancy = 0.5;     // o: resident warps / max, over active cycles
  double stall = 0.15;        // share of warp cycles stalled on memory
  double l2_miss = 0.3;       // q: L2 misses / L2 accesses
  double link = 0.1;          // interconnect bytes/s / peak
  double pcie = 0.03;         // PCIe bytes/s / peak
  double step_s = 1;          // T0
};

enum class WorkloadClass { kTraining, kInference, kMemoryBound };

// Draws a solo profile of the class; `achievable_bw` is the fraction of
// the peak bandwidth a streaming kernel reaches on the device (A).
TenantProfile DrawProfile(WorkloadClass cls, double achievable_bw, std::mt19937_64& rng);

// What the device's counters read (before noise).
struct DeviceSignals {
  double util = 0, sm_active = 0, occupancy = 0, bandwidth = 0, stall = 0, l2_miss = 0;
  double link = 0, pcie = 0;
  double step_s = 0;  // the victim's (or only) workload's step time
  double sm_clock = 1;  // SM clock, share of the model's maximum
};

DeviceSignals Solo(const TenantProfile& p);

enum class ContentionCause { kMemoryPressure, kBandwidthSaturation, kCoherency };

struct Contention {
  ContentionCause cause = ContentionCause::kBandwidthSaturation;
  double slowdown = 0;           // victim: 1 - norm_a (Gavel)
  double neighbour_rate = 1;     // neighbour: norm_b (Gavel)
  TenantProfile neighbour;       // drawn for the cause (DrawNeighbour)
  double link_efficiency = 0.7;  // coherency: link bytes/s while waiting / peak
  bool host_path = false;        // coherency: host pages over PCIe, else peer link
};

// A neighbour that contends for the cause's resource.
TenantProfile DrawNeighbour(ContentionCause cause, double achievable_bw, std::mt19937_64& rng);

// Victim + neighbour on one device; achieved bandwidth capped at A.
DeviceSignals Contended(const TenantProfile& victim, const Contention& c, double achievable_bw);

// SM clock at `clock_factor` of nominal (thermal or power limit); memory
// clock unchanged, so only the compute share of a step stretches.
DeviceSignals Throttled(const TenantProfile& p, double clock_factor);

// The device waits `wait_fraction` of the time for something off the GPU
// (input pipeline, a slow network on one cloud): every rate drops by it.
DeviceSignals Starved(const TenantProfile& p, double wait_fraction);

}  // namespace gpufleet::detect
