#include "collect/sim_collector.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "collect/sim_model.h"

namespace gpufleet {

namespace {

uint64_t Fnv(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer: spreads near-equal inputs apart
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Identity that depends only on node name, GPU index and model, so a scenario
// edit elsewhere does not rename devices.
std::string SimUuid(Vendor vendor, const std::string& node, int gpu, const GpuModelSpec& spec) {
  uint64_t a = Mix(Fnv(node + "#" + std::to_string(gpu)));
  uint64_t b = Mix(Fnv(spec.key, a));
  char buf[64];
  switch (vendor) {
    case Vendor::kNvidia:
      std::snprintf(buf, sizeof(buf), "GPU-%08x-%04x-%04x-%04x-%012" PRIx64,
                    static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xffff),
                    static_cast<unsigned>(a & 0xffff), static_cast<unsigned>(b >> 48),
                    static_cast<uint64_t>(b & 0xffffffffffffull));
      break;
    case Vendor::kAmd:
      // amdsmi form: "17ff74b5-0000-1000-805c-37b0fbe69430".
      std::snprintf(buf, sizeof(buf), "%08x-0000-1000-80%02x-%012" PRIx64,
                    static_cast<unsigned>(a >> 32), static_cast<unsigned>(a & 0xff),
                    static_cast<uint64_t>(b & 0xffffffffffffull));
      break;
    default: {
      // Level Zero UUIDs start with the PCI vendor and device id, little-endian.
      unsigned device = spec.arch == "xe-hpc" ? 0x0bd5 : spec.arch == "xe-hpg" ? 0x56c0 : 0x1060;
      std::snprintf(buf, sizeof(buf), "8680%02x%02x-0000-0000-%04x-%012" PRIx64, device & 0xff,
                    device >> 8, static_cast<unsigned>(a & 0xffff),
                    static_cast<uint64_t>(b & 0xffffffffffffull));
      break;
    }
  }
  return buf;
}

std::string SimPciBusId(int gpu) {
  // The bus numbers of a typical 8-GPU HGX/OAM baseboard, then a made-up tail.
  static constexpr int kBuses[] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
  int bus = gpu < 8 ? kBuses[gpu] : (0x10 + gpu * 3) & 0xff;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0000:%02x:00.0", bus);
  return buf;
}

struct VendorDefaults {
  const char* driver;
  const char* runtime;
  const char* link_type;
};

VendorDefaults DefaultsFor(Vendor v) {
  switch (v) {
    case Vendor::kNvidia:
      return {"550.90.07", "12.4", "nvlink"};
    case Vendor::kAmd:
      return {"6.8.5", "6.2.2", "xgmi"};
    default:
      return {"1.3.29735", "1.17.6", "xelink"};
  }
}

// "sm_90" -> "9.0" (the form NVML's compute capability takes); others as-is.
std::string ArchLabel(const GpuModelSpec& spec) {
  if (spec.arch.size() == 5 && spec.arch.rfind("sm_", 0) == 0) {
    return std::string(1, spec.arch[3]) + "." + spec.arch[4];
  }
  return spec.arch;
}

class SimCollector final : public Collector {
 public:
  SimCollector(Scenario scenario, Clock& clock, SimCollectorOptions options)
      : scenario_(std::move(scenario)),
        clock_(clock),
        options_(options),
        start_ns_(clock.MonotonicNs()) {
    if (options_.hang_clock == nullptr) options_.hang_clock = &RealClock::Get();
    devices_ = BuildSimDevices(scenario_);
    for (size_t i = 0; i < devices_.size(); ++i) {
      states_.push_back(std::make_unique<LockedState>());
    }
  }

  std::string_view source() const override { return "sim"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    std::vector<DeviceInfo> out;
    for (const SimDevice& d : devices_) {
      const ScenarioNode& node = scenario_.nodes[d.node];
      const ScenarioGpu& gpu = node.gpus[d.gpu];
      const VendorDefaults def = DefaultsFor(d.spec->vendor);
      DeviceInfo info;
      info.vendor = d.spec->vendor;
      info.model = d.spec->name;
      info.uuid = SimUuid(d.spec->vendor, node.name, d.gpu, *d.spec);
      info.pci_bus_id = SimPciBusId(d.gpu);
      if (d.partition >= 0) {
        info.partition.kind = gpu.partition_kind;
        info.partition.id = std::to_string(d.partition);
        info.partition.profile = gpu.partition_profiles[d.partition];
      }
      info.driver_version = node.driver_version.empty() ? def.driver : node.driver_version;
      info.runtime_version = node.runtime_version.empty() ? def.runtime : node.runtime_version;
      info.arch = ArchLabel(*d.spec);
      info.memory_total_bytes = static_cast<uint64_t>(d.memory_bytes);
      info.node = node.name;
      info.cloud = node.cloud;
      info.region = node.region;
      out.push_back(std::move(info));
    }
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    if (index >= devices_.size()) {
      return NotFoundError("sim: no device " + std::to_string(index));
    }
    const SimDevice& d = devices_[index];
    const double t_s = static_cast<double>(clock_.MonotonicNs() - start_ns_) / kNsPerSecond;
    for (const ScenarioEpisode* e : d.episodes) {
      if (!e->ActiveAt(t_s)) continue;
      if (e->kind == EpisodeKind::kGpuLost) return UnavailableError("lost");
      if (e->kind == EpisodeKind::kHang) {
        const double left_s = e->start_s + e->duration_s - t_s;
        options_.hang_clock->SleepNs(
            std::min<int64_t>(options_.max_hang_ns, static_cast<int64_t>(left_s * kNsPerSecond)));
        return DeadlineExceededError("sim: device " + std::to_string(index) + " hung");
      }
    }
    SimInstant s;
    SimCounters c;
    double die_c = 0;
    {
      LockedState& st = *states_[index];
      std::lock_guard<std::mutex> lock(st.mu);
      st.state.Sample(d, t_s, s, c, die_c);
    }
    Emit(d, t_s, s, c, die_c, out);
    return OkStatus();
  }

 private:
  struct LockedState {
    std::mutex mu;
    SimDeviceState state{kSimIdleDieC};  // guarded by mu
  };

  void Emit(const SimDevice& d, double t_s, const SimInstant& s, const SimCounters& c, double die_c,
            DeviceReadings& out) const;

  const Scenario scenario_;
  Clock& clock_;
  SimCollectorOptions options_;
  const int64_t start_ns_;
  std::vector<SimDevice> devices_;  // immutable after construction; point into scenario_
  std::vector<std::unique_ptr<LockedState>> states_;
};

void SimCollector::Emit(const SimDevice& d, double t_s, const SimInstant& s, const SimCounters& c,
                        double die_c, DeviceReadings& out) const {
  const Vendor vendor = d.spec->vendor;
  const bool mig = d.partition >= 0 && scenario_.nodes[d.node].gpus[d.gpu].partition_kind == "mig";
  // NVML has no coarse utilization for MIG instances; Intel has no occupancy
  // or tensor-pipe counters. The simulator leaves them absent the same way.
  if (!mig) out.Add("gpu_utilization_ratio", s.utilization);
  out.Add("gpu_graphics_engine_active_ratio", s.graphics_active);
  out.Add("gpu_sm_active_ratio", s.sm_active);
  if (vendor != Vendor::kIntel) {
    out.Add("gpu_sm_occupancy_ratio", s.occupancy);
    out.Add("gpu_tensor_active_ratio", s.tensor_active);
  }
  out.Add("gpu_memory_bandwidth_utilization_ratio", s.memory_bandwidth);
  out.Add("gpu_memory_copy_busy_ratio", s.memory_copy_busy);
  out.Add("gpu_memory_used_bytes", std::floor(s.memory_used_bytes));
  out.Add("gpu_memory_total_bytes", std::floor(d.memory_bytes));
  out.Add("gpu_power_watts", s.power_watts);
  out.Add("gpu_power_limit_watts", s.power_limit_watts);
  out.Add("gpu_energy_joules_total", c.energy_joules);

  // Sensors differ per vendor (see gpu_temperature_celsius in metrics.toml).
  if (vendor == Vendor::kAmd) {
    out.Add("gpu_temperature_celsius", die_c - 8, {{"sensor", "edge"}});
    out.Add("gpu_temperature_celsius", die_c + 10, {{"sensor", "junction"}});
    out.Add("gpu_temperature_celsius", die_c + 6, {{"sensor", "memory"}});
  } else {
    out.Add("gpu_temperature_celsius", die_c, {{"sensor", "gpu"}});
    out.Add("gpu_temperature_celsius", die_c + (vendor == Vendor::kNvidia ? 4 : 3),
            {{"sensor", "memory"}});
  }
  if (s.sm_clock_hz > 0) out.Add("gpu_clock_hertz", s.sm_clock_hz, {{"domain", "sm"}});
  if (s.memory_clock_hz > 0) out.Add("gpu_clock_hertz", s.memory_clock_hz, {{"domain", "memory"}});

  out.Add("gpu_pcie_transmit_bytes_total", std::floor(c.pcie_tx_bytes));
  out.Add("gpu_pcie_receive_bytes_total", std::floor(c.pcie_rx_bytes));
  out.Add("gpu_pcie_replays_total", 0);
  const int links = d.spec->interconnect_links;
  if (d.spec->interconnect != "pcie" && links > 0 && d.spec->interconnect_bytes_per_s > 0) {
    const char* link_type = DefaultsFor(vendor).link_type;
    for (int l = 0; l < links; ++l) {
      Labels labels{{"link_type", link_type}, {"link", std::to_string(l)}};
      const double per_link = std::floor(c.link_bytes / links);
      out.Add("gpu_interconnect_transmit_bytes_total", per_link, labels);
      out.Add("gpu_interconnect_receive_bytes_total", per_link, labels);
    }
  }

  // Whole errors only; the epsilon absorbs the rounding of the 1 s integration.
  out.Add("gpu_ecc_errors_total", std::floor(c.ecc_corrected + 1e-6), {{"severity", "corrected"}});
  out.Add("gpu_ecc_errors_total", std::floor(c.ecc_uncorrected + 1e-6),
          {{"severity", "uncorrected"}});
  std::vector<std::pair<int, int>> xids;  // code, count
  for (const ScenarioEpisode* e : d.episodes) {
    if (e->kind != EpisodeKind::kXid || t_s < e->start_s) continue;
    auto it = std::find_if(xids.begin(), xids.end(), [&](auto& p) { return p.first == e->code; });
    if (it == xids.end()) {
      xids.emplace_back(e->code, 1);
    } else {
      ++it->second;
    }
  }
  for (const auto& [code, count] : xids) {
    out.Add("gpu_xid_errors_total", count, {{"code", std::to_string(code)}});
  }

  out.Add("gpu_throttle_seconds_total", c.throttle_power_s, {{"reason", "power"}});
  out.Add("gpu_throttle_seconds_total", c.throttle_thermal_s, {{"reason", "thermal"}});
  out.Add("gpu_throttle_active", s.power_throttle ? 1 : 0, {{"reason", "power"}});
  out.Add("gpu_throttle_active", s.thermal_throttle ? 1 : 0, {{"reason", "thermal"}});

  for (const SimProcess& p : s.processes) {
    Labels labels{{"pid", std::to_string(p.pid)}};
    if (p.workload != nullptr) {
      labels.Set("workload_pod", p.workload->pod);
      labels.Set("workload_namespace", p.workload->pod_namespace);
      labels.Set("workload_container", p.workload->container);
    }
    out.Add("gpu_process_memory_bytes", std::floor(p.memory_bytes), labels);
    if (!mig) out.Add("gpu_process_utilization_ratio", p.utilization, labels);
    if (p.workload != nullptr && !p.workload->pod.empty()) {
      labels.Remove("pid");
      out.Add("gpu_workload_info", 1, labels);
    }
    // A stepping workload reports its step time like a framework hook would:
    // the scenario's period, stretched by the throughput the episodes leave.
    if (p.workload != nullptr && p.workload->load.step_period_s > 0 && s.throughput > 0) {
      out.Add("gpu_workload_step_duration_seconds",
              p.workload->load.step_period_s / std::max(0.05, s.throughput),
              {{"workload_name", p.workload->id},
               {"workload_team", p.workload->team},
               {"workload_pod", p.workload->pod}});
    }
  }
  out.Add("gpu_profiling_available", 1);
}

}  // namespace

std::unique_ptr<Collector> NewSimCollector(Scenario scenario, Clock& clock,
                                           SimCollectorOptions options) {
  return std::make_unique<SimCollector>(std::move(scenario), clock, options);
}

}  // namespace gpufleet
