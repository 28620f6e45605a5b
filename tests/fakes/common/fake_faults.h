// Failure injection shared by the fake vendor libraries whose devices are
// plain indices (the AMD SMI and ROCm SMI fakes): a failing init, fewer
// devices, lost devices, hung calls and impossible values. Scripted through
// exported control functions (FAKE_DEFINE_FAULT_CONTROLS) or the fake's
// config file (fake_config.h) with these keys:
//
//   init_result = 34        # status the init call returns
//   device_count = 1        # devices listed (default: all)
//   lost = 0,1              # devices that answer "gone"
//   hang_ms.1 = 5000        # every call on device 1 sleeps this long first
//   absurd.0 = 1            # device 0 reports an impossible temperature
//
// Each (re)load of the file first clears every fault.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "fake_config.h"

namespace fake_common {

template <int kDevices>
struct DeviceFaults {
  int init_result = 0;  // in the vendor's status codes; 0 is success for all of them
  int device_count = kDevices;
  bool lost[kDevices] = {};
  int hang_ms[kDevices] = {};
  bool absurd[kDevices] = {};

  static bool Valid(int device) { return device >= 0 && device < kDevices; }
  static int ClampCount(long n) { return static_cast<int>(std::clamp(n, 0L, long{kDevices})); }

  // No faults, then those the file names.
  void Load(const ConfigFile& config) {
    *this = DeviceFaults();
    init_result = static_cast<int>(config.Int("init_result", 0));
    device_count = ClampCount(config.Int("device_count", kDevices));
    for (int i = 0; i < kDevices; ++i) {
      const std::string n = std::to_string(i);
      lost[i] = config.InList("lost", i);
      hang_ms[i] = static_cast<int>(config.Int("hang_ms." + n, 0));
      absurd[i] = config.Int("absurd." + n, 0) != 0;
    }
  }
};

// What a per-device call answers before doing its own work.
enum class Admission { kOk, kNotInitialized, kNoSuchDevice, kLost };

// A fake's lock, init state and faults. One per fake library, never copied.
template <int kDevices>
class FaultState {
 public:
  explicit FaultState(const char* config_env) : config_(config_env) {}

  std::mutex mu;
  // Guarded by mu.
  bool initialized = false;
  int init_calls = 0;
  DeviceFaults<kDevices> faults;

  // Re-applies the config file when it changed. REQUIRES: mu held.
  void ReloadConfig() {
    if (config_.Reload()) faults.Load(config_);
  }

  // The init call: counts it and returns the scripted result (0: now initialized).
  int Init() {
    std::lock_guard<std::mutex> lock(mu);
    ReloadConfig();
    ++init_calls;
    if (faults.init_result != 0) return faults.init_result;
    initialized = true;
    return 0;
  }

  // The prologue of every per-device call: config reload, init and index
  // checks, the scripted hang, then loss. The hang sleeps without the lock,
  // so a hung device does not block calls on the others. `device` < 0 means
  // a handle the fake does not know.
  Admission Enter(int device) {
    int hang_ms = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      ReloadConfig();
      if (!initialized) return Admission::kNotInitialized;
      if (device < 0 || device >= faults.device_count) return Admission::kNoSuchDevice;
      hang_ms = faults.hang_ms[device];
    }
    if (hang_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hang_ms));
    std::lock_guard<std::mutex> lock(mu);
    return faults.lost[device] ? Admission::kLost : Admission::kOk;
  }

  bool Absurd(int device) {
    std::lock_guard<std::mutex> lock(mu);
    return DeviceFaults<kDevices>::Valid(device) && faults.absurd[device];
  }

  // Seconds since the library was loaded ("driver load" for counters).
  double ElapsedSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  ConfigFile config_;  // guarded by mu
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace fake_common

// Defines, with C linkage, the control functions tests call through dlsym,
// each named `prefix` + suffix, on the FaultState returned by `state()`:
//   Reset()                      no faults, init count 0 (initialization kept)
//   SetDeviceLost(dev, lost)     SetHangMs(dev, ms)     SetAbsurd(dev, on)
//   SetInitResult(status)        SetDeviceCount(n)      (clamped to the devices)
//   DropInit()                   driver unloaded: NOT_INIT until the next init
//   int InitCalls()              init calls since Reset
#define FAKE_DEFINE_FAULT_CONTROLS(prefix, state)                        \
  extern "C" {                                                           \
  void prefix##Reset() {                                                 \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    state().faults = {};                                                 \
    state().init_calls = 0;                                              \
  }                                                                      \
  void prefix##SetDeviceLost(int dev, int lost) {                        \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    if (state().faults.Valid(dev)) state().faults.lost[dev] = lost != 0; \
  }                                                                      \
  void prefix##SetHangMs(int dev, int ms) {                              \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    if (state().faults.Valid(dev)) state().faults.hang_ms[dev] = ms;     \
  }                                                                      \
  void prefix##SetAbsurd(int dev, int on) {                              \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    if (state().faults.Valid(dev)) state().faults.absurd[dev] = on != 0; \
  }                                                                      \
  void prefix##SetInitResult(int status) {                               \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    state().faults.init_result = status;                                 \
  }                                                                      \
  void prefix##SetDeviceCount(int n) {                                   \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    state().faults.device_count = state().faults.ClampCount(n);          \
  }                                                                      \
  void prefix##DropInit() {                                              \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    state().initialized = false;                                         \
  }                                                                      \
  int prefix##InitCalls() {                                              \
    std::lock_guard<std::mutex> lock(state().mu);                        \
    return state().init_calls;                                           \
  }                                                                      \
  }
