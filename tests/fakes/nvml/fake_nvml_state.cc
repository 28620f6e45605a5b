// The fake's scripted state, its config file and the FakeNvml_* controls.
#include "fake_nvml_state.h"

#include <algorithm>
#include <cstdlib>

#include "fake_nvml_control.h"

namespace fake_nvml {

using gpufleet::nvml::nvmlDevice_st;
using gpufleet::nvml::nvmlEventData_t;
using gpufleet::nvml::nvmlEventSet_st;

State& GetState() {
  static State* state = new State();
  return *state;
}

void State::ResetScripted() {
  device_count = 2;
  mig_device = 1;
  init_result = 0;
  for (DeviceState& d : dev) {
    d.lost = false;
    d.hang_ms = 0;
    d.overrides.clear();
    d.not_supported.clear();
  }
  cv.notify_all();
}

double Seconds(const State& s) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
}

double Value(const State& s, int index, const char* name, double fallback) {
  if (index < 0 || index >= kMaxDevices) return fallback;
  auto it = s.dev[index].overrides.find(name);
  return it == s.dev[index].overrides.end() ? fallback : it->second;
}

nvmlDevice_st* GpuHandle(int index) {
  static nvmlDevice_st handles[kMaxDevices];
  handles[index].index = index;
  handles[index].mig_slot = -1;
  return &handles[index];
}

nvmlDevice_st* MigHandle(int index, int slot) {
  static nvmlDevice_st handles[kMaxDevices][kMigSlots];
  handles[index][slot].index = index;
  handles[index][slot].mig_slot = slot;
  return &handles[index][slot];
}

void QueueXid(State& s, int index, unsigned long long xid) {
  for (nvmlEventSet_st* set : s.sets) {
    if (set->devices.count(index) == 0) continue;
    nvmlEventData_t e{};
    e.device = GpuHandle(index);
    e.eventType = gpufleet::nvml::kNvmlEventTypeXidCriticalError;
    e.eventData = xid;
    e.gpuInstanceId = 0xFFFFFFFFu;
    e.computeInstanceId = 0xFFFFFFFFu;
    set->queue.push_back(e);
  }
  s.cv.notify_all();
}

namespace {

using fake_common::SplitList;

bool ParseIndex(const std::string& s, int& index) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 0 || v >= kMaxDevices) return false;
  index = static_cast<int>(v);
  return true;
}

// Applies one `key = value` line; unknown or malformed lines are ignored (a
// test fixture, not a product parser).
void ApplyLine(State& s, const std::string& key, const std::string& value) {
  int idx = 0;
  if (key == "device_count") {
    s.device_count = std::clamp(std::atoi(value.c_str()), 0, kMaxDevices);
  } else if (key == "mig_device") {
    s.mig_device = std::atoi(value.c_str());
  } else if (key == "init_result") {
    s.init_result = std::atoi(value.c_str());
  } else if (key == "lost") {
    for (const std::string& item : SplitList(value)) {
      if (ParseIndex(item, idx)) s.dev[idx].lost = true;
    }
  } else if (size_t dot = key.rfind('.');
             dot != std::string::npos && ParseIndex(key.substr(dot + 1), idx)) {
    std::string name = key.substr(0, dot);
    if (name == "hang_ms") {
      s.dev[idx].hang_ms = std::atoi(value.c_str());
    } else if (name == "not_supported") {
      for (const std::string& item : SplitList(value)) s.dev[idx].not_supported.insert(item);
    } else if (name == "xid") {
      for (const std::string& item : SplitList(value)) {
        QueueXid(s, idx, std::strtoull(item.c_str(), nullptr, 10));
      }
    } else {
      s.dev[idx].overrides[name] = std::strtod(value.c_str(), nullptr);
    }
  }
}

}  // namespace

void MaybeReloadConfig(State& s) {
  // A vanished file keeps the last state until it reappears.
  if (!s.config.Reload()) return;
  s.ResetScripted();
  // In file order: each xid line queues its events.
  for (const auto& [key, value] : s.config.entries()) ApplyLine(s, key, value);
}

}  // namespace fake_nvml

using fake_nvml::GetState;
using fake_nvml::kMaxDevices;

namespace {

bool ValidIndex(int index) { return index >= 0 && index < kMaxDevices; }

}  // namespace

extern "C" {

void FakeNvml_Reset(void) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.ResetScripted();
  s.init_refs = 0;
  for (auto* set : s.sets) set->queue.clear();
}

void FakeNvml_SetDeviceCount(int count) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.device_count = std::clamp(count, 0, kMaxDevices);
}

void FakeNvml_SetMigDevice(int index) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.mig_device = index;
}

void FakeNvml_SetDeviceLost(int index, int lost) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (ValidIndex(index)) s.dev[index].lost = lost != 0;
}

void FakeNvml_SetHangMs(int index, int ms) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (ValidIndex(index)) s.dev[index].hang_ms = ms;
  s.cv.notify_all();
}

void FakeNvml_SetInitResult(int rc) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.init_result = rc;
}

void FakeNvml_SetValue(int index, const char* name, double value) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (ValidIndex(index) && name != nullptr) s.dev[index].overrides[name] = value;
}

void FakeNvml_SetNotSupported(int index, const char* what, int on) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!ValidIndex(index) || what == nullptr) return;
  if (on != 0) {
    s.dev[index].not_supported.insert(what);
  } else {
    s.dev[index].not_supported.erase(what);
  }
}

void FakeNvml_InjectXid(int index, unsigned long long xid) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (ValidIndex(index)) fake_nvml::QueueXid(s, index, xid);
}

void FakeNvml_SimulateDriverReload(void) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.init_refs = 0;
}

int FakeNvml_HangingCalls(void) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.hanging;
}

int FakeNvml_InitCount(void) {
  auto& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.init_refs;
}

}  // extern "C"
