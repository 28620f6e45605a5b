#include "detect/fleet_sim_model.h"

#include <algorithm>
#include <cmath>

namespace gpufleet::detect {
namespace {

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// Fills the fields that follow from m (see the header of TenantProfile).
void Derive(TenantProfile& p, double achievable_bw, std::mt19937_64& rng) {
  // Memory phases run at a fraction e of the achievable bandwidth.
  p.bw_demand = std::min(achievable_bw, p.mem_fraction * Uniform(rng, 0.7, 1.0) * achievable_bw);
  // In DRAM-bound phases most warps wait on memory; elsewhere few do.
  p.stall =
      p.mem_fraction * Uniform(rng, 0.5, 0.9) + (1 - p.mem_fraction) * Uniform(rng, 0.02, 0.08);
  // Streaming access (no reuse) misses L2; the rest hits it.
  p.l2_miss = std::min(0.95, 0.1 + 0.8 * p.mem_fraction * Uniform(rng, 0.5, 1.0));
}

}  // namespace

TenantProfile DrawProfile(WorkloadClass cls, double achievable_bw, std::mt19937_64& rng) {
  TenantProfile p;
  switch (cls) {
    case WorkloadClass::kTraining:
      p.mem_fraction = Uniform(rng, 0.2, 0.55);
      p.util = Uniform(rng, 0.9, 0.99);
      p.link = Uniform(rng, 0.05, 0.3);  // gradient all-reduce
      p.step_s = Uniform(rng, 0.5, 2.0);
      break;
    case WorkloadClass::kInference:
      p.mem_fraction = Uniform(rng, 0.4, 0.7);
      p.util = Uniform(rng, 0.6, 0.9);
      p.link = Uniform(rng, 0.0, 0.05);
      p.step_s = Uniform(rng, 0.2, 1.0);
      break;
    case WorkloadClass::kMemoryBound:
      p.mem_fraction = Uniform(rng, 0.75, 0.95);
      p.util = Uniform(rng, 0.85, 0.99);
      p.link = Uniform(rng, 0.0, 0.05);
      p.step_s = Uniform(rng, 0.2, 1.0);
      break;
  }
  p.sm_active = p.util * Uniform(rng, 0.85, 1.0);
  p.occupancy =
      cls == WorkloadClass::kMemoryBound ? Uniform(rng, 0.2, 0.9) : Uniform(rng, 0.25, 0.7);
  p.pcie = Uniform(rng, 0.01, 0.08);
  Derive(p, achievable_bw, rng);
  return p;
}

TenantProfile DrawNeighbour(ContentionCause cause, double achievable_bw, std::mt19937_64& rng) {
  TenantProfile n = DrawProfile(WorkloadClass::kTraining, achievable_bw, rng);
  switch (cause) {
    case ContentionCause::kBandwidthSaturation:  // a streaming neighbour
      n.mem_fraction = Uniform(rng, 0.6, 0.95);
      break;
    case ContentionCause::kMemoryPressure:  // a cache-heavy neighbour
      n.mem_fraction = Uniform(rng, 0.3, 0.7);
      break;
    case ContentionCause::kCoherency:  // a neighbour heavy on the shared link
      n.link = Uniform(rng, 0.2, 0.7);
      break;
  }
  Derive(n, achievable_bw, rng);
  return n;
}

DeviceSignals Solo(const TenantProfile& p) {
  return {p.util,    p.sm_active, p.occupancy, p.bw_demand, p.stall,
          p.l2_miss, p.link,      p.pcie,      p.step_s};
}

DeviceSignals Contended(const TenantProfile& v, const Contention& c, double achievable_bw) {
  const TenantProfile& n = c.neighbour;
  const double s = std::clamp(c.slowdown, 0.0, 0.95);
  const double dilation = 1 / (1 - s);  // D = T / T0 for the victim
  const double rn = std::max(0.0, c.neighbour_rate);
  DeviceSignals out;
  // Busy time and SM residency: either tenant keeps the device busy.
  out.util = 1 - (1 - v.util) * (1 - n.util);
  out.sm_active = 1 - (1 - v.sm_active) * (1 - n.sm_active);
  const double wv = v.sm_active * v.occupancy, wn = n.sm_active * n.occupancy;
  out.occupancy = std::min(1.0, (wv + wn) / std::max(out.sm_active, 1e-9));
  // The victim's extra time is spent stalled: non-stall cycles per step are
  // unchanged, the step is D times longer. Likewise the neighbour at rn.
  const double stall_v = 1 - (1 - v.stall) / dilation;
  const double stall_n = 1 - (1 - n.stall) * std::min(1.0, rn);
  out.stall = (wv * stall_v + wn * stall_n) / std::max(wv + wn, 1e-9);
  // DRAM traffic: bytes per unit of work are fixed, so each tenant moves its
  // demand times its work rate; memory pressure multiplies the victim's
  // bytes by its rise in L2 misses.
  double miss_v = v.l2_miss;
  double bytes_v = v.bw_demand / dilation;
  double bytes_n = n.bw_demand * rn;
  double link_extra = 0;
  switch (c.cause) {
    case ContentionCause::kMemoryPressure: {
      // Memory time scales with misses: D = 1 + m (q'/q - 1).
      const double rise = std::min(1 / v.l2_miss, 1 + (dilation - 1) / v.mem_fraction);
      miss_v = v.l2_miss * rise;
      bytes_v *= rise;
      break;
    }
    case ContentionCause::kBandwidthSaturation:
      bytes_n = n.bw_demand;  // the streaming neighbour is not slowed by the victim
      break;
    case ContentionCause::kCoherency:
      // The extra time waits on remote (peer or host) pages over a link.
      link_extra = c.link_efficiency * (1 - 1 / dilation);
      break;
  }
  out.bandwidth = std::min(achievable_bw, bytes_v + bytes_n);
  // L2 miss share over both tenants' accesses (accesses = bytes / miss share).
  const double acc_v = bytes_v / miss_v, acc_n = bytes_n / n.l2_miss;
  out.l2_miss = (acc_v * miss_v + acc_n * n.l2_miss) / std::max(acc_v + acc_n, 1e-12);
  out.link = std::min(1.0, v.link / dilation + n.link * rn + (c.host_path ? 0 : link_extra));
  out.pcie = std::min(1.0, v.pcie / dilation + n.pcie * rn + (c.host_path ? link_extra : 0));
  out.step_s = v.step_s * dilation;
  return out;
}

DeviceSignals Throttled(const TenantProfile& p, double clock_factor) {
  const double c = std::clamp(clock_factor, 0.1, 1.0);
  const double dilation = (1 - p.mem_fraction) / c + p.mem_fraction;
  DeviceSignals out = Solo(p);
  out.bandwidth = p.bw_demand / dilation;
  out.stall = p.stall / dilation;  // memory waits fixed in time, compute stretched
  out.link = p.link / dilation;
  out.pcie = p.pcie / dilation;
  out.step_s = p.step_s * dilation;
  out.sm_clock = c;
  return out;
}

DeviceSignals Starved(const TenantProfile& p, double wait_fraction) {
  const double keep = 1 - std::clamp(wait_fraction, 0.0, 0.95);
  DeviceSignals out = Solo(p);
  out.util *= keep;
  out.sm_active *= keep;
  out.bandwidth *= keep;
  out.link *= keep;
  out.pcie *= keep;
  out.step_s = p.step_s / keep;
  return out;
}

}  // namespace gpufleet::detect
