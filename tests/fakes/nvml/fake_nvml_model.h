// The fake's device model (what each GPU answers) and the gate every device
// call passes. Shared by the fake's .cc files; private to tests/fakes/nvml/.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <numbers>
#include <vector>

#include "fake_nvml_state.h"

namespace fake_nvml {

using namespace gpufleet::nvml;  // NOLINT: a fake of this very ABI

inline constexpr unsigned long long kMiB = 1024ULL * 1024ULL;
inline constexpr unsigned long long kGiB = 1024ULL * kMiB;
inline constexpr unsigned long long kH100TotalBytes = 81559ULL * kMiB;  // what an 80GB part reports
inline constexpr unsigned long long kReservedBytes = 512ULL * kMiB;
inline constexpr int kNvlinkLinks = 18;
inline constexpr unsigned kBuses[kMaxDevices] = {0x1B, 0x43, 0x52, 0x61, 0x9D, 0xC3, 0xD1, 0xDF};

struct MigProfile {
  unsigned gpu_instance_id;
  unsigned slices;
  unsigned long long memory_mb;
  const char* name;
};
inline constexpr MigProfile kMigProfiles[kMigSlots] = {{2, 3, 40192, "3g.40gb"},
                                                       {9, 1, 9856, "1g.10gb"}};

struct FakeProcess {
  unsigned pid;
  unsigned long long memory_bytes;
  unsigned sm_pct;
  unsigned gpu_instance_id;
};

inline nvmlReturn_t EnterSystem(State& s) {
  fake_nvml::MaybeReloadConfig(s);
  return s.init_refs > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

// The prologue of a call that needs only an initialized library; declares
// `s` (the state) and holds its lock.
#define FAKE_ENTER_SYSTEM()                                  \
  fake_nvml::State& s = fake_nvml::GetState();               \
  std::lock_guard<std::mutex> lock(s.mu);                    \
  if (nvmlReturn_t rc_ = fake_nvml::EnterSystem(s); rc_ != NVML_SUCCESS) return rc_

// Every device call passes here: config reload, init check, the scripted
// hang (waiting without the lock), lost and not-supported answers.
inline nvmlReturn_t EnterDevice(State& s, std::unique_lock<std::mutex>& lock, nvmlDevice_t d,
                                const char* fn) {
  if (nvmlReturn_t rc = EnterSystem(s); rc != NVML_SUCCESS) return rc;
  if (d == nullptr || d->index < 0 || d->index >= kMaxDevices) return NVML_ERROR_INVALID_ARGUMENT;
  fake_nvml::DeviceState& dev = s.dev[d->index];
  if (dev.hang_ms > 0) {
    auto begin = std::chrono::steady_clock::now();
    ++s.hanging;
    while (true) {
      auto deadline = begin + std::chrono::milliseconds(dev.hang_ms);
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) break;
      // Re-check the config file now and then: a test may end the hang there.
      s.cv.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(50)));
      fake_nvml::MaybeReloadConfig(s);
    }
    --s.hanging;
    if (s.init_refs == 0) return NVML_ERROR_UNINITIALIZED;
  }
  if (d->index >= s.device_count || dev.lost) return NVML_ERROR_GPU_IS_LOST;
  if (d->mig_slot >= 0 && d->index != s.mig_device) return NVML_ERROR_INVALID_ARGUMENT;
  if (dev.not_supported.count(fn) != 0) return NVML_ERROR_NOT_SUPPORTED;
  ++dev.tick;
  return NVML_SUCCESS;
}

#define FAKE_ENTER(device)                                                                \
  fake_nvml::State& s = fake_nvml::GetState();                                            \
  std::unique_lock<std::mutex> lock(s.mu);                                                \
  if (nvmlReturn_t rc_ = fake_nvml::EnterDevice(s, lock, (device), __func__); rc_ != 0) { \
    return rc_;                                                                           \
  }                                                                                       \
  const int idx = (device)->index;                                                        \
  (void)idx

inline bool InMig(const State& s, int idx) { return idx == s.mig_device; }

// 0..1, a slow wave per device so values move over time.
inline double Wave(const State& s, int idx, double period_s) {
  return 0.5 + 0.5 * std::sin(2 * std::numbers::pi * Seconds(s) / period_s + 1.3 * idx);
}

inline unsigned UtilGpu(const State& s, int idx) {
  return static_cast<unsigned>(
      Value(s, idx, "utilization_gpu_pct", std::round(40 + 50 * Wave(s, idx, 20))));
}

inline double PowerMw(const State& s, int idx) {
  return Value(s, idx, "power_mw", 120000.0 + 4800.0 * UtilGpu(s, idx));
}

inline std::vector<FakeProcess> Processes(const State& s, int idx, int mig_slot) {
  unsigned base = 4242 + 100 * static_cast<unsigned>(idx);
  if (!InMig(s, idx))
    return {{base, 20 * kGiB, 60, 0xFFFFFFFFu}, {base + 101, 8 * kGiB, 25, 0xFFFFFFFFu}};
  FakeProcess mig_proc{5151, 12 * kGiB, 0, kMigProfiles[0].gpu_instance_id};
  if (mig_slot == 1) return {};
  return {mig_proc};  // the parent lists every MIG instance's processes
}

inline unsigned long long UsedBytes(const State& s, int idx, int mig_slot) {
  unsigned long long used = 0;
  for (const FakeProcess& p : Processes(s, idx, mig_slot)) used += p.memory_bytes;
  double overhead = mig_slot >= 0 ? 300.0 * kMiB : (600.0 + 200.0 * Wave(s, idx, 30)) * kMiB;
  return used + static_cast<unsigned long long>(overhead);
}

inline unsigned long long TotalBytes(int mig_slot) {
  return mig_slot >= 0 ? kMigProfiles[mig_slot].memory_mb * kMiB : kH100TotalBytes;
}

inline int MigSlotOfInstance(unsigned gpu_instance_id) {
  for (int i = 0; i < kMigSlots; ++i) {
    if (kMigProfiles[i].gpu_instance_id == gpu_instance_id) return i;
  }
  return -1;
}

inline void CopyString(const char* src, char* dst, unsigned length) {
  if (length == 0) return;
  std::snprintf(dst, length, "%s", src);
}

}  // namespace fake_nvml
