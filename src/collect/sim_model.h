// The simulator's physics: what one simulated device (a GPU or a partition)
// shows at a given scenario time, from its hardware spec, the workloads on it
// and the active episodes. Private to the sim collector.
//
// Model (deliberately simple, tuned to keep values inside published ranges):
// - activity adds up over co-located workloads and is capped at 1;
// - power = idle + (tdp - idle) * dynamic activity, clamped to the power limit
//   (clocks drop to meet it: power throttle);
// - the die temperature follows power with a first-order lag (tau 20 s) and
//   clocks drop above 83 C (thermal throttle);
// - counters (energy, PCIe and link bytes, throttle time, ECC errors) are the
//   integral of their rates on a 1 s grid from scenario time 0, so they are
//   monotonic and the same for the same time whatever the collection pattern;
//   gauges show the values of the grid second that contains t, so a counter's
//   increase over any window is its gauge integrated over that window (what
//   rate() over the window compares with avg_over_time of the gauge).
// Episode magnitudes m in [0, 1] scale the effects (memory contention with
// m = 0.5 costs ~25% throughput, in the range of Gavel's measured co-location
// slowdowns).
//
// Thread safety: SimDevice is immutable; SimDeviceState is not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collect/scenario.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {

// One simulated device. Figures are the device's share of its GPU.
struct SimDevice {
  const GpuModelSpec* spec = nullptr;
  size_t node = 0;
  int gpu = 0;               // physical index on the node
  int partition = -1;        // partition index, -1 = whole GPU
  double compute_share = 1;  // of the GPU's compute, power
  double memory_bytes = 0;
  double tdp_watts = 0;
  double idle_watts = 0;
  double power_limit_watts = 0;
  std::vector<const ScenarioWorkload*> workloads;  // point into the Scenario
  std::vector<const ScenarioEpisode*> episodes;    // those that target this device
  uint64_t noise_key = 0;                          // seed and device identity mixed
};

// Builds the devices of a scenario in discovery order (node, GPU, partition).
// The result points into `scenario`, which must outlive it.
std::vector<SimDevice> BuildSimDevices(const Scenario& scenario);

struct SimProcess {
  const ScenarioWorkload* workload = nullptr;  // nullptr = an unattributed neighbour
  int64_t pid = 0;
  double memory_bytes = 0;
  double utilization = 0;
};

// Instantaneous values at one time: gauges and the rates counters integrate.
struct SimInstant {
  bool active = false;
  double utilization = 0;
  double graphics_active = 0;
  double sm_active = 0;
  double occupancy = 0;
  double tensor_active = 0;
  double memory_bandwidth = 0;  // ratio of peak
  double memory_copy_busy = 0;
  double memory_used_bytes = 0;
  double power_watts = 0;
  double power_limit_watts = 0;
  double sm_clock_hz = 0;
  double memory_clock_hz = 0;
  double die_temp_target_c = 0;
  bool power_throttle = false;
  bool thermal_throttle = false;
  double pcie_tx_bytes_per_s = 0;
  double pcie_rx_bytes_per_s = 0;
  double link_bytes_per_s = 0;  // per direction, all links
  double ecc_corrected_per_s = 0;
  double ecc_uncorrected_per_s = 0;
  double throughput = 0;  // useful work relative to the uncontended device (for tests)
  std::vector<SimProcess> processes;
};

// REQUIRES: `die_temp_c` is the device's lagged die temperature at t_s.
SimInstant EvaluateSimDevice(const SimDevice& d, double t_s, double die_temp_c);

// Counters integrated from scenario time 0.
struct SimCounters {
  double energy_joules = 0;
  double pcie_tx_bytes = 0;
  double pcie_rx_bytes = 0;
  double link_bytes = 0;  // per direction, all links
  double throttle_power_s = 0;
  double throttle_thermal_s = 0;
  double ecc_corrected = 0;
  double ecc_uncorrected = 0;
};

class SimDeviceState {
 public:
  explicit SimDeviceState(double ambient_c) : die_temp_c_(ambient_c) {}

  // Integrates up to `t_s` (never backwards) and returns the counters and the
  // instant at `t_s`; the partial last second is added linearly.
  void Sample(const SimDevice& d, double t_s, SimInstant& instant, SimCounters& counters,
              double& die_temp_c);

 private:
  void StepOneSecond(const SimDevice& d);

  int64_t grid_s_ = 0;  // integrated up to here
  double die_temp_c_;
  SimCounters counters_;
};

// Ambient (inlet) temperature of the simulated data centres.
constexpr double kSimAmbientC = 28;
// Die temperature of an idle GPU at scenario start.
constexpr double kSimIdleDieC = kSimAmbientC + 8;
// Die temperature above which the simulated clocks slow down.
constexpr double kSimThrottleC = 83;

}  // namespace gpufleet
