// The fake Level Zero loader's devices, knobs and config file, the shared
// prologue of its calls and the fake_ze_* control functions.
#include "fake_ze_model.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "fake_ze_control.h"

namespace fake_ze {

namespace {

// One resource of a device: its kind and type, the share of the device's
// activity it sees, and a fabric port number.
struct ResourceSpec {
  Kind kind;
  int type;
  double share;
  uint32_t port = 0;
};

// clang-format off: one GPU a row
constexpr Model kModels[kDevices] = {
    {0, "Intel(R) Data Center GPU Max 1550", 0x0bd5, {0, 0x3a, 0, 0}, 2, 64ull << 30,
     1638400000000ull, 1400, 3200, 600000},
    {1, "Intel(R) Data Center GPU Flex 170", 0x56c0, {0, 0x4d, 0, 0}, 0, 16ull << 30,
     576000000000ull, 2050, 2250, 150000},
};
// clang-format on

// What both models report per tile (Max 1550) or per device (Flex 170).
constexpr ResourceSpec kCommonResources[] = {
    {kMemory, 0, 1.0},
    {kTemp, ZES_TEMP_SENSORS_GPU, 1.0},
    {kTemp, ZES_TEMP_SENSORS_MEMORY, 1.0},
    {kFreq, ZES_FREQ_DOMAIN_GPU, 1.0},
    {kFreq, ZES_FREQ_DOMAIN_MEMORY, 1.0},
    {kRas, ZES_RAS_ERROR_TYPE_CORRECTABLE, 1.0},
    {kRas, ZES_RAS_ERROR_TYPE_UNCORRECTABLE, 1.0},
};

// Max 1550, per tile: compute and copy engines, a power domain besides the
// card's, two Xe Link ports.
constexpr ResourceSpec kMaxTileResources[] = {
    {kEngine, ZES_ENGINE_GROUP_ALL, 1.0},
    {kEngine, ZES_ENGINE_GROUP_COMPUTE_ALL, 0.95},
    {kEngine, ZES_ENGINE_GROUP_COPY_ALL, 0.2},
    {kPower, 0, 0.45},
    {kFabric, 0, 1.0, 1},
    {kFabric, 0, 1.0, 2},
};

// Flex 170: one tile, everything device-level, media engines, no fabric.
constexpr ResourceSpec kFlexResources[] = {
    {kEngine, ZES_ENGINE_GROUP_ALL, 1.0},
    {kEngine, ZES_ENGINE_GROUP_COMPUTE_ALL, 0.9},
    {kEngine, ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE, 0.5},
    {kEngine, ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE, 0.3},
    {kEngine, ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE, 0.2},
    {kPower, 0, 1.0},
};

// `init = ok|permission|uninitialized` in the config file.
int32_t InitResultNamed(const std::string& value) {
  if (value == "permission") return ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
  if (value == "uninitialized") return ZE_RESULT_ERROR_UNINITIALIZED;
  return ZE_RESULT_SUCCESS;
}

// kKinds when `name` is no kind.
int KindNamed(const char* name) {
  int k = 0;
  while (k < kKinds && std::strcmp(name, kKindNames[k]) != 0) ++k;
  return k;
}

// One `device.N.<field> = value` line.
void ApplyDeviceKnob(Knobs& knobs, int d, const std::string& field, const std::string& value) {
  double v = std::atof(value.c_str());
  if (field == "lost") knobs.lost[d] = v != 0;
  if (field == "hang_ms") knobs.hang_ms[d] = static_cast<int>(v);
  if (field == "busy") knobs.busy[d] = v;
  if (field == "power_w") knobs.power_w[d] = v;
  if (field == "deny") {
    int k = KindNamed(value.c_str());
    if (k < kKinds) knobs.kind_result[d][k] = ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
  }
}

}  // namespace

Fake::Fake() {
  for (int i = 0; i < kDevices; ++i) {
    static_cast<Model&>(devices[i]) = kModels[i];
    devices[i].pci_counters = Resource{kPci, i, false, 0, 0, 1.0};
  }
  // Handles point into `storage`: reserve it all up front.
  storage.reserve(1 + 2 * (std::size(kCommonResources) + std::size(kMaxTileResources)) +
                  std::size(kCommonResources) + std::size(kFlexResources));
  auto add = [&](Device& d, bool on_sub, uint32_t sub, const auto& specs) {
    for (const ResourceSpec& spec : specs) {
      storage.push_back(
          Resource{spec.kind, d.index, on_sub, sub, spec.type, spec.share, spec.port});
      d.res[spec.kind].push_back(&storage.back());
    }
  };
  Device& max = devices[0];
  const ResourceSpec card_power[] = {{kPower, 0, 1.0}};  // listed before the tiles' domains
  add(max, false, 0, card_power);
  for (uint32_t tile = 0; tile < max.tiles; ++tile) {
    add(max, true, tile, kMaxTileResources);
    add(max, true, tile, kCommonResources);
  }
  add(devices[1], false, 0, kFlexResources);
  add(devices[1], false, 0, kCommonResources);
}

uint64_t Fake::NowUs() const {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) +
         offset_us;
}

uint64_t Fake::Tick(Resource& r, double rate, double rate2) {
  uint64_t now = NowUs();
  if (r.last_us != 0 && now > r.last_us) {
    r.acc += rate * static_cast<double>(now - r.last_us);
    r.acc2 += rate2 * static_cast<double>(now - r.last_us);
  }
  r.last_us = now;
  return now;
}

void Fake::ReloadConfig() {
  if (!config.Reload()) return;
  knobs = Knobs();
  for (const auto& [key, value] : config.entries()) {
    if (key == "init") {
      knobs.init_result = InitResultNamed(value);
      continue;
    }
    // device.N.<field>, N a single digit.
    if (key.rfind("device.", 0) != 0 || key.size() < 10 || key[8] != '.') continue;
    int d = key[7] - '0';
    if (d >= 0 && d < kDevices) ApplyDeviceKnob(knobs, d, key.substr(9), value);
  }
}

Fake& F() {
  static Fake fake;
  return fake;
}

ze_result_t Gate(int device, Kind kind) {
  Fake& f = F();
  int hang_ms;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    f.ReloadConfig();
    hang_ms = f.knobs.hang_ms[device];
  }
  if (hang_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hang_ms));
  std::lock_guard<std::mutex> lock(f.mu);
  if (!f.initialized || !f.sysman) return ZE_RESULT_ERROR_UNINITIALIZED;
  if (f.knobs.lost[device]) return ZE_RESULT_ERROR_DEVICE_LOST;
  if (kind != kKinds && f.knobs.kind_result[device][kind] != 0) {
    return static_cast<ze_result_t>(f.knobs.kind_result[device][kind]);
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t DoInit(bool sysman) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.ReloadConfig();
  if (f.knobs.init_result != ZE_RESULT_SUCCESS)
    return static_cast<ze_result_t>(f.knobs.init_result);
  f.initialized = true;
  f.sysman = f.sysman || sysman;
  return ZE_RESULT_SUCCESS;
}

ze_result_t DriverGet(uint32_t* count, ze_driver_handle_t* drivers) {
  Fake& f = F();
  {
    std::lock_guard<std::mutex> lock(f.mu);
    if (!f.initialized) return ZE_RESULT_ERROR_UNINITIALIZED;
  }
  if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*count == 0 || drivers == nullptr) {
    *count = 1;
    return ZE_RESULT_SUCCESS;
  }
  *count = 1;
  drivers[0] = reinterpret_cast<ze_driver_handle_t>(&f.driver_tag);
  return ZE_RESULT_SUCCESS;
}

ze_result_t DeviceGet(ze_driver_handle_t driver, uint32_t* count, ze_device_handle_t* devices) {
  Fake& f = F();
  if (driver != reinterpret_cast<ze_driver_handle_t>(&f.driver_tag)) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*count == 0 || devices == nullptr) {
    *count = kDevices;
    return ZE_RESULT_SUCCESS;
  }
  if (*count > kDevices) *count = kDevices;
  for (uint32_t i = 0; i < *count; ++i) {
    devices[i] = reinterpret_cast<ze_device_handle_t>(&f.devices[i]);
  }
  return ZE_RESULT_SUCCESS;
}

}  // namespace fake_ze

using fake_ze::F;
using fake_ze::Fake;
using fake_ze::kDevices;

namespace {

bool ValidDevice(int device) { return device >= 0 && device < kDevices; }

}  // namespace

extern "C" {

void fake_ze_reset(void) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.knobs = fake_ze::Knobs();
  f.offset_us = 0;
  f.config.Invalidate();
  for (fake_ze::Resource& r : f.storage) {
    r.acc = 0;
    r.acc2 = 0;
    r.last_us = 0;
  }
}
void fake_ze_set_init_result(int32_t result) {
  std::lock_guard<std::mutex> lock(F().mu);
  F().knobs.init_result = result;
}
void fake_ze_set_device_lost(int device, int lost) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (ValidDevice(device)) F().knobs.lost[device] = lost != 0;
}
void fake_ze_set_hang_ms(int device, int ms) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (ValidDevice(device)) F().knobs.hang_ms[device] = ms;
}
void fake_ze_set_busy(int device, double ratio) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (ValidDevice(device)) F().knobs.busy[device] = ratio;
}
void fake_ze_set_power_watts(int device, double watts) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (ValidDevice(device)) F().knobs.power_w[device] = watts;
}
void fake_ze_set_kind_result(int device, const char* kind, int32_t result) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (!ValidDevice(device) || kind == nullptr) return;
  int k = fake_ze::KindNamed(kind);
  if (k < fake_ze::kKinds) F().knobs.kind_result[device][k] = result;
}
void fake_ze_advance_us(uint64_t us) {
  std::lock_guard<std::mutex> lock(F().mu);
  F().offset_us += us;
}

}  // extern "C"
