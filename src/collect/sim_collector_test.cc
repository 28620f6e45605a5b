#include "collect/sim_collector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "normalize/mapping_table.h"
#include "schema/metric_catalog.h"

namespace gpufleet {
namespace {

// Default scenario device indices (discovery order: node, GPU, partition).
constexpr size_t kH100Inference = 6;  // aws-h100-0 GPU 6, memory contention 120-420 s
constexpr size_t kH100Lost = 3;       // aws-h100-0 GPU 3, xid 79 + lost 1200-1320 s
constexpr size_t kMi300Hot = 8 + 2;   // azure GPU 2, thermal throttle 600-900 s
constexpr size_t kMi300Ecc = 8 + 5;   // azure GPU 5, 12 corrected ECC errors 400-1000 s
constexpr size_t kMaxTile0 = 16;      // onprem GPU 0 tile 0, power cap 900-1200 s

std::optional<double> Value(const DeviceReadings& r, std::string_view name,
                            std::string_view label = "", std::string_view value = "") {
  for (const RawReading& x : r.readings) {
    if (x.name == name && (label.empty() || x.labels.Get(label) == value)) return x.value;
  }
  return std::nullopt;
}

class SimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<Scenario> s = LoadScenario("default");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    scenario_ = *s;
    sim_ = NewSimCollector(scenario_, clock_);
    auto devices = sim_->Discover();
    ASSERT_TRUE(devices.ok());
    devices_ = *devices;
  }

  // Readings of `index` at scenario time `t_s` (the clock only moves forward).
  DeviceReadings At(size_t index, double t_s) {
    int64_t target = start_ns_ + static_cast<int64_t>(t_s * kNsPerSecond);
    if (target > clock_.NowNs()) clock_.Set(target);
    DeviceReadings r;
    Status st = sim_->Collect(index, r);
    EXPECT_TRUE(st.ok()) << "t=" << t_s << " " << st.ToString();
    return r;
  }

  const int64_t start_ns_ = 1'700'000'000'000'000'000;
  FakeClock clock_{start_ns_};
  Scenario scenario_;
  std::unique_ptr<Collector> sim_;
  std::vector<DeviceInfo> devices_;
};

TEST_F(SimTest, DiscoversEveryVendorWithVendorFormatIdentities) {
  EXPECT_EQ(sim_->source(), "sim");
  std::map<Vendor, int> per_vendor;
  std::set<std::string> ids;
  for (const DeviceInfo& d : devices_) {
    ++per_vendor[d.vendor];
    ids.insert(d.uuid + "/" + d.partition.id);
    EXPECT_FALSE(d.node.empty());
    EXPECT_FALSE(d.cloud.empty());
    EXPECT_FALSE(d.region.empty());
    EXPECT_FALSE(d.driver_version.empty());
    EXPECT_FALSE(d.runtime_version.empty());
    EXPECT_EQ(CanonicalPciBusId(d.pci_bus_id), d.pci_bus_id);
    ASSERT_NE(HardwareCatalog::Default().Find(d.model), nullptr) << d.model;
  }
  EXPECT_EQ(per_vendor[Vendor::kNvidia], 8);
  EXPECT_EQ(per_vendor[Vendor::kAmd], 8);
  EXPECT_EQ(per_vendor[Vendor::kIntel], 8);  // 4 GPUs x 2 tiles
  EXPECT_EQ(ids.size(), devices_.size());

  EXPECT_EQ(devices_[0].uuid.substr(0, 4), "GPU-");
  EXPECT_EQ(devices_[0].uuid.size(), 40u);
  EXPECT_EQ(devices_[0].arch, "9.0");
  EXPECT_EQ(devices_[8].uuid.substr(8, 11), "-0000-1000-");
  EXPECT_EQ(devices_[8].arch, "gfx942");
  const DeviceInfo& tile1 = devices_[17];
  EXPECT_EQ(tile1.uuid.substr(0, 8), "8680d50b");
  EXPECT_EQ(tile1.partition.kind, "intel_tile");
  EXPECT_EQ(tile1.partition.id, "1");
  EXPECT_EQ(tile1.uuid, devices_[16].uuid) << "tiles carry their parent's UUID";
  EXPECT_EQ(tile1.memory_total_bytes, 64ull << 30);
  EXPECT_EQ(tile1.cloud, "onprem");

  // Identity is stable across collectors.
  FakeClock other;
  auto again = NewSimCollector(scenario_, other)->Discover();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[5].uuid, devices_[5].uuid);
}

TEST_F(SimTest, OverAnHourEveryValueIsPhysicalAndEnergyIsTheIntegralOfPower) {
  const HardwareCatalog& hw = HardwareCatalog::Default();
  struct Track {
    double last_energy = -1, integral = 0, last_power = 0, first_energy = 0;
    std::map<std::string, double> counters;
  };
  std::vector<Track> tracks(devices_.size());
  const double step_s = 10;
  for (double t = 0; t <= 3600; t += step_s) {
    clock_.Set(start_ns_ + static_cast<int64_t>(t * kNsPerSecond));
    for (size_t i = 0; i < devices_.size(); ++i) {
      DeviceReadings r;
      Status st = sim_->Collect(i, r);
      if (!st.ok()) {
        EXPECT_EQ(i, kH100Lost) << st.ToString();
        continue;
      }
      const DeviceInfo& d = devices_[i];
      const GpuModelSpec* spec = hw.Find(d.model);
      const double share =
          static_cast<double>(d.memory_total_bytes) / static_cast<double>(spec->memory_bytes);
      SCOPED_TRACE("device " + std::to_string(i) + " t=" + std::to_string(t));
      for (const RawReading& x : r.readings) {
        const std::string& n = x.name;
        EXPECT_TRUE(std::isfinite(x.value)) << n;
        if (n.ends_with("_ratio")) {
          EXPECT_GE(x.value, 0) << n;
          EXPECT_LE(x.value, 1) << n;
        } else if (n.ends_with("_total")) {
          EXPECT_GE(x.value, 0) << n;
          std::string key = n + x.labels.ToString();
          auto [it, fresh] = tracks[i].counters.emplace(key, x.value);
          if (!fresh) {
            EXPECT_GE(x.value, it->second) << key << " went backwards";
          }
          it->second = x.value;
        }
      }
      const double used = *Value(r, "gpu_memory_used_bytes");
      EXPECT_LE(used, static_cast<double>(d.memory_total_bytes));
      EXPECT_EQ(*Value(r, "gpu_memory_total_bytes"), static_cast<double>(d.memory_total_bytes));
      const double power = *Value(r, "gpu_power_watts");
      EXPECT_GE(power, spec->idle_watts * share - 1e-9);
      EXPECT_LE(power, spec->tdp_watts * share + 1e-9);
      EXPECT_LE(power, *Value(r, "gpu_power_limit_watts") + 1e-9);
      EXPECT_LE(*Value(r, "gpu_clock_hertz", "domain", "sm"), spec->max_sm_clock_hz);
      EXPECT_GE(*Value(r, "gpu_clock_hertz", "domain", "sm"), 0.1 * spec->max_sm_clock_hz);
      for (const RawReading& x : r.readings) {
        if (x.name != "gpu_temperature_celsius") continue;
        EXPECT_GE(x.value, 20);
        EXPECT_LE(x.value, 125);
      }
      EXPECT_LE(Value(r, "gpu_sm_occupancy_ratio").value_or(0), *Value(r, "gpu_sm_active_ratio"));

      Track& tr = tracks[i];
      const double energy = *Value(r, "gpu_energy_joules_total");
      if (tr.last_energy >= 0) {
        tr.integral += 0.5 * (power + tr.last_power) * step_s;
      } else {
        tr.first_energy = energy;
      }
      tr.last_energy = energy;
      tr.last_power = power;
    }
  }
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (i == kH100Lost) continue;  // a gap in the samples
    const Track& tr = tracks[i];
    EXPECT_NEAR(tr.last_energy - tr.first_energy, tr.integral, 0.03 * tr.integral) << i;
    EXPECT_GT(tr.integral, 0);
  }
}

// The agent collects on the real clock: intervals are uneven, a slow cycle
// is followed by a short one, and a device can be read twice in one second.
// Whatever the pattern, the energy counter at time t must be the power gauge
// integrated up to t (the gauge shown during second g is the power of second
// g), so rate(energy) over any window equals the gauge's time-weighted mean.
TEST_F(SimTest, EnergyIsThePowerGaugeIntegratedUnderUnevenCollection) {
  constexpr size_t kDevice = 0;  // H100 in the stepped training job: power moves every second
  constexpr int kSeconds = 90;
  // The gauge of every second and the counter at its start, from a twin read
  // once per second in mid-second.
  FakeClock grid_clock(start_ns_);
  auto twin = NewSimCollector(scenario_, grid_clock);
  std::vector<double> power(kSeconds), energy_at(kSeconds + 1, 0);
  for (int g = 0; g < kSeconds; ++g) {
    grid_clock.Set(start_ns_ + static_cast<int64_t>((g + 0.5) * kNsPerSecond));
    DeviceReadings r;
    ASSERT_TRUE(twin->Collect(kDevice, r).ok());
    power[g] = *Value(r, "gpu_power_watts");
    energy_at[g + 1] = energy_at[g] + power[g];
  }
  EXPECT_NEAR(*Value(At(kDevice, 0), "gpu_energy_joules_total"), 0, 1e-9);

  // Uneven times: bursts inside one second, repeats, gaps of several seconds.
  std::vector<double> times;
  for (double t = 0.05; t < kSeconds - 1; t += 0.37 + 2.9 * std::fmod(t * 7.31, 1.0)) {
    times.push_back(t);
    times.push_back(t + 0.001);
    times.push_back(t + 0.001);
  }
  ASSERT_GT(times.size(), 60u);
  double last_t = 0, last_energy = 0;
  for (double t : times) {
    const double ts = static_cast<double>(static_cast<int64_t>(t * kNsPerSecond)) / kNsPerSecond;
    DeviceReadings r = At(kDevice, t);
    const int g = static_cast<int>(std::floor(ts));
    const double energy = *Value(r, "gpu_energy_joules_total");
    SCOPED_TRACE("t=" + std::to_string(ts));
    EXPECT_DOUBLE_EQ(*Value(r, "gpu_power_watts"), power[g]);
    EXPECT_NEAR(energy, energy_at[g] + power[g] * (ts - g), 1e-9 * energy_at[kSeconds]);
    if (ts > last_t + 0.5) {
      // What Prometheus computes: increase over the window / window length.
      double mean_power = 0;
      for (double a = last_t; a < ts;) {
        const double b = std::min(ts, std::floor(a) + 1);
        mean_power += power[static_cast<int>(std::floor(a))] * (b - a);
        a = b;
      }
      mean_power /= ts - last_t;
      EXPECT_NEAR((energy - last_energy) / (ts - last_t), mean_power, 1e-6 * mean_power);
      last_t = ts;
      last_energy = energy;
    }
  }
}

TEST_F(SimTest, MemoryContentionRaisesBandwidthAndCutsOccupancyInItsWindow) {
  // Before: after embed-backfill started sharing the GPU (110 s) and before
  // the episode (120 s), so only the episode's effect is compared.
  DeviceReadings before = At(kH100Inference, 115);
  DeviceReadings during = At(kH100Inference, 300);
  DeviceReadings after = At(kH100Inference, 500);
  auto bw = [](const DeviceReadings& r) {
    return *Value(r, "gpu_memory_bandwidth_utilization_ratio");
  };
  auto occ = [](const DeviceReadings& r) { return *Value(r, "gpu_sm_occupancy_ratio"); };
  auto tensor = [](const DeviceReadings& r) { return *Value(r, "gpu_tensor_active_ratio"); };
  EXPECT_GT(bw(during), bw(before) + 0.3);
  EXPECT_LT(occ(during), 0.8 * occ(before));
  EXPECT_LT(tensor(during), 0.8 * tensor(before));
  EXPECT_GE(*Value(during, "gpu_utilization_ratio"), 0.7) << "coarse utilization hides it";
  EXPECT_GT(*Value(during, "gpu_memory_used_bytes"), *Value(before, "gpu_memory_used_bytes"));
  // The neighbour shows up as an extra process without workload labels.
  int unlabelled = 0;
  for (const RawReading& x : during.readings) {
    if (x.name == "gpu_process_memory_bytes" && !x.labels.Has("workload_pod")) ++unlabelled;
  }
  EXPECT_EQ(unlabelled, 1);
  // After the episode and embed-backfill (gone at 430 s): as it was alone.
  EXPECT_NEAR(bw(after), bw(At(kH100Inference, 100)), 0.05);
  // A device outside the episode is untouched.
  EXPECT_LT(*Value(At(kH100Inference - 1, 520), "gpu_memory_bandwidth_utilization_ratio"), 0.6);
}

TEST_F(SimTest, ThermalThrottleHeatsTheGpuAndDropsClocks) {
  DeviceReadings before = At(kMi300Hot, 590);
  DeviceReadings during = At(kMi300Hot, 880);
  EXPECT_GT(*Value(during, "gpu_temperature_celsius", "sensor", "junction"),
            *Value(before, "gpu_temperature_celsius", "sensor", "junction") + 10);
  EXPECT_LT(*Value(during, "gpu_clock_hertz", "domain", "sm"),
            0.9 * *Value(before, "gpu_clock_hertz", "domain", "sm"));
  EXPECT_EQ(*Value(during, "gpu_throttle_active", "reason", "thermal"), 1);
  EXPECT_EQ(*Value(before, "gpu_throttle_active", "reason", "thermal"), 0);
  EXPECT_GT(*Value(during, "gpu_throttle_seconds_total", "reason", "thermal"), 60);
  EXPECT_FALSE(Value(during, "gpu_temperature_celsius", "sensor", "gpu").has_value())
      << "AMD reports edge/junction/memory";
}

TEST_F(SimTest, PowerCapClampsPowerAndCountsPowerThrottle) {
  DeviceReadings before = At(kMaxTile0, 890);
  DeviceReadings during = At(kMaxTile0, 1000);
  const double limit = *Value(during, "gpu_power_limit_watts");
  EXPECT_LT(limit, 0.8 * *Value(before, "gpu_power_limit_watts"));
  EXPECT_LE(*Value(during, "gpu_power_watts"), limit);
  EXPECT_EQ(*Value(during, "gpu_throttle_active", "reason", "power"), 1);
  EXPECT_GT(*Value(during, "gpu_throttle_seconds_total", "reason", "power"), 50);
  EXPECT_FALSE(Value(during, "gpu_sm_occupancy_ratio").has_value()) << "no Intel occupancy";
}

TEST_F(SimTest, GpuLostIsUnavailableOnlyInItsWindowAndXidCounts) {
  DeviceReadings r = At(kH100Lost, 1199);
  EXPECT_FALSE(Value(r, "gpu_xid_errors_total").has_value());
  for (double t : {1200.0, 1260.0, 1319.5}) {
    clock_.Set(start_ns_ + static_cast<int64_t>(t * kNsPerSecond));
    DeviceReadings lost;
    Status st = sim_->Collect(kH100Lost, lost);
    EXPECT_EQ(st.code(), StatusCode::kUnavailable) << t;
    EXPECT_EQ(st.message(), "lost");
    DeviceReadings other;
    EXPECT_TRUE(sim_->Collect(kH100Lost + 1, other).ok());
  }
  r = At(kH100Lost, 1320);
  EXPECT_EQ(*Value(r, "gpu_xid_errors_total", "code", "79"), 1);
}

TEST_F(SimTest, EccEpisodeAddsItsErrorsOverTheWindow) {
  EXPECT_EQ(*Value(At(kMi300Ecc, 399), "gpu_ecc_errors_total", "severity", "corrected"), 0);
  const double mid = *Value(At(kMi300Ecc, 700), "gpu_ecc_errors_total", "severity", "corrected");
  EXPECT_GT(mid, 3);
  EXPECT_LT(mid, 9);
  DeviceReadings end = At(kMi300Ecc, 1100);
  EXPECT_EQ(*Value(end, "gpu_ecc_errors_total", "severity", "corrected"), 12);
  EXPECT_EQ(*Value(end, "gpu_ecc_errors_total", "severity", "uncorrected"), 0);
}

TEST_F(SimTest, SameSeedAndTimeGiveTheSameReadings) {
  FakeClock other(start_ns_);
  auto twin = NewSimCollector(scenario_, other);
  // The twin is sampled on a different pattern: only the time matters.
  for (double t : {35.0, 777.0}) {
    other.Set(start_ns_ + static_cast<int64_t>(t * kNsPerSecond));
    DeviceReadings b;
    ASSERT_TRUE(twin->Collect(9, b).ok());
    DeviceReadings a = At(9, t);
    ASSERT_EQ(a.readings.size(), b.readings.size());
    for (size_t i = 0; i < a.readings.size(); ++i) {
      EXPECT_EQ(a.readings[i].name, b.readings[i].name);
      EXPECT_DOUBLE_EQ(a.readings[i].value, b.readings[i].value) << a.readings[i].name;
    }
  }
  Scenario reseeded = scenario_;
  reseeded.seed = 7;
  FakeClock third(start_ns_);
  auto reseeded_sim = NewSimCollector(reseeded, third);
  third.Advance(777 * kNsPerSecond);
  DeviceReadings c;
  ASSERT_TRUE(reseeded_sim->Collect(9, c).ok());
  EXPECT_NE(*Value(c, "gpu_power_watts"), *Value(At(9, 777), "gpu_power_watts"));
}

TEST_F(SimTest, HangBlocksOnTheHangClockAndIsBounded) {
  StatusOr<Scenario> s = ParseScenario(R"(
[[node]]
name = "n"
gpus = [{ model = "l4", count = 2 }]
[[episode]]
kind = "hang"
node = "n"
gpus = [1]
start_s = 100
duration_s = 600
)",
                                       "hang.toml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  FakeClock clock, hang_clock;
  auto sim = NewSimCollector(*s, clock, {&hang_clock, 120 * kNsPerSecond});
  DeviceReadings r;
  const int64_t hang_start = hang_clock.NowNs();
  clock.Advance(50 * kNsPerSecond);
  EXPECT_TRUE(sim->Collect(1, r).ok());
  EXPECT_EQ(hang_clock.NowNs(), hang_start);
  clock.Advance(150 * kNsPerSecond);  // t = 200: 500 s of the hang left, capped at 120 s
  EXPECT_EQ(sim->Collect(1, r).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(hang_clock.NowNs() - hang_start, 120 * kNsPerSecond);
  clock.Advance(450 * kNsPerSecond);  // t = 650: 50 s left
  EXPECT_EQ(sim->Collect(1, r).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(hang_clock.NowNs() - hang_start, 170 * kNsPerSecond);
  EXPECT_TRUE(sim->Collect(0, r).ok()) << "the other GPU answers";
}

TEST_F(SimTest, MigInstancesHaveTheirShareAndNoCoarseUtilization) {
  StatusOr<Scenario> s = ParseScenario(R"(
[[node]]
name = "n"
gpus = [{ model = "a100-sxm-80gb", partitions = { kind = "mig", profiles = ["3g.40gb", "1g.10gb"] } }]
[[workload]]
id = "w"
node = "n"
gpus = [0]
partitions = [0]
load = { memory_gib = 20 }
)",
                                       "mig.toml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  FakeClock clock;
  auto sim = NewSimCollector(*s, clock);
  auto devices = sim->Discover();
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[1].partition.profile, "1g.10gb");
  EXPECT_NEAR(static_cast<double>((*devices)[1].memory_total_bytes), 10e9, 1e6);
  clock.Advance(30 * kNsPerSecond);
  DeviceReadings busy, idle;
  ASSERT_TRUE(sim->Collect(0, busy).ok());
  ASSERT_TRUE(sim->Collect(1, idle).ok());
  EXPECT_FALSE(Value(busy, "gpu_utilization_ratio").has_value());
  EXPECT_GT(*Value(busy, "gpu_sm_active_ratio"), 0.5);
  EXPECT_EQ(*Value(idle, "gpu_sm_active_ratio"), 0);
  EXPECT_LE(*Value(busy, "gpu_power_watts"), 400.0 * 3 / 7 + 1e-9);
}

TEST_F(SimTest, EveryReadingIsMappedBySimToml) {
  StatusOr<MappingTable> table = MappingTable::ForSource("sim");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::set<std::string> seen;
  for (double t : {10.0, 300.0, 800.0, 1000.0, 1400.0}) {
    for (size_t i = 0; i < devices_.size(); ++i) {
      for (const RawReading& x : At(i, t).readings) {
        seen.insert(x.name);
        const MetricMapping* m = table->Find(x.name);
        ASSERT_NE(m, nullptr) << x.name << " is not in data/mappings/sim.toml";
        EXPECT_EQ(m->to, x.name);
        EXPECT_EQ(m->scale, 1.0);
        EXPECT_EQ(m->method, "sim");
        for (const auto& [label, value] : x.labels.pairs()) {
          EXPECT_NE(std::find(m->def->labels.begin(), m->def->labels.end(), label),
                    m->def->labels.end())
              << x.name << " carries undeclared label " << label;
        }
      }
    }
  }
  EXPECT_GE(seen.size(), 25u);
  for (const MetricMapping& m : table->mappings()) {
    EXPECT_TRUE(seen.count(m.from)) << m.from << " is mapped but never emitted";
  }
}

}  // namespace
}  // namespace gpufleet
