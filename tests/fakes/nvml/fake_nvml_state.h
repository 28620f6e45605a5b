// State of the fake libnvidia-ml: the scripted devices, event sets and the
// config file reader. Private to tests/fakes/nvml/.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "collect/nvml_types.h"
#include "tests/fakes/common/fake_config.h"

namespace gpufleet::nvml {

// The fake's definitions of NVML's opaque handle types.
struct nvmlDevice_st {
  int index = 0;
  int mig_slot = -1;  // -1: the whole GPU
};
struct nvmlEventSet_st {
  std::deque<nvmlEventData_t> queue;
  std::set<int> devices;
};
struct nvmlGpmSample_st {
  bool filled = false;
  int index = -1;
  int mig_slot = -1;
  uint64_t tick = 0;
};

}  // namespace gpufleet::nvml

namespace fake_nvml {

inline constexpr int kMaxDevices = 8;
inline constexpr int kMigSlots = 2;  // MIG instances of the GPU in MIG mode
inline constexpr int kMaxMigDevices = 7;

struct DeviceState {
  bool lost = false;
  int hang_ms = 0;
  std::map<std::string, double> overrides;
  std::set<std::string> not_supported;
  uint64_t tick = 0;  // successful calls; keeps counters strictly increasing
};

struct State {
  std::mutex mu;
  std::condition_variable cv;  // signalled when a hang is shortened
  // Guarded by mu.
  int device_count = 2;
  int mig_device = 1;
  int init_result = 0;
  int init_refs = 0;
  int hanging = 0;
  DeviceState dev[kMaxDevices];
  std::vector<gpufleet::nvml::nvmlEventSet_st*> sets;
  fake_common::ConfigFile config{"GPUFLEET_FAKE_NVML_CONFIG"};
  // Set at construction.
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // Back to defaults for everything a script can set. REQUIRES: mu.
  void ResetScripted();
};

// The process-wide state; never destroyed (calls may still be blocked in a
// hang when the process exits).
State& GetState();

// Re-reads the file named by GPUFLEET_FAKE_NVML_CONFIG when it changed.
// REQUIRES: s.mu.
void MaybeReloadConfig(State& s);
// Queues an Xid for every event set registered on GPU `index`. REQUIRES: s.mu.
void QueueXid(State& s, int index, unsigned long long xid);

// Seconds since the library was loaded.
double Seconds(const State& s);
// A scripted override for GPU `index`, else `fallback`. REQUIRES: s.mu.
double Value(const State& s, int index, const char* name, double fallback);

gpufleet::nvml::nvmlDevice_st* GpuHandle(int index);
gpufleet::nvml::nvmlDevice_st* MigHandle(int index, int slot);

}  // namespace fake_nvml
