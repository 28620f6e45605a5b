// The fake Level Zero loader's model: two scripted Intel GPUs as tables of
// resources (engines, power domains, ...), their knobs, the config file and
// the prologue every exported call passes. Shared by the fake's .cc files;
// private to tests/fakes/levelzero/ (fake_ze_control.h is the public side).
#pragma once

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "tests/fakes/common/fake_config.h"

namespace fake_ze {

// Resource kinds; also the kinds whose state reads a test can make fail.
enum Kind { kEngine, kPower, kMemory, kTemp, kFreq, kRas, kFabric, kPci, kKinds };
inline constexpr const char* kKindNames[kKinds] = {"engine",    "power", "memory", "temperature",
                                                   "frequency", "ras",   "fabric", "pci"};
inline constexpr int kDevices = 2;

// One Sysman handle (engine group, power domain, sensor, ...); handles are
// pointers to these.
struct Resource {
  Kind kind;
  int device;
  bool on_sub;
  uint32_t sub;
  int type;      // engine group, temperature sensor, frequency domain or RAS error type
  double share;  // of the device's activity this resource sees
  uint32_t port = 0;
  // Integrated counters.
  double acc = 0;
  double acc2 = 0;
  uint64_t last_us = 0;
};

// What a scripted GPU is: identity and fixed figures.
struct Model {
  int index;
  const char* name;
  uint32_t device_id;
  zes_pci_address_t pci;
  uint32_t tiles;
  uint64_t memory_per_module;
  uint64_t bandwidth_per_module;  // bytes/s
  double gpu_mhz;
  double memory_mhz;
  int32_t limit_mw;
};

// A scripted GPU with its resources; device handles point to these.
struct Device : Model {
  std::vector<Resource*> res[kKinds];
  Resource pci_counters;  // PCI counters belong to the device, not to a tile
};

// What tests script, through the control functions or the config file.
struct Knobs {
  int32_t init_result = ZE_RESULT_SUCCESS;
  bool lost[kDevices] = {false, false};
  int hang_ms[kDevices] = {0, 0};
  double busy[kDevices] = {0.62, 0.35};
  double power_w[kDevices] = {420.0, 95.0};
  int32_t kind_result[kDevices][kKinds] = {};
};

struct Fake {
  Fake();

  std::mutex mu;
  // Guarded by mu.
  Knobs knobs;
  bool initialized = false;
  bool sysman = false;
  uint64_t offset_us = 0;
  fake_common::ConfigFile config{"GPUFLEET_FAKE_LEVELZERO_CONFIG"};
  std::vector<Resource> storage;
  // Set at construction.
  Device devices[kDevices];
  int driver_tag = 0;  // the one driver handle points here

  // The fake's clock: monotonic time plus what tests pushed it forward.
  // REQUIRES: mu.
  uint64_t NowUs() const;
  // Integrates `rate` and `rate2` (units per microsecond) into the
  // resource's counters up to now; returns now. REQUIRES: mu.
  uint64_t Tick(Resource& r, double rate, double rate2);
  // Re-applies the config file when it changed. REQUIRES: mu.
  void ReloadConfig();
};

// The process-wide fake; destroyed when the library is unloaded (dlclose),
// after its last caller.
Fake& F();

// The prologue of every device-scoped call: the scripted hang (slept without
// the lock), then not initialized / lost / an injected failure of `kind`
// (kKinds: none).
ze_result_t Gate(int device, Kind kind);

inline Device* Dev(zes_device_handle_t h) { return reinterpret_cast<Device*>(h); }

// Null checks on the handle and the output pointers, then Gate: the prologue
// of a call on a resource handle.
template <typename H, typename... Out>
ze_result_t Enter(H h, Kind kind, Resource*& r, const Out*... outs) {
  if (h == nullptr || ((outs == nullptr) || ...)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  r = reinterpret_cast<Resource*>(h);
  return Gate(r->device, kind);
}
template <typename... Out>
ze_result_t Enter(zes_device_handle_t h, Kind kind, Device*& d, const Out*... outs) {
  if (h == nullptr || ((outs == nullptr) || ...)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  d = Dev(h);
  return Gate(d->index, kind);
}

// Declares `var` for handle `h` and returns early unless the call may go on.
#define FAKE_ZE_ENTER(type, var, h, kind, ...)                                   \
  type* var = nullptr;                                                           \
  if (ze_result_t rc_ = fake_ze::Enter(h, kind, var __VA_OPT__(, ) __VA_ARGS__); \
      rc_ != ZE_RESULT_SUCCESS) {                                                \
    return rc_;                                                                  \
  }

// Where a property struct's resource sits: on a tile or on the whole device.
template <typename Props>
void SetLocation(Props* p, const Resource& r) {
  p->onSubdevice = r.on_sub;
  p->subdeviceId = r.sub;
}

// *GetProperties of a resource whose properties start with its type
// (`Type`, an enum) and location.
template <typename Type, typename H, typename Props>
ze_result_t GetTypedProperties(H h, Props* p) {
  FAKE_ZE_ENTER(Resource, r, h, kKinds, p);
  p->type = static_cast<Type>(r->type);
  SetLocation(p, *r);
  return ZE_RESULT_SUCCESS;
}

// The count/handles protocol of every zesDeviceEnum* call.
template <typename H>
ze_result_t Enumerate(zes_device_handle_t device, Kind kind, uint32_t* count, H* out) {
  FAKE_ZE_ENTER(Device, d, device, kKinds, count);
  const auto& list = d->res[kind];
  uint32_t n = static_cast<uint32_t>(list.size());
  if (*count == 0 || out == nullptr) {
    *count = n;
    return ZE_RESULT_SUCCESS;
  }
  if (*count > n) *count = n;
  for (uint32_t i = 0; i < *count; ++i) out[i] = reinterpret_cast<H>(list[i]);
  return ZE_RESULT_SUCCESS;
}

// zeInit / zesInit: `sysman` when the caller enabled Sysman.
ze_result_t DoInit(bool sysman);
// zeDriverGet / zesDriverGet and zeDeviceGet / zesDeviceGet (same handles).
ze_result_t DriverGet(uint32_t* count, ze_driver_handle_t* drivers);
ze_result_t DeviceGet(ze_driver_handle_t driver, uint32_t* count, ze_device_handle_t* devices);

}  // namespace fake_ze
