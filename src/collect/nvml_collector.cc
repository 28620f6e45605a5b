#include "collect/nvml_collector.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "collect/nvml_api.h"
#include "collect/nvml_device.h"

namespace gpufleet {

namespace {

using nvml::NVML_SUCCESS;
using nvml::nvmlDevice_t;
using nvml::nvmlReturn_t;

// Driver-wide software versions, the same for every device.
struct NvmlSoftware {
  std::string driver_version;   // "550.54.15"
  std::string runtime_version;  // CUDA driver API version, "12.4"
};

NvmlSoftware ReadSoftware(const NvmlApi& api) {
  NvmlSoftware sw;
  if (api.SystemGetDriverVersion != nullptr) {
    char buf[nvml::kNvmlDriverVersionBufferSize] = {};
    if (api.SystemGetDriverVersion(buf, sizeof(buf)) == NVML_SUCCESS) sw.driver_version = buf;
  }
  int cuda = 0;
  if (api.SystemGetCudaDriverVersion != nullptr &&
      api.SystemGetCudaDriverVersion(&cuda) == NVML_SUCCESS && cuda > 0) {
    // Encoded as 1000 * major + 10 * minor (12040 = 12.4).
    sw.runtime_version = std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10);
  }
  return sw;
}

// Total memory of a GPU or MIG device handle; 0 when unknown.
uint64_t MemoryTotalBytes(const NvmlApi& api, nvmlDevice_t h) {
  if (api.DeviceGetMemoryInfoV2 != nullptr) {
    nvml::nvmlMemory_v2_t m{};
    m.version = nvml::kNvmlMemoryV2Version;
    if (api.DeviceGetMemoryInfoV2(h, &m) == NVML_SUCCESS) return m.total;
  }
  if (api.DeviceGetMemoryInfo != nullptr) {
    nvml::nvmlMemory_t m{};
    if (api.DeviceGetMemoryInfo(h, &m) == NVML_SUCCESS) return m.total;
  }
  return 0;
}

// Identity of a whole GPU. Fails when the name or UUID cannot be read (a
// device without identity cannot be labelled).
StatusOr<DeviceInfo> DescribeGpu(const NvmlApi& api, nvmlDevice_t h, const NvmlSoftware& sw) {
  DeviceInfo info;
  info.vendor = Vendor::kNvidia;
  char name[nvml::kNvmlDeviceNameBufferSize] = {};
  nvmlReturn_t rc = api.DeviceGetName(h, name, sizeof(name));
  if (rc != NVML_SUCCESS) return NvmlStatus(api, rc, "nvmlDeviceGetName");
  info.model = name;
  char uuid[nvml::kNvmlDeviceUuidBufferSize] = {};
  rc = api.DeviceGetUUID(h, uuid, sizeof(uuid));
  if (rc != NVML_SUCCESS) return NvmlStatus(api, rc, "nvmlDeviceGetUUID");
  info.uuid = uuid;
  if (api.DeviceGetPciInfo != nullptr) {
    nvml::nvmlPciInfo_t pci{};
    if (api.DeviceGetPciInfo(h, &pci) == NVML_SUCCESS) {
      pci.busId[sizeof(pci.busId) - 1] = '\0';
      info.pci_bus_id = CanonicalPciBusId(pci.busId);
    }
  }
  int major = 0, minor = 0;
  if (api.DeviceGetCudaComputeCapability != nullptr &&
      api.DeviceGetCudaComputeCapability(h, &major, &minor) == NVML_SUCCESS) {
    info.arch = std::to_string(major) + "." + std::to_string(minor);
  }
  info.memory_total_bytes = MemoryTotalBytes(api, h);
  info.driver_version = sw.driver_version;
  info.runtime_version = sw.runtime_version;
  return info;
}

// "3g.40gb": compute slices and memory rounded up to whole GB, which is how
// NVIDIA names the profiles (a 1g.10gb instance of an H100 has ~9.75 GiB).
std::string MigProfileName(const nvml::nvmlDeviceAttributes_t& a) {
  if (a.gpuInstanceSliceCount == 0 || a.memorySizeMB == 0) return "";
  auto gb = static_cast<unsigned long long>(std::ceil(static_cast<double>(a.memorySizeMB) / 1024));
  return std::to_string(a.gpuInstanceSliceCount) + "g." + std::to_string(gb) + "gb";
}

class NvmlCollector final : public Collector {
 public:
  explicit NvmlCollector(NvmlCollectorOptions options) : options_(std::move(options)) {}
  ~NvmlCollector() override {
    std::lock_guard<std::mutex> lock(mu_);
    devices_.clear();  // their destructors free NVML objects: before shutdown
    if (api_ != nullptr && initialized_) api_->Shutdown();
  }

  std::string_view source() const override { return "nvml"; }
  StatusOr<std::vector<DeviceInfo>> Discover() override;
  Status Collect(size_t index, DeviceReadings& out) override;

 private:
  // nvmlInit_v2 (after a shutdown when re-initializing). REQUIRES: mu_.
  Status InitLocked();
  // Appends the MIG GPU instances of `gpu` (a GPU in MIG mode).
  void AddMigInstances(const std::shared_ptr<NvmlDevice>& gpu, const DeviceInfo& gpu_info,
                       std::vector<DeviceInfo>& infos,
                       std::vector<std::shared_ptr<NvmlDevice>>& devices);
  Status CollectGpu(NvmlDevice& d, NvmlCallScope& s) const;
  Status CollectMig(NvmlDevice& d, NvmlCallScope& s) const;

  const NvmlCollectorOptions options_;
  std::mutex mu_;
  // Loaded by the first successful Discover() and never replaced, so device
  // states may keep a pointer to it.
  std::unique_ptr<NvmlApi> api_;
  bool initialized_ = false;               // guarded by mu_
  std::atomic<bool> needs_reinit_{false};  // set by Collect(), cleared by Discover()
  // Declared after api_: destroyed first, while the library is still loaded.
  std::vector<std::shared_ptr<NvmlDevice>> devices_;                    // guarded by mu_
  std::map<std::string, std::shared_ptr<NvmlXidCounts>> xids_by_uuid_;  // guarded by mu_
};

Status NvmlCollector::InitLocked() {
  const NvmlApi& api = *api_;
  if (initialized_) {
    // The driver dropped NVML's state; release our reference before taking a new one.
    api.Shutdown();
    initialized_ = false;
  }
  nvmlReturn_t rc = api.Init();
  switch (rc) {
    case NVML_SUCCESS:
      initialized_ = true;
      needs_reinit_ = false;
      return OkStatus();
    case nvml::NVML_ERROR_DRIVER_NOT_LOADED:
      return NotFoundError("nvml: the NVIDIA driver is not loaded (" + api.path() + ")");
    case nvml::NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return FailedPreconditionError("nvml: " + api.path() +
                                     " does not match the loaded kernel driver "
                                     "(driver upgraded without reboot?): " +
                                     api.ErrorText(rc));
    default:
      return NvmlStatus(api, rc, "nvmlInit_v2");
  }
}

StatusOr<std::vector<DeviceInfo>> NvmlCollector::Discover() {
  std::lock_guard<std::mutex> lock(mu_);
  if (api_ == nullptr) {
    ASSIGN_OR_RETURN(api_, NvmlApi::Load(options_.library_names));
  }
  const NvmlApi& api = *api_;
  bool fresh = false;
  if (!initialized_ || needs_reinit_) {
    RETURN_IF_ERROR(InitLocked());
    fresh = true;
  }
  unsigned count = 0;
  nvmlReturn_t rc = api.DeviceGetCount(&count);
  if (NeedsReinit(rc) && !fresh) {
    // The driver was reloaded since the last call and no Collect() noticed.
    RETURN_IF_ERROR(InitLocked());
    rc = api.DeviceGetCount(&count);
  }
  if (rc != NVML_SUCCESS) return NvmlStatus(api, rc, "nvmlDeviceGetCount");

  // Events queued for the old handles still count; then drop the old states
  // (handles are re-fetched below: they may change after a re-init).
  for (const auto& d : devices_) {
    std::lock_guard<std::mutex> dl(d->mu);
    DrainXidEvents(*d);
  }
  devices_.clear();

  NvmlSoftware sw = ReadSoftware(api);
  std::vector<DeviceInfo> infos;
  std::vector<std::shared_ptr<NvmlDevice>> devices;
  Status first_error;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    rc = api.DeviceGetHandleByIndex(i, &h);
    StatusOr<DeviceInfo> info =
        rc == NVML_SUCCESS
            ? DescribeGpu(api, h, sw)
            : StatusOr<DeviceInfo>(NvmlStatus(api, rc, "nvmlDeviceGetHandleByIndex"));
    if (!info.ok()) {
      // A GPU that fell off the bus stops answering even for its identity; it
      // is left out (the agent keeps reporting it as lost) and the rest go on.
      if (first_error.ok()) first_error = info.status().WithContext("GPU " + std::to_string(i));
      continue;
    }
    auto dev = std::make_shared<NvmlDevice>(api);
    dev->handle = dev->parent = h;
    std::shared_ptr<NvmlXidCounts>& xids = xids_by_uuid_[info->uuid];
    if (xids == nullptr) xids = std::make_shared<NvmlXidCounts>();
    dev->xids = xids;
    SetUpXidEvents(*dev);
    unsigned current = 0, pending = 0;
    dev->mig_enabled = api.DeviceGetMigMode != nullptr &&
                       api.DeviceGetMigMode(h, &current, &pending) == NVML_SUCCESS &&
                       current == nvml::kNvmlDeviceMigEnable;
    infos.push_back(*info);
    devices.push_back(dev);
    if (dev->mig_enabled) AddMigInstances(dev, *info, infos, devices);
  }
  if (infos.empty() && !first_error.ok()) return first_error;
  devices_ = std::move(devices);
  return infos;
}

void NvmlCollector::AddMigInstances(const std::shared_ptr<NvmlDevice>& gpu,
                                    const DeviceInfo& gpu_info, std::vector<DeviceInfo>& infos,
                                    std::vector<std::shared_ptr<NvmlDevice>>& devices) {
  const NvmlApi& api = *api_;
  if (api.DeviceGetMaxMigDeviceCount == nullptr || api.DeviceGetMigDeviceHandleByIndex == nullptr ||
      api.DeviceGetGpuInstanceId == nullptr) {
    return;
  }
  unsigned max = 0;
  if (api.DeviceGetMaxMigDeviceCount(gpu->handle, &max) != NVML_SUCCESS) return;
  std::vector<unsigned> seen;
  for (unsigned j = 0; j < max; ++j) {
    nvmlDevice_t mig = nullptr;
    // NOT_FOUND marks an empty slot.
    if (api.DeviceGetMigDeviceHandleByIndex(gpu->handle, j, &mig) != NVML_SUCCESS) continue;
    unsigned gi = 0;
    if (api.DeviceGetGpuInstanceId(mig, &gi) != NVML_SUCCESS) continue;
    // A MIG device handle is a compute instance; a GPU instance split into
    // several compute instances is still one partition of memory and slices.
    if (std::find(seen.begin(), seen.end(), gi) != seen.end()) continue;
    seen.push_back(gi);

    DeviceInfo info = gpu_info;  // uuid stays the parent's
    info.partition.kind = "mig";
    info.partition.id = std::to_string(gi);
    nvml::nvmlDeviceAttributes_t attrs{};
    bool have_attrs =
        api.DeviceGetAttributes != nullptr && api.DeviceGetAttributes(mig, &attrs) == NVML_SUCCESS;
    if (have_attrs) info.partition.profile = MigProfileName(attrs);
    info.memory_total_bytes = MemoryTotalBytes(api, mig);
    if (info.memory_total_bytes == 0 && have_attrs) {
      info.memory_total_bytes = attrs.memorySizeMB * 1024ULL * 1024ULL;
    }
    auto dev = std::make_shared<NvmlDevice>(api);
    dev->handle = mig;
    dev->parent = gpu->handle;
    dev->is_mig = true;
    dev->gpu_instance_id = gi;
    infos.push_back(std::move(info));
    devices.push_back(std::move(dev));
  }
}

Status NvmlCollector::CollectGpu(NvmlDevice& d, NvmlCallScope& s) const {
  using Family = void (*)(NvmlDevice&, NvmlCallScope&);
  static constexpr Family kFamilies[] = {
      ReadMemory,      ReadUtilization,       ReadPower,       ReadThermalAndClocks,
      ReadReliability, ReadClockEventReasons, ReadFieldValues, ReadXidEvents,
  };
  for (Family f : kFamilies) {
    f(d, s);
    if (s.failed()) return s.status();
  }
  if (options_.enable_processes) ReadProcesses(d, s);
  if (s.failed()) return s.status();
  if (options_.enable_gpm) ReadGpm(d, s);
  return s.status();
}

Status NvmlCollector::CollectMig(NvmlDevice& d, NvmlCallScope& s) const {
  // NVML answers memory, processes and GPM per MIG instance; utilization,
  // power, clocks and errors belong to the parent GPU.
  ReadMemory(d, s);
  if (s.failed()) return s.status();
  if (options_.enable_processes) ReadProcesses(d, s);
  if (s.failed()) return s.status();
  if (options_.enable_gpm) ReadGpm(d, s);
  return s.status();
}

Status NvmlCollector::Collect(size_t index, DeviceReadings& out) {
  std::shared_ptr<NvmlDevice> dev;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (index >= devices_.size()) {
      return OutOfRangeError("nvml: device index " + std::to_string(index) + " not discovered (" +
                             std::to_string(devices_.size()) + " devices)");
    }
    dev = devices_[index];
  }
  if (needs_reinit_) {
    return FailedPreconditionError(
        "nvml: driver unloaded or reloaded; waiting for re-discovery to re-initialize");
  }
  std::lock_guard<std::mutex> lock(dev->mu);
  NvmlCallScope scope(*dev->api, out);
  Status st = dev->is_mig ? CollectMig(*dev, scope) : CollectGpu(*dev, scope);
  if (scope.needs_reinit()) needs_reinit_ = true;
  // Values read before a device-fatal error are not served as fresh.
  if (!st.ok()) out.readings.clear();
  return st;
}

}  // namespace

std::unique_ptr<Collector> NewNvmlCollector(NvmlCollectorOptions options) {
  return std::make_unique<NvmlCollector>(std::move(options));
}

}  // namespace gpufleet
