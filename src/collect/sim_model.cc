#include "collect/sim_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace gpufleet {

namespace {

constexpr double kContextBytes = 512.0 * 1024 * 1024;  // CUDA/HIP/L0 context per process
constexpr double kThermalTauS = 20;

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t HashString(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// Deterministic noise in [-1, 1] for (device, signal, second).
double Noise(uint64_t key, uint64_t signal, int64_t second) {
  uint64_t h = Mix(key ^ Mix(signal * 0x100000001b3ull ^ static_cast<uint64_t>(second)));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double Clamp(double v, double lo, double hi) { return std::min(hi, std::max(lo, v)); }

// MIG profile "3g.40gb" -> (3 compute slices of 7, 40 GB).
bool ParseMigProfile(const std::string& profile, int& slices, int& gb) {
  return std::sscanf(profile.c_str(), "%dg.%dgb", &slices, &gb) == 2 && slices > 0 && gb > 0;
}

// Effects of the active episodes on one evaluation.
struct EpisodeEffects {
  double contention = 0;  // memory_contention magnitude
  double saturation = 0;  // bandwidth_saturation
  double coherency = 0;
  double thermal = 0;
  double power_cap = 0;
  double ecc_corrected_per_s = 0;
  double ecc_uncorrected_per_s = 0;
};

EpisodeEffects ActiveEffects(const SimDevice& d, double t_s) {
  EpisodeEffects e;
  for (const ScenarioEpisode* ep : d.episodes) {
    if (!ep->ActiveAt(t_s)) continue;
    const double m = ep->magnitude;
    switch (ep->kind) {
      case EpisodeKind::kMemoryContention:
        e.contention = std::max(e.contention, m);
        break;
      case EpisodeKind::kBandwidthSaturation:
        e.saturation = std::max(e.saturation, m);
        break;
      case EpisodeKind::kCoherency:
        e.coherency = std::max(e.coherency, m);
        break;
      case EpisodeKind::kThermalThrottle:
        e.thermal = std::max(e.thermal, m);
        break;
      case EpisodeKind::kPowerCap:
        e.power_cap = std::max(e.power_cap, m);
        break;
      case EpisodeKind::kEcc: {
        double rate = m / std::max(1.0, ep->duration_s);
        (ep->uncorrected ? e.ecc_uncorrected_per_s : e.ecc_corrected_per_s) += rate;
        break;
      }
      case EpisodeKind::kGpuLost:
      case EpisodeKind::kXid:
      case EpisodeKind::kHang:
        break;  // handled by the collector
    }
  }
  return e;
}

}  // namespace

std::vector<SimDevice> BuildSimDevices(const Scenario& scenario) {
  std::vector<SimDevice> out;
  for (size_t n = 0; n < scenario.nodes.size(); ++n) {
    const ScenarioNode& node = scenario.nodes[n];
    for (size_t g = 0; g < node.gpus.size(); ++g) {
      const ScenarioGpu& gpu = node.gpus[g];
      const size_t parts = std::max<size_t>(1, gpu.partition_count());
      for (size_t p = 0; p < parts; ++p) {
        SimDevice d;
        d.spec = gpu.spec;
        d.node = n;
        d.gpu = static_cast<int>(g);
        d.partition = gpu.partition_count() == 0 ? -1 : static_cast<int>(p);
        double mem_share = 1.0 / static_cast<double>(parts);
        d.compute_share = mem_share;
        int slices = 0, gb = 0;
        if (gpu.partition_kind == "mig" && ParseMigProfile(gpu.partition_profiles[p], slices, gb)) {
          d.compute_share = std::min(1.0, slices / 7.0);
          mem_share = std::min(1.0, gb * 1e9 / static_cast<double>(gpu.spec->memory_bytes));
        }
        d.memory_bytes = static_cast<double>(gpu.spec->memory_bytes) * mem_share;
        d.tdp_watts = gpu.spec->tdp_watts * d.compute_share;
        d.idle_watts = gpu.spec->idle_watts * d.compute_share;
        d.power_limit_watts = gpu.power_limit_watts * d.compute_share;
        for (const ScenarioWorkload& w : scenario.workloads) {
          if (w.node != n || std::find(w.gpus.begin(), w.gpus.end(), d.gpu) == w.gpus.end()) {
            continue;
          }
          if (d.partition >= 0 && !w.partitions.empty() &&
              std::find(w.partitions.begin(), w.partitions.end(), d.partition) ==
                  w.partitions.end()) {
            continue;
          }
          d.workloads.push_back(&w);
        }
        for (const ScenarioEpisode& e : scenario.episodes) {
          if (e.Targets(n, d.gpu)) d.episodes.push_back(&e);
        }
        d.noise_key = Mix(scenario.seed ^ HashString(node.name)) ^
                      Mix(static_cast<uint64_t>(g) * 131 + static_cast<uint64_t>(p + 1));
        out.push_back(std::move(d));
      }
    }
  }
  return out;
}

SimInstant EvaluateSimDevice(const SimDevice& d, double t_s, double die_temp_c) {
  SimInstant s;
  const GpuModelSpec& spec = *d.spec;
  const int64_t sec = static_cast<int64_t>(std::floor(t_s));
  const EpisodeEffects fx = ActiveEffects(d, t_s);

  double sm = 0, tensor = 0, bw = 0, pcie = 0, link = 0, occ_weighted = 0;
  double used = 0;
  for (const ScenarioWorkload* w : d.workloads) {
    if (t_s < w->start_s || t_s >= w->end_s) continue;
    const LoadProfile& l = w->load;
    double w_sm = l.sm_activity, w_link = l.interconnect;
    if (l.step_period_s > 0) {
      // Each step ends in gradient sync / batching: SMs wait while links work.
      // A smooth wave, because a 1 s grid would alias a sharp dip away.
      const double wave = 0.5 + 0.5 * std::sin(2 * std::numbers::pi * t_s / l.step_period_s);
      w_sm *= 1 - 0.25 * wave;
      w_link = std::min(1.0, w_link * (1 + wave));
    }
    sm += w_sm;
    tensor += w_sm * l.tensor_share;
    bw += l.memory_bandwidth * (w_sm / std::max(1e-9, l.sm_activity));
    pcie += l.pcie;
    link += w_link;
    const double occ = w->kind == WorkloadKind::kInference ? 0.35
                       : w->kind == WorkloadKind::kBatch   ? 0.45
                                                           : 0.55;
    occ_weighted += w_sm * occ;
    const double bytes = static_cast<double>(l.memory_bytes) + kContextBytes;
    used += bytes;
    s.processes.push_back(SimProcess{w, w->pid, bytes, Clamp(w_sm, 0, 1)});
    s.active = s.active || w_sm > 0;
  }
  const double occ_factor = sm > 0 ? occ_weighted / sm : 0.5;
  sm = Clamp(sm, 0, 1);
  tensor = Clamp(tensor, 0, sm);
  bw = Clamp(bw, 0, 0.95);
  double throughput = s.active ? 1.0 : 0.0;

  if (fx.contention > 0) {
    // A neighbour streams through DRAM: the device looks busier than ever while
    // the workload's own warps stall on memory.
    const double m = fx.contention;
    bw = std::max(bw, Clamp(bw + 0.35 + 0.4 * m, 0, 0.97));
    sm = Clamp(std::max(sm, 0.3) * (1 - 0.15 * m), 0, 1);
    tensor *= 1 - 0.5 * m;
    throughput *= 1 - 0.5 * m;
    const double neighbour = 0.15 * m * d.memory_bytes;
    used += neighbour + kContextBytes;
    s.processes.push_back(SimProcess{nullptr,
                                     4'000'000 + static_cast<int64_t>(d.noise_key % 90'000),
                                     neighbour + kContextBytes, 0.3 * m});
    s.active = true;
  }
  double occ = sm * occ_factor * (1 - 0.6 * fx.contention);
  if (fx.saturation > 0) {
    const double m = fx.saturation;
    bw = std::max(bw, 0.9 + 0.07 * m);
    tensor *= 1 - 0.4 * m;
    throughput *= 1 - 0.35 * m;
  }
  if (fx.coherency > 0) {
    const double m = fx.coherency;
    pcie = std::max(pcie, 0.5 + 0.4 * m);
    link = std::max(link, 0.3 + 0.5 * m);
    sm *= 1 - 0.4 * m;
    tensor *= 1 - 0.5 * m;
    occ *= 1 - 0.4 * m;
    throughput *= 1 - 0.5 * m;
  }
  pcie = Clamp(pcie, 0, 0.95);
  link = Clamp(link, 0, 0.95);

  // Clocks: thermal throttle above the slowdown temperature, then power.
  double clk = 1;
  if (die_temp_c > kSimThrottleC) {
    clk = 1 - Clamp((die_temp_c - kSimThrottleC) / 20.0, 0, 0.5);
    s.thermal_throttle = true;
  }
  s.power_limit_watts = d.power_limit_watts * (1 - 0.6 * fx.power_cap);
  s.power_limit_watts = std::max(s.power_limit_watts, d.idle_watts * 1.2);
  const double util_raw = s.active ? Clamp(0.55 + 0.6 * sm, 0, 1) : 0;
  auto dynamic = [&](double c) {
    return Clamp(0.12 * util_raw + 0.45 * sm * c + 0.25 * tensor * c + 0.25 * bw, 0, 1);
  };
  const double span = d.tdp_watts - d.idle_watts;
  double power = d.idle_watts + span * dynamic(clk);
  power *= 1 + 0.015 * Noise(d.noise_key, 1, sec);
  if (power > s.power_limit_watts) {
    // Lower the clock until the compute part of the draw fits under the limit.
    const double fixed = d.idle_watts + span * Clamp(0.12 * util_raw + 0.25 * bw, 0, 1);
    const double per_clk = span * (0.45 * sm + 0.25 * tensor);
    if (per_clk > 0) clk = Clamp((s.power_limit_watts - fixed) / per_clk, 0.3, clk);
    power = s.power_limit_watts;
    s.power_throttle = true;
  }
  s.power_watts = Clamp(power, d.idle_watts, s.power_limit_watts);
  throughput *= clk;

  const double n1 = 0.02 * Noise(d.noise_key, 2, sec);
  s.sm_active = Clamp(sm * clk * (1 + n1), 0, 1);
  s.tensor_active = Clamp(tensor * clk * (1 + n1), 0, s.sm_active);
  s.occupancy = Clamp(occ * (1 + n1), 0, s.sm_active);
  s.memory_bandwidth = Clamp(bw * (1 + 0.02 * Noise(d.noise_key, 3, sec)), 0, 0.98);
  s.memory_copy_busy = Clamp(s.memory_bandwidth * 1.25, 0, 1);
  s.utilization = util_raw;
  s.graphics_active = s.active ? Clamp(0.4 + 0.6 * s.sm_active, 0, util_raw) : 0;
  s.memory_used_bytes = Clamp(used, 0, 0.98 * d.memory_bytes);
  s.sm_clock_hz = spec.max_sm_clock_hz * (s.active ? clk : 0.2);
  s.memory_clock_hz = spec.memory_clock_hz;
  s.die_temp_target_c = kSimAmbientC + 50 * s.power_watts / std::max(1.0, d.tdp_watts) +
                        (fx.thermal > 0 ? 15 + 20 * fx.thermal : 0);
  const double idle_pcie = 1e6;  // driver housekeeping
  s.pcie_rx_bytes_per_s = idle_pcie + pcie * spec.pcie_bytes_per_s * d.compute_share;
  s.pcie_tx_bytes_per_s = idle_pcie + 0.3 * pcie * spec.pcie_bytes_per_s * d.compute_share;
  if (fx.coherency > 0) s.pcie_tx_bytes_per_s = s.pcie_rx_bytes_per_s;  // pages move both ways
  s.link_bytes_per_s = link * spec.interconnect_bytes_per_s * d.compute_share;
  s.ecc_corrected_per_s = fx.ecc_corrected_per_s;
  s.ecc_uncorrected_per_s = fx.ecc_uncorrected_per_s;
  s.throughput = throughput;
  return s;
}

void SimDeviceState::StepOneSecond(const SimDevice& d) {
  SimInstant s = EvaluateSimDevice(d, static_cast<double>(grid_s_), die_temp_c_);
  counters_.energy_joules += s.power_watts;
  counters_.pcie_tx_bytes += s.pcie_tx_bytes_per_s;
  counters_.pcie_rx_bytes += s.pcie_rx_bytes_per_s;
  counters_.link_bytes += s.link_bytes_per_s;
  counters_.throttle_power_s += s.power_throttle ? 1 : 0;
  counters_.throttle_thermal_s += s.thermal_throttle ? 1 : 0;
  counters_.ecc_corrected += s.ecc_corrected_per_s;
  counters_.ecc_uncorrected += s.ecc_uncorrected_per_s;
  die_temp_c_ += (s.die_temp_target_c - die_temp_c_) * (1 - std::exp(-1.0 / kThermalTauS));
  ++grid_s_;
}

void SimDeviceState::Sample(const SimDevice& d, double t_s, SimInstant& instant,
                            SimCounters& counters, double& die_temp_c) {
  t_s = std::max(t_s, static_cast<double>(grid_s_));
  while (static_cast<double>(grid_s_ + 1) <= t_s) StepOneSecond(d);
  const double frac = t_s - static_cast<double>(grid_s_);
  // The partial second uses the rates of the grid point, so a sample between
  // grid points lies on the straight line to the next one.
  SimInstant at_grid = EvaluateSimDevice(d, static_cast<double>(grid_s_), die_temp_c_);
  counters = counters_;
  counters.energy_joules += at_grid.power_watts * frac;
  counters.pcie_tx_bytes += at_grid.pcie_tx_bytes_per_s * frac;
  counters.pcie_rx_bytes += at_grid.pcie_rx_bytes_per_s * frac;
  counters.link_bytes += at_grid.link_bytes_per_s * frac;
  counters.throttle_power_s += at_grid.power_throttle ? frac : 0;
  counters.throttle_thermal_s += at_grid.thermal_throttle ? frac : 0;
  counters.ecc_corrected += at_grid.ecc_corrected_per_s * frac;
  counters.ecc_uncorrected += at_grid.ecc_uncorrected_per_s * frac;
  instant = std::move(at_grid);
  die_temp_c = die_temp_c_;
}

}  // namespace gpufleet
