// Fake libze_loader.so.1: exports the Level Zero Sysman entry points gpufleet
// calls, with the ABI of the Debian header, backed by two scripted Intel GPUs
// whose counters advance over time. See fake_ze_control.h for the script and
// the failure injection. Built twice: complete, and with FAKE_ZE_PARTIAL
// (no zesInit/zesDriverGet/zesDeviceGet, so the collector must take the
// zeInit path; no temperature, memory bandwidth or fabric entry points).
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake_ze_control.h"

extern "C" {
// API 1.5 entry points absent from the 1.4 header.
ZE_APIEXPORT ze_result_t ZE_APICALL zesInit(uint32_t flags);
ZE_APIEXPORT ze_result_t ZE_APICALL zesDriverGet(uint32_t* count, zes_driver_handle_t* drivers);
ZE_APIEXPORT ze_result_t ZE_APICALL zesDeviceGet(zes_driver_handle_t driver, uint32_t* count,
                                                 zes_device_handle_t* devices);
}

namespace {

enum Kind { kEngine, kPower, kMemory, kTemp, kFreq, kRas, kFabric, kPci, kKinds };
constexpr const char* kKindNames[kKinds] = {"engine", "power", "memory", "temperature",
                                            "frequency", "ras", "fabric", "pci"};
constexpr int kDevices = 2;

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

struct Device {
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
  std::vector<Resource*> res[kKinds];
};

struct Knobs {
  int32_t init_result = ZE_RESULT_SUCCESS;
  bool lost[kDevices] = {false, false};
  int hang_ms[kDevices] = {0, 0};
  double busy[kDevices] = {0.62, 0.35};
  double power_w[kDevices] = {420.0, 95.0};
  int32_t kind_result[kDevices][kKinds] = {};
};

struct Fake {
  std::mutex mu;
  Knobs knobs;
  bool initialized = false;
  bool sysman = false;
  uint64_t offset_us = 0;
  int64_t config_mtime_ns = -1;
  Device devices[kDevices];
  std::vector<Resource> storage;
  int driver_tag = 0;

  Fake() {
    devices[0] = Device{0, "Intel(R) Data Center GPU Max 1550", 0x0bd5, {0, 0x3a, 0, 0}, 2,
                        64ull << 30, 1638400000000ull, 1400, 3200, 600000, {}};
    devices[1] = Device{1, "Intel(R) Data Center GPU Flex 170", 0x56c0, {0, 0x4d, 0, 0}, 0,
                        16ull << 30, 576000000000ull, 2050, 2250, 150000, {}};
    storage.reserve(128);
    auto add = [&](Device& d, Kind k, bool on_sub, uint32_t sub, int type, double share,
                   uint32_t port = 0) {
      storage.push_back(Resource{k, d.index, on_sub, sub, type, share, port});
      d.res[k].push_back(&storage.back());
    };
    // Max 1550: Sysman reports engines, memory, sensors and RAS per tile.
    Device& max = devices[0];
    add(max, kPower, false, 0, 0, 1.0);
    for (uint32_t t = 0; t < 2; ++t) {
      add(max, kEngine, true, t, ZES_ENGINE_GROUP_ALL, 1.0);
      add(max, kEngine, true, t, ZES_ENGINE_GROUP_COMPUTE_ALL, 0.95);
      add(max, kEngine, true, t, ZES_ENGINE_GROUP_COPY_ALL, 0.2);
      add(max, kPower, true, t, 0, 0.45);
      add(max, kMemory, true, t, 0, 1.0);
      add(max, kTemp, true, t, ZES_TEMP_SENSORS_GPU, 1.0);
      add(max, kTemp, true, t, ZES_TEMP_SENSORS_MEMORY, 1.0);
      add(max, kFreq, true, t, ZES_FREQ_DOMAIN_GPU, 1.0);
      add(max, kFreq, true, t, ZES_FREQ_DOMAIN_MEMORY, 1.0);
      add(max, kRas, true, t, ZES_RAS_ERROR_TYPE_CORRECTABLE, 1.0);
      add(max, kRas, true, t, ZES_RAS_ERROR_TYPE_UNCORRECTABLE, 1.0);
      add(max, kFabric, true, t, 0, 1.0, 1);
      add(max, kFabric, true, t, 0, 1.0, 2);
    }
    // Flex 170: one tile, everything device-level, media engines.
    Device& flex = devices[1];
    add(flex, kEngine, false, 0, ZES_ENGINE_GROUP_ALL, 1.0);
    add(flex, kEngine, false, 0, ZES_ENGINE_GROUP_COMPUTE_ALL, 0.9);
    add(flex, kEngine, false, 0, ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE, 0.5);
    add(flex, kEngine, false, 0, ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE, 0.3);
    add(flex, kEngine, false, 0, ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE, 0.2);
    add(flex, kPower, false, 0, 0, 1.0);
    add(flex, kMemory, false, 0, 0, 1.0);
    add(flex, kTemp, false, 0, ZES_TEMP_SENSORS_GPU, 1.0);
    add(flex, kTemp, false, 0, ZES_TEMP_SENSORS_MEMORY, 1.0);
    add(flex, kFreq, false, 0, ZES_FREQ_DOMAIN_GPU, 1.0);
    add(flex, kFreq, false, 0, ZES_FREQ_DOMAIN_MEMORY, 1.0);
    add(flex, kRas, false, 0, ZES_RAS_ERROR_TYPE_CORRECTABLE, 1.0);
    add(flex, kRas, false, 0, ZES_RAS_ERROR_TYPE_UNCORRECTABLE, 1.0);
  }

  uint64_t NowUs() const {
    auto now = std::chrono::steady_clock::now().time_since_epoch();
    return static_cast<uint64_t>(
               std::chrono::duration_cast<std::chrono::microseconds>(now).count()) +
           offset_us;
  }

  // Integrates `rate` (units per microsecond) into the resource's counters.
  void Advance(Resource& r, double rate, double rate2, uint64_t now) {
    if (r.last_us != 0 && now > r.last_us) {
      r.acc += rate * static_cast<double>(now - r.last_us);
      r.acc2 += rate2 * static_cast<double>(now - r.last_us);
    }
    r.last_us = now;
  }

  void ReloadConfigLocked() {
    const char* path = std::getenv("GPUFLEET_FAKE_LEVELZERO_CONFIG");
    if (path == nullptr || *path == '\0') return;
    struct stat st {};
    if (stat(path, &st) != 0) return;
    int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (mtime == config_mtime_ns) return;
    config_mtime_ns = mtime;
    knobs = Knobs();
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find('=');
      if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
      auto trim = [](std::string s) {
        size_t b = s.find_first_not_of(" \t");
        size_t e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
      };
      std::string key = trim(line.substr(0, eq));
      std::string value = trim(line.substr(eq + 1));
      if (key == "init") {
        knobs.init_result = value == "permission"      ? ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS
                            : value == "uninitialized" ? ZE_RESULT_ERROR_UNINITIALIZED
                                                       : ZE_RESULT_SUCCESS;
        continue;
      }
      if (key.rfind("device.", 0) != 0 || key.size() < 10) continue;
      int d = key[7] - '0';
      if (d < 0 || d >= kDevices || key[8] != '.') continue;
      std::string field = key.substr(9);
      double v = std::atof(value.c_str());
      if (field == "lost") knobs.lost[d] = v != 0;
      if (field == "hang_ms") knobs.hang_ms[d] = static_cast<int>(v);
      if (field == "busy") knobs.busy[d] = v;
      if (field == "power_w") knobs.power_w[d] = v;
      if (field == "deny") {
        for (int k = 0; k < kKinds; ++k) {
          if (value == kKindNames[k]) {
            knobs.kind_result[d][k] = ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
          }
        }
      }
    }
  }
};

Fake& F() {
  // Destroyed when the library is unloaded (dlclose), after its last caller.
  static Fake fake;
  return fake;
}

// Common prologue of every device-scoped call: hang, then lost / not
// initialized / injected failure of `kind` (kKinds = no injection).
ze_result_t Gate(int device, Kind kind) {
  Fake& f = F();
  int hang_ms;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    f.ReloadConfigLocked();
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

Device* Dev(zes_device_handle_t h) { return reinterpret_cast<Device*>(h); }
template <typename H>
Resource* Res(H h) {
  return reinterpret_cast<Resource*>(h);
}

template <typename H>
ze_result_t Enumerate(zes_device_handle_t device, Kind kind, uint32_t* count, H* out) {
  if (device == nullptr || count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Device* d = Dev(device);
  if (ze_result_t r = Gate(d->index, kKinds); r != ZE_RESULT_SUCCESS) return r;
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

ze_result_t DoInit(bool sysman) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.ReloadConfigLocked();
  if (f.knobs.init_result != ZE_RESULT_SUCCESS) return static_cast<ze_result_t>(f.knobs.init_result);
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

}  // namespace

// ---- control -------------------------------------------------------------

extern "C" {

void fake_ze_reset(void) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.knobs = Knobs();
  f.offset_us = 0;
  f.config_mtime_ns = -1;
  for (Resource& r : f.storage) {
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
  if (device >= 0 && device < kDevices) F().knobs.lost[device] = lost != 0;
}
void fake_ze_set_hang_ms(int device, int ms) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (device >= 0 && device < kDevices) F().knobs.hang_ms[device] = ms;
}
void fake_ze_set_busy(int device, double ratio) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (device >= 0 && device < kDevices) F().knobs.busy[device] = ratio;
}
void fake_ze_set_power_watts(int device, double watts) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (device >= 0 && device < kDevices) F().knobs.power_w[device] = watts;
}
void fake_ze_set_kind_result(int device, const char* kind, int32_t result) {
  std::lock_guard<std::mutex> lock(F().mu);
  if (device < 0 || device >= kDevices || kind == nullptr) return;
  for (int k = 0; k < kKinds; ++k) {
    if (std::strcmp(kind, kKindNames[k]) == 0) F().knobs.kind_result[device][k] = result;
  }
}
void fake_ze_advance_us(uint64_t us) {
  std::lock_guard<std::mutex> lock(F().mu);
  F().offset_us += us;
}

}  // extern "C"

// ---- core ----------------------------------------------------------------

ze_result_t ZE_APICALL zeInit(ze_init_flags_t) {
  const char* env = std::getenv("ZES_ENABLE_SYSMAN");
  return DoInit(env != nullptr && std::strcmp(env, "1") == 0);
}

ze_result_t ZE_APICALL zeDriverGet(uint32_t* count, ze_driver_handle_t* drivers) {
  return DriverGet(count, drivers);
}

ze_result_t ZE_APICALL zeDeviceGet(ze_driver_handle_t driver, uint32_t* count,
                                   ze_device_handle_t* devices) {
  return DeviceGet(driver, count, devices);
}

ze_result_t ZE_APICALL zeDriverGetApiVersion(ze_driver_handle_t, ze_api_version_t* version) {
  if (version == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
#ifdef FAKE_ZE_PARTIAL
  *version = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 4));
#else
  *version = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 5));
#endif
  return ZE_RESULT_SUCCESS;
}

#ifndef FAKE_ZE_PARTIAL
ze_result_t ZE_APICALL zesInit(uint32_t) { return DoInit(true); }
ze_result_t ZE_APICALL zesDriverGet(uint32_t* count, zes_driver_handle_t* drivers) {
  return DriverGet(count, drivers);
}
ze_result_t ZE_APICALL zesDeviceGet(zes_driver_handle_t driver, uint32_t* count,
                                    zes_device_handle_t* devices) {
  return DeviceGet(driver, count, devices);
}
#endif

// ---- device --------------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceGetProperties(zes_device_handle_t device,
                                              zes_device_properties_t* p) {
  if (device == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Device* d = Dev(device);
  if (ze_result_t r = Gate(d->index, kKinds); r != ZE_RESULT_SUCCESS) return r;
  p->core.type = ZE_DEVICE_TYPE_GPU;
  p->core.vendorId = 0x8086;
  p->core.deviceId = d->device_id;
  p->core.coreClockRate = static_cast<uint32_t>(d->gpu_mhz);
  std::memset(p->core.uuid.id, 0, sizeof(p->core.uuid.id));
  // Intel drivers derive the UUID from PCI identity: vendor, device, BDF.
  p->core.uuid.id[0] = 0x86;
  p->core.uuid.id[1] = 0x80;
  p->core.uuid.id[2] = static_cast<uint8_t>(d->device_id & 0xff);
  p->core.uuid.id[3] = static_cast<uint8_t>(d->device_id >> 8);
  p->core.uuid.id[8] = static_cast<uint8_t>(d->pci.bus);
  p->core.uuid.id[9] = static_cast<uint8_t>(d->pci.device);
  p->core.uuid.id[10] = static_cast<uint8_t>(d->pci.function);
  std::snprintf(p->core.name, sizeof(p->core.name), "%s", d->name);
  p->numSubdevices = d->tiles;
  std::snprintf(p->serialNumber, sizeof(p->serialNumber), "unknown");
  std::snprintf(p->boardNumber, sizeof(p->boardNumber), "unknown");
  std::snprintf(p->brandName, sizeof(p->brandName), "Intel(R) Corporation");
  std::snprintf(p->modelName, sizeof(p->modelName), "%s", d->name);
  std::snprintf(p->vendorName, sizeof(p->vendorName), "Intel(R) Corporation");
  std::snprintf(p->driverVersion, sizeof(p->driverVersion), "1.3.29735");
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesDevicePciGetProperties(zes_device_handle_t device,
                                                 zes_pci_properties_t* p) {
  if (device == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Device* d = Dev(device);
  if (ze_result_t r = Gate(d->index, kKinds); r != ZE_RESULT_SUCCESS) return r;
  p->address = d->pci;
  p->haveBandwidthCounters = 1;
  p->havePacketCounters = 0;
  p->haveReplayCounters = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesDevicePciGetStats(zes_device_handle_t device, zes_pci_stats_t* s) {
  if (device == nullptr || s == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Device* d = Dev(device);
  if (ze_result_t r = Gate(d->index, kPci); r != ZE_RESULT_SUCCESS) return r;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  // PCI counters live on the device itself; reuse its first power resource's
  // clock bookkeeping through a dedicated static per device.
  static Resource pci[kDevices] = {{kPci, 0, false, 0, 0, 1.0}, {kPci, 1, false, 0, 0, 1.0}};
  uint64_t now = f.NowUs();
  f.Advance(pci[d->index], 2000.0, 1000.0, now);  // 2 GB/s in, 1 GB/s out
  s->timestamp = now;
  s->rxCounter = static_cast<uint64_t>(pci[d->index].acc) + 1000000000ull;
  s->txCounter = static_cast<uint64_t>(pci[d->index].acc2) + 500000000ull;
  s->replayCounter = 3;
  s->packetCounter = 0;
  return ZE_RESULT_SUCCESS;
}

// ---- engines -------------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceEnumEngineGroups(zes_device_handle_t d, uint32_t* n,
                                                 zes_engine_handle_t* h) {
  return Enumerate(d, kEngine, n, h);
}

ze_result_t ZE_APICALL zesEngineGetProperties(zes_engine_handle_t h, zes_engine_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  p->type = static_cast<zes_engine_group_t>(r->type);
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesEngineGetActivity(zes_engine_handle_t h, zes_engine_stats_t* s) {
  if (h == nullptr || s == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kEngine); g != ZE_RESULT_SUCCESS) return g;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.NowUs();
  f.Advance(*r, f.knobs.busy[r->device] * r->share, 0, now);
  s->activeTime = static_cast<uint64_t>(r->acc);
  s->timestamp = now;
  return ZE_RESULT_SUCCESS;
}

// ---- power ---------------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceEnumPowerDomains(zes_device_handle_t d, uint32_t* n,
                                                 zes_pwr_handle_t* h) {
  return Enumerate(d, kPower, n, h);
}

ze_result_t ZE_APICALL zesPowerGetProperties(zes_pwr_handle_t h, zes_power_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  p->canControl = 0;
  p->isEnergyThresholdSupported = 0;
  p->defaultLimit = F().devices[r->device].limit_mw;
  p->minLimit = -1;
  p->maxLimit = -1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesPowerGetEnergyCounter(zes_pwr_handle_t h,
                                                zes_power_energy_counter_t* c) {
  if (h == nullptr || c == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kPower); g != ZE_RESULT_SUCCESS) return g;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.NowUs();
  f.Advance(*r, f.knobs.power_w[r->device] * r->share, 0, now);  // W == uJ/us
  c->energy = 123456789000ull + static_cast<uint64_t>(r->acc);
  c->timestamp = now;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesPowerGetLimits(zes_pwr_handle_t h, zes_power_sustained_limit_t* sus,
                                         zes_power_burst_limit_t* burst,
                                         zes_power_peak_limit_t* peak) {
  if (h == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kPower); g != ZE_RESULT_SUCCESS) return g;
  if (sus != nullptr) {
    // Only the card domain carries the enforced limit.
    sus->enabled = r->on_sub ? 0 : 1;
    sus->power = r->on_sub ? 0 : F().devices[r->device].limit_mw;
    sus->interval = 28;
  }
  if (burst != nullptr) std::memset(burst, 0, sizeof(*burst));
  if (peak != nullptr) std::memset(peak, 0, sizeof(*peak));
  return ZE_RESULT_SUCCESS;
}

// ---- memory --------------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceEnumMemoryModules(zes_device_handle_t d, uint32_t* n,
                                                  zes_mem_handle_t* h) {
  return Enumerate(d, kMemory, n, h);
}

ze_result_t ZE_APICALL zesMemoryGetProperties(zes_mem_handle_t h, zes_mem_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  const Device& d = F().devices[r->device];
  p->type = r->device == 0 ? ZES_MEM_TYPE_HBM : ZES_MEM_TYPE_GDDR6;
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  p->location = ZES_MEM_LOC_DEVICE;
  p->physicalSize = d.memory_per_module;
  p->busWidth = -1;
  p->numChannels = -1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesMemoryGetState(zes_mem_handle_t h, zes_mem_state_t* s) {
  if (h == nullptr || s == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kMemory); g != ZE_RESULT_SUCCESS) return g;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t size = f.devices[r->device].memory_per_module;
  double used = 0.1 + 0.6 * f.knobs.busy[r->device];
  s->health = ZES_MEM_HEALTH_OK;
  s->size = size;
  s->free = size - static_cast<uint64_t>(static_cast<double>(size) * used);
  return ZE_RESULT_SUCCESS;
}

#ifndef FAKE_ZE_PARTIAL
ze_result_t ZE_APICALL zesMemoryGetBandwidth(zes_mem_handle_t h, zes_mem_bandwidth_t* bw) {
  if (h == nullptr || bw == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kMemory); g != ZE_RESULT_SUCCESS) return g;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  double max = static_cast<double>(f.devices[r->device].bandwidth_per_module);
  double share = 0.1 + 0.5 * f.knobs.busy[r->device];
  uint64_t now = f.NowUs();
  f.Advance(*r, max / 1e6 * share * 0.6, max / 1e6 * share * 0.4, now);
  bw->readCounter = static_cast<uint64_t>(r->acc);
  bw->writeCounter = static_cast<uint64_t>(r->acc2);
  bw->maxBandwidth = static_cast<uint64_t>(max);
  bw->timestamp = now;
  return ZE_RESULT_SUCCESS;
}
#endif

// ---- temperature ---------------------------------------------------------

#ifndef FAKE_ZE_PARTIAL
ze_result_t ZE_APICALL zesDeviceEnumTemperatureSensors(zes_device_handle_t d, uint32_t* n,
                                                       zes_temp_handle_t* h) {
  return Enumerate(d, kTemp, n, h);
}

ze_result_t ZE_APICALL zesTemperatureGetProperties(zes_temp_handle_t h,
                                                   zes_temp_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  p->type = static_cast<zes_temp_sensors_t>(r->type);
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  p->maxTemperature = 105;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesTemperatureGetState(zes_temp_handle_t h, double* celsius) {
  if (h == nullptr || celsius == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kTemp); g != ZE_RESULT_SUCCESS) return g;
  std::lock_guard<std::mutex> lock(F().mu);
  double busy = F().knobs.busy[r->device];
  double base = r->type == ZES_TEMP_SENSORS_MEMORY ? 45.0 : 50.0;
  *celsius = base + 25.0 * busy + 2.0 * r->sub;  // tile 1 runs a little hotter
  return ZE_RESULT_SUCCESS;
}
#endif

// ---- frequency -----------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceEnumFrequencyDomains(zes_device_handle_t d, uint32_t* n,
                                                     zes_freq_handle_t* h) {
  return Enumerate(d, kFreq, n, h);
}

ze_result_t ZE_APICALL zesFrequencyGetProperties(zes_freq_handle_t h, zes_freq_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  const Device& d = F().devices[r->device];
  p->type = static_cast<zes_freq_domain_t>(r->type);
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  p->canControl = 0;
  p->isThrottleEventSupported = 0;
  p->min = r->type == ZES_FREQ_DOMAIN_GPU ? 300 : d.memory_mhz;
  p->max = r->type == ZES_FREQ_DOMAIN_GPU ? d.gpu_mhz : d.memory_mhz;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesFrequencyGetState(zes_freq_handle_t h, zes_freq_state_t* s) {
  if (h == nullptr || s == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kFreq); g != ZE_RESULT_SUCCESS) return g;
  const Device& d = F().devices[r->device];
  double mhz = r->type == ZES_FREQ_DOMAIN_GPU ? d.gpu_mhz : d.memory_mhz;
  s->currentVoltage = -1;
  s->request = mhz;
  s->tdp = mhz;
  s->efficient = -1;
  s->actual = mhz;
  s->throttleReasons = 0;
  return ZE_RESULT_SUCCESS;
}

// ---- RAS -----------------------------------------------------------------

ze_result_t ZE_APICALL zesDeviceEnumRasErrorSets(zes_device_handle_t d, uint32_t* n,
                                                 zes_ras_handle_t* h) {
  return Enumerate(d, kRas, n, h);
}

ze_result_t ZE_APICALL zesRasGetProperties(zes_ras_handle_t h, zes_ras_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  p->type = static_cast<zes_ras_error_type_t>(r->type);
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesRasGetState(zes_ras_handle_t h, ze_bool_t, zes_ras_state_t* s) {
  if (h == nullptr || s == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kRas); g != ZE_RESULT_SUCCESS) return g;
  std::memset(s->category, 0, sizeof(s->category));
  if (r->type == ZES_RAS_ERROR_TYPE_CORRECTABLE) s->category[ZES_RAS_ERROR_CAT_CACHE_ERRORS] = 2;
  if (r->type == ZES_RAS_ERROR_TYPE_UNCORRECTABLE) s->category[ZES_RAS_ERROR_CAT_RESET] = 1;
  return ZE_RESULT_SUCCESS;
}

// ---- fabric --------------------------------------------------------------

#ifndef FAKE_ZE_PARTIAL
ze_result_t ZE_APICALL zesDeviceEnumFabricPorts(zes_device_handle_t d, uint32_t* n,
                                                zes_fabric_port_handle_t* h) {
  return Enumerate(d, kFabric, n, h);
}

ze_result_t ZE_APICALL zesFabricPortGetProperties(zes_fabric_port_handle_t h,
                                                  zes_fabric_port_properties_t* p) {
  if (h == nullptr || p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kKinds); g != ZE_RESULT_SUCCESS) return g;
  std::snprintf(p->model, sizeof(p->model), "XeLink");
  p->onSubdevice = r->on_sub;
  p->subdeviceId = r->sub;
  p->portId.fabricId = 0x10000 + static_cast<uint32_t>(r->device);
  p->portId.attachId = r->sub;
  p->portId.portNumber = static_cast<uint8_t>(r->port);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesFabricPortGetThroughput(zes_fabric_port_handle_t h,
                                                  zes_fabric_port_throughput_t* t) {
  if (h == nullptr || t == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Resource* r = Res(h);
  if (ze_result_t g = Gate(r->device, kFabric); g != ZE_RESULT_SUCCESS) return g;
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.NowUs();
  f.Advance(*r, 5000.0, 4000.0, now);  // 5 GB/s in, 4 GB/s out
  t->timestamp = now;
  t->rxCounter = static_cast<uint64_t>(r->acc);
  t->txCounter = static_cast<uint64_t>(r->acc2);
  return ZE_RESULT_SUCCESS;
}
#endif
