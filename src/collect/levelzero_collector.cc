#include "collect/levelzero_collector.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "collect/levelzero_api.h"
#include "collect/levelzero_view.h"

namespace gpufleet {
namespace {

using levelzero::Api;
using levelzero::ResultName;
using levelzero::View;

constexpr uint32_t kIntelVendorId = 0x8086;

std::string FormatUuid(const ze_device_uuid_t& uuid) {
  std::string out;
  char buf[3];
  for (int i = 0; i < ZE_MAX_DEVICE_UUID_SIZE; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(buf, sizeof(buf), "%02x", uuid.id[i]);
    out += buf;
  }
  return out;
}

std::string FormatPci(const zes_pci_address_t& a) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", a.domain, a.bus, a.device, a.function);
  return buf;
}

// Architecture names of the data-center parts gpufleet knows (PCI device id).
std::string ArchFromDeviceId(uint32_t id) {
  if ((id & 0xfff0) == 0x0bd0) return "xe-hpc";  // Data Center GPU Max (Ponte Vecchio)
  if ((id & 0xfff0) == 0x56c0 || (id & 0xff00) == 0x5600) return "xe-hpg";  // Flex / Arc (DG2)
  return "";
}

// Which entry a handle belongs to: the whole device (nullopt) or a tile.
std::optional<uint32_t> Tile(ze_bool_t on_subdevice, uint32_t subdevice_id) {
  if (!on_subdevice) return std::nullopt;
  return subdevice_id;
}

// Handles of one kind, with the tile each belongs to.
template <typename T>
struct Tagged {
  std::vector<std::pair<std::optional<uint32_t>, T>> items;
  void Add(std::optional<uint32_t> tile, T item) { items.emplace_back(tile, std::move(item)); }
  // Whole device: its own handles, else every tile's (aggregated on read).
  std::vector<T> ForDevice() const {
    std::vector<T> out;
    for (const auto& [tile, item] : items) {
      if (!tile) out.push_back(item);
    }
    if (!out.empty()) return out;
    for (const auto& [tile, item] : items) out.push_back(item);
    return out;
  }
  std::vector<T> ForTile(uint32_t t) const {
    std::vector<T> out;
    for (const auto& [tile, item] : items) {
      if (tile && *tile == t) out.push_back(item);
    }
    return out;
  }
};

// Enumerates handles of one kind with the two-call Sysman pattern.
template <typename Handle, typename EnumFn>
ze_result_t Enumerate(EnumFn* fn, zes_device_handle_t device, std::vector<Handle>& out) {
  uint32_t count = 0;
  ze_result_t r = fn(device, &count, nullptr);
  if (r != ZE_RESULT_SUCCESS) return r;
  out.resize(count);
  if (count == 0) return r;
  r = fn(device, &count, out.data());
  out.resize(r == ZE_RESULT_SUCCESS ? count : 0);
  return r;
}

struct Entry {
  DeviceInfo info;
  View view;
  levelzero::CounterHistory history;  // touched only by Collect() of this entry
};

class LevelZeroCollector final : public Collector {
 public:
  explicit LevelZeroCollector(LevelZeroCollectorOptions options) : options_(std::move(options)) {}

  std::string_view source() const override { return "levelzero"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    entries_.clear();
    if (api_ == nullptr) {
      auto api = Api::Load(options_.library_names);
      if (!api.ok()) return api.status().WithContext("levelzero");
      api_ = std::move(api).value();
    }
    RETURN_IF_ERROR(Init());
    ASSIGN_OR_RETURN(std::vector<zes_device_handle_t> devices, Devices());
    for (zes_device_handle_t d : devices) AddDevice(d);
    if (entries_.empty()) {
      return NotFoundError("levelzero: " + api_->library->path() +
                           " loaded but Sysman reports no Intel GPU");
    }
    std::vector<DeviceInfo> out;
    out.reserve(entries_.size());
    for (const Entry& e : entries_) out.push_back(e.info);
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    if (index >= entries_.size()) {
      return OutOfRangeError("levelzero: device index " + std::to_string(index) + " of " +
                             std::to_string(entries_.size()));
    }
    Entry& e = entries_[index];
    Status s = levelzero::ReadView(*api_, e.view, e.history, out);
    // Counters may restart after the device comes back; start rates afresh.
    if (!s.ok()) e.history.clear();
    return s;
  }

 private:
  Status Init() {
    ze_result_t r;
    const char* fn;
    if (api_->zesInit != nullptr) {
      fn = "zesInit";
      r = api_->zesInit(0);
    } else {
      // Loaders before API 1.5: Sysman rides on zeInit when this is set
      // before the first zeInit of the process.
      setenv("ZES_ENABLE_SYSMAN", "1", 1);
      fn = "zeInit";
      r = api_->zeInit(0);
    }
    if (r == ZE_RESULT_SUCCESS) return OkStatus();
    std::string what = "levelzero: " + std::string(fn) + " failed: " + ResultName(r);
    if (r == ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS) {
      return PermissionDeniedError(what +
                                   "; Level Zero Sysman usually needs root (or read access to "
                                   "the DRM render and card nodes and their sysfs files)");
    }
    if (r == ZE_RESULT_ERROR_UNINITIALIZED || r == ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE ||
        r == ZE_RESULT_ERROR_UNSUPPORTED_VERSION) {
      return NotFoundError(what + " (no Level Zero GPU driver on this node)");
    }
    return FailedPreconditionError(what);
  }

  StatusOr<std::vector<zes_device_handle_t>> Devices() {
    bool zes = api_->zesDriverGet != nullptr;
    std::vector<zes_driver_handle_t> drivers;
    uint32_t count = 0;
    auto driver_get = [&](uint32_t* n, zes_driver_handle_t* d) {
      return zes ? api_->zesDriverGet(n, d) : api_->zeDriverGet(n, d);
    };
    ze_result_t r = driver_get(&count, nullptr);
    if (r == ZE_RESULT_SUCCESS && count > 0) {
      drivers.resize(count);
      r = driver_get(&count, drivers.data());
      drivers.resize(r == ZE_RESULT_SUCCESS ? count : 0);
    }
    if (r != ZE_RESULT_SUCCESS) {
      return FailedPreconditionError(std::string("levelzero: ") +
                                     (zes ? "zesDriverGet" : "zeDriverGet") +
                                     " failed: " + ResultName(r));
    }
    std::vector<zes_device_handle_t> devices;
    for (zes_driver_handle_t driver : drivers) {
      runtime_version_.clear();
      if (api_->zeDriverGetApiVersion != nullptr) {
        ze_api_version_t v{};
        if (api_->zeDriverGetApiVersion(driver, &v) == ZE_RESULT_SUCCESS) {
          runtime_version_ = std::to_string(ZE_MAJOR_VERSION(v)) + "." +
                             std::to_string(ZE_MINOR_VERSION(v));
        }
      }
      std::vector<zes_device_handle_t> found;
      auto device_get = [&](zes_driver_handle_t drv, uint32_t* n, zes_device_handle_t* d) {
        return zes ? api_->zesDeviceGet(drv, n, d) : api_->zeDeviceGet(drv, n, d);
      };
      uint32_t n = 0;
      if (device_get(driver, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) continue;
      found.resize(n);
      if (device_get(driver, &n, found.data()) != ZE_RESULT_SUCCESS) continue;
      found.resize(n);
      devices.insert(devices.end(), found.begin(), found.end());
    }
    return devices;
  }

  void AddDevice(zes_device_handle_t device) {
    zes_device_properties_t props{};
    props.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    props.core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    // A device that fails here (lost, not permitted) cannot be identified;
    // it is left out and a later Discover() picks it up again.
    if (api_->zesDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS) return;
    if (props.core.type != ZE_DEVICE_TYPE_GPU || props.core.vendorId != kIntelVendorId) return;

    DeviceInfo info;
    info.vendor = Vendor::kIntel;
    info.model = props.core.name;
    info.uuid = FormatUuid(props.core.uuid);
    info.driver_version = props.driverVersion;
    info.runtime_version = runtime_version_;
    info.arch = ArchFromDeviceId(props.core.deviceId);

    View base;
    base.device = device;
    if (api_->zesDevicePciGetProperties != nullptr) {
      zes_pci_properties_t pci{};
      pci.stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES;
      if (api_->zesDevicePciGetProperties(device, &pci) == ZE_RESULT_SUCCESS) {
        info.pci_bus_id = FormatPci(pci.address);
        base.pci_bandwidth = pci.haveBandwidthCounters;
        base.pci_replay = pci.haveReplayCounters;
      }
    }

    Tagged<levelzero::EngineHandle> engines;
    Tagged<zes_pwr_handle_t> power;
    Tagged<zes_mem_handle_t> memory;
    Tagged<uint64_t> memory_size;
    Tagged<levelzero::TempHandle> temps;
    Tagged<levelzero::FreqHandle> freqs;
    Tagged<levelzero::RasHandle> ras;
    Tagged<levelzero::PortHandle> ports;
    std::vector<std::string> enum_errors;
    // Enumerates one kind; `props` is called per handle and returns false to skip it.
    auto each = [&](auto* enum_fn, auto* props_fn, auto handle_tag, auto&& add) {
      using Handle = decltype(handle_tag);
      if (enum_fn == nullptr || props_fn == nullptr) {
        enum_errors.push_back("symbol_missing");
        return;
      }
      std::vector<Handle> handles;
      ze_result_t r = Enumerate<Handle>(enum_fn, device, handles);
      if (r != ZE_RESULT_SUCCESS) {
        enum_errors.push_back(levelzero::FieldErrorReason(r));
        return;
      }
      for (Handle h : handles) add(h);
    };
    each(api_->zesDeviceEnumEngineGroups, api_->zesEngineGetProperties, zes_engine_handle_t{},
         [&](zes_engine_handle_t h) {
           zes_engine_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES;
           if (api_->zesEngineGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           engines.Add(Tile(p.onSubdevice, p.subdeviceId), {h, p.type});
         });
    each(api_->zesDeviceEnumPowerDomains, api_->zesPowerGetProperties, zes_pwr_handle_t{},
         [&](zes_pwr_handle_t h) {
           zes_power_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES;
           if (api_->zesPowerGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           power.Add(Tile(p.onSubdevice, p.subdeviceId), h);
         });
    each(api_->zesDeviceEnumMemoryModules, api_->zesMemoryGetProperties, zes_mem_handle_t{},
         [&](zes_mem_handle_t h) {
           zes_mem_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
           if (api_->zesMemoryGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           if (p.location != ZES_MEM_LOC_DEVICE) return;  // system memory is not the GPU's
           memory.Add(Tile(p.onSubdevice, p.subdeviceId), h);
           memory_size.Add(Tile(p.onSubdevice, p.subdeviceId), p.physicalSize);
         });
    each(api_->zesDeviceEnumTemperatureSensors, api_->zesTemperatureGetProperties,
         zes_temp_handle_t{}, [&](zes_temp_handle_t h) {
           zes_temp_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_TEMP_PROPERTIES;
           if (api_->zesTemperatureGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           temps.Add(Tile(p.onSubdevice, p.subdeviceId), {h, p.type});
         });
    each(api_->zesDeviceEnumFrequencyDomains, api_->zesFrequencyGetProperties,
         zes_freq_handle_t{}, [&](zes_freq_handle_t h) {
           zes_freq_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES;
           if (api_->zesFrequencyGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           freqs.Add(Tile(p.onSubdevice, p.subdeviceId), {h, p.type});
         });
    each(api_->zesDeviceEnumRasErrorSets, api_->zesRasGetProperties, zes_ras_handle_t{},
         [&](zes_ras_handle_t h) {
           zes_ras_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_RAS_PROPERTIES;
           if (api_->zesRasGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           ras.Add(Tile(p.onSubdevice, p.subdeviceId), {h, p.type});
         });
    each(api_->zesDeviceEnumFabricPorts, api_->zesFabricPortGetProperties,
         zes_fabric_port_handle_t{}, [&](zes_fabric_port_handle_t h) {
           zes_fabric_port_properties_t p{};
           p.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES;
           if (api_->zesFabricPortGetProperties(h, &p) != ZE_RESULT_SUCCESS) return;
           std::string link = std::to_string(p.portId.fabricId) + "." +
                              std::to_string(p.portId.attachId) + "." +
                              std::to_string(p.portId.portNumber);
           ports.Add(Tile(p.onSubdevice, p.subdeviceId), {h, std::move(link)});
         });
    base.enum_errors = enum_errors;

    auto sum = [](const std::vector<uint64_t>& v) {
      uint64_t s = 0;
      for (uint64_t x : v) s += x;
      return s;
    };

    Entry whole;
    whole.info = info;
    whole.info.memory_total_bytes = sum(memory_size.ForDevice());
    whole.view = base;
    whole.view.engines = engines.ForDevice();
    whole.view.power = power.ForDevice();
    whole.view.memory = memory.ForDevice();
    whole.view.temperatures = temps.ForDevice();
    whole.view.frequencies = freqs.ForDevice();
    whole.view.ras = ras.ForDevice();
    // Ports are distinct links, never aggregated: the device reports all.
    for (const auto& [tile, port] : ports.items) whole.view.ports.push_back(port);
    entries_.push_back(std::move(whole));

    for (uint32_t t = 0; t < props.numSubdevices; ++t) {
      Entry tile;
      tile.info = info;
      tile.info.partition = PartitionInfo{"intel_tile", std::to_string(t), ""};
      tile.info.memory_total_bytes = sum(memory_size.ForTile(t));
      tile.view.device = device;
      tile.view.enum_errors = enum_errors;
      tile.view.engines = engines.ForTile(t);
      tile.view.power = power.ForTile(t);
      tile.view.memory = memory.ForTile(t);
      tile.view.temperatures = temps.ForTile(t);
      tile.view.frequencies = freqs.ForTile(t);
      tile.view.ras = ras.ForTile(t);
      tile.view.ports = ports.ForTile(t);
      entries_.push_back(std::move(tile));
    }
  }

  const LevelZeroCollectorOptions options_;
  std::unique_ptr<Api> api_;
  std::string runtime_version_;
  std::vector<Entry> entries_;  // rebuilt by Discover()
};

}  // namespace

std::unique_ptr<Collector> NewLevelZeroCollector(LevelZeroCollectorOptions options) {
  return std::make_unique<LevelZeroCollector>(std::move(options));
}

}  // namespace gpufleet
