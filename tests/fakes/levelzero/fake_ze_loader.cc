// Fake libze_loader.so.1: exports the Level Zero Sysman entry points gpufleet
// calls, with the ABI of the Debian header, backed by two scripted Intel GPUs
// whose counters advance over time (fake_ze_model.h). See fake_ze_control.h
// for the script and the failure injection. Built twice: complete, and with
// FAKE_ZE_PARTIAL (no zesInit/zesDriverGet/zesDeviceGet, so the collector
// must take the zeInit path; no temperature, memory bandwidth or fabric
// entry points).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "fake_ze_model.h"

extern "C" {
// API 1.5 entry points absent from the 1.4 header.
ZE_APIEXPORT ze_result_t ZE_APICALL zesInit(uint32_t flags);
ZE_APIEXPORT ze_result_t ZE_APICALL zesDriverGet(uint32_t* count, zes_driver_handle_t* drivers);
ZE_APIEXPORT ze_result_t ZE_APICALL zesDeviceGet(zes_driver_handle_t driver, uint32_t* count,
                                                 zes_device_handle_t* devices);
}

using namespace fake_ze;  // NOLINT(build/namespaces): the fake of this very ABI

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
  FAKE_ZE_ENTER(Device, d, device, kKinds, p);
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
  FAKE_ZE_ENTER(Device, d, device, kKinds, p);
  p->address = d->pci;
  p->haveBandwidthCounters = 1;
  p->havePacketCounters = 0;
  p->haveReplayCounters = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesDevicePciGetStats(zes_device_handle_t device, zes_pci_stats_t* s) {
  FAKE_ZE_ENTER(Device, d, device, kPci, s);
  std::lock_guard<std::mutex> lock(F().mu);
  Resource& pci = d->pci_counters;
  s->timestamp = F().Tick(pci, 2000.0, 1000.0);  // 2 GB/s in, 1 GB/s out
  s->rxCounter = static_cast<uint64_t>(pci.acc) + 1000000000ull;
  s->txCounter = static_cast<uint64_t>(pci.acc2) + 500000000ull;
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
  return GetTypedProperties<zes_engine_group_t>(h, p);
}

ze_result_t ZE_APICALL zesEngineGetActivity(zes_engine_handle_t h, zes_engine_stats_t* s) {
  FAKE_ZE_ENTER(Resource, r, h, kEngine, s);
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.Tick(*r, f.knobs.busy[r->device] * r->share, 0);
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
  FAKE_ZE_ENTER(Resource, r, h, kKinds, p);
  SetLocation(p, *r);
  p->canControl = 0;
  p->isEnergyThresholdSupported = 0;
  p->defaultLimit = F().devices[r->device].limit_mw;
  p->minLimit = -1;
  p->maxLimit = -1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesPowerGetEnergyCounter(zes_pwr_handle_t h,
                                                zes_power_energy_counter_t* c) {
  FAKE_ZE_ENTER(Resource, r, h, kPower, c);
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.Tick(*r, f.knobs.power_w[r->device] * r->share, 0);  // W == uJ/us
  c->energy = 123456789000ull + static_cast<uint64_t>(r->acc);
  c->timestamp = now;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesPowerGetLimits(zes_pwr_handle_t h, zes_power_sustained_limit_t* sus,
                                         zes_power_burst_limit_t* burst,
                                         zes_power_peak_limit_t* peak) {
  FAKE_ZE_ENTER(Resource, r, h, kPower);
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
  FAKE_ZE_ENTER(Resource, r, h, kKinds, p);
  const Device& d = F().devices[r->device];
  p->type = r->device == 0 ? ZES_MEM_TYPE_HBM : ZES_MEM_TYPE_GDDR6;
  SetLocation(p, *r);
  p->location = ZES_MEM_LOC_DEVICE;
  p->physicalSize = d.memory_per_module;
  p->busWidth = -1;
  p->numChannels = -1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesMemoryGetState(zes_mem_handle_t h, zes_mem_state_t* s) {
  FAKE_ZE_ENTER(Resource, r, h, kMemory, s);
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
  FAKE_ZE_ENTER(Resource, r, h, kMemory, bw);
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  double max = static_cast<double>(f.devices[r->device].bandwidth_per_module);
  double share = 0.1 + 0.5 * f.knobs.busy[r->device];
  uint64_t now = f.Tick(*r, max / 1e6 * share * 0.6, max / 1e6 * share * 0.4);
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
  ze_result_t rc = GetTypedProperties<zes_temp_sensors_t>(h, p);
  if (rc == ZE_RESULT_SUCCESS) p->maxTemperature = 105;
  return rc;
}

ze_result_t ZE_APICALL zesTemperatureGetState(zes_temp_handle_t h, double* celsius) {
  FAKE_ZE_ENTER(Resource, r, h, kTemp, celsius);
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
  if (ze_result_t rc = GetTypedProperties<zes_freq_domain_t>(h, p); rc != ZE_RESULT_SUCCESS) {
    return rc;
  }
  const Resource* r = reinterpret_cast<const Resource*>(h);
  const Device& d = F().devices[r->device];
  p->canControl = 0;
  p->isThrottleEventSupported = 0;
  p->min = r->type == ZES_FREQ_DOMAIN_GPU ? 300 : d.memory_mhz;
  p->max = r->type == ZES_FREQ_DOMAIN_GPU ? d.gpu_mhz : d.memory_mhz;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesFrequencyGetState(zes_freq_handle_t h, zes_freq_state_t* s) {
  FAKE_ZE_ENTER(Resource, r, h, kFreq, s);
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
  return GetTypedProperties<zes_ras_error_type_t>(h, p);
}

ze_result_t ZE_APICALL zesRasGetState(zes_ras_handle_t h, ze_bool_t, zes_ras_state_t* s) {
  FAKE_ZE_ENTER(Resource, r, h, kRas, s);
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
  FAKE_ZE_ENTER(Resource, r, h, kKinds, p);
  std::snprintf(p->model, sizeof(p->model), "XeLink");
  SetLocation(p, *r);
  p->portId.fabricId = 0x10000 + static_cast<uint32_t>(r->device);
  p->portId.attachId = r->sub;
  p->portId.portNumber = static_cast<uint8_t>(r->port);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zesFabricPortGetThroughput(zes_fabric_port_handle_t h,
                                                  zes_fabric_port_throughput_t* t) {
  FAKE_ZE_ENTER(Resource, r, h, kFabric, t);
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t now = f.Tick(*r, 5000.0, 4000.0);  // 5 GB/s in, 4 GB/s out
  t->timestamp = now;
  t->rxCounter = static_cast<uint64_t>(r->acc);
  t->txCounter = static_cast<uint64_t>(r->acc2);
  return ZE_RESULT_SUCCESS;
}
#endif
