#include "collect/amdsmi_collector.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "collect/amdsmi_library.h"
#include "collect/amdsmi_read.h"

namespace gpufleet {

using namespace amdsmi_abi;  // NOLINT(build/namespaces): ABI names are prefixed

namespace {

// Bounded copy of a fixed-size C string member (the library may omit the NUL).
template <size_t N>
std::string FromCString(const char (&s)[N]) {
  return std::string(s, strnlen(s, N));
}

// 90402 -> "gfx942", 90010 -> "gfx90a": KFD's gfx_target_version is
// major*10000 + minor*100 + stepping; the gfx name prints minor and stepping
// as hex digits.
std::string GfxTarget(uint64_t version) {
  if (version == 0 || version == UINT64_MAX) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gfx%u%x%x", static_cast<unsigned>(version / 10000),
                static_cast<unsigned>((version / 100) % 100), static_cast<unsigned>(version % 100));
  return buf;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status InitError(amdsmi_status_t rc) {
  std::string what = "amdsmi_init failed: " + AmdSmiStatusName(rc);
  switch (rc) {
    case AMDSMI_STATUS_DRIVER_NOT_LOADED:
    case AMDSMI_STATUS_NOT_FOUND:
    case AMDSMI_STATUS_FAIL_LOAD_MODULE:
    case AMDSMI_STATUS_DIRECTORY_NOT_FOUND:
      return NotFoundError(what + " (amdgpu driver absent or not loaded)");
    case AMDSMI_STATUS_NO_PERM:
      return PermissionDeniedError(what);
    default:
      return FailedPreconditionError(what);
  }
}

class AmdSmiCollector final : public Collector {
 public:
  explicit AmdSmiCollector(AmdSmiCollectorOptions options) : options_(std::move(options)) {}

  ~AmdSmiCollector() override {
    if (initialized_) lib_->shut_down();
  }

  std::string_view source() const override { return "amdsmi"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    devices_.clear();
    if (lib_ == nullptr) {
      ASSIGN_OR_RETURN(lib_, AmdSmiLibrary::Load(options_.library_names));
    }
    if (initialized_) {
      // Handles are only valid for one init; re-enumerate from scratch.
      lib_->shut_down();
      initialized_ = false;
    }
    amdsmi_status_t rc = lib_->init(kInitAmdGpus);
    if (rc != AMDSMI_STATUS_SUCCESS) return InitError(rc);
    initialized_ = true;
    needs_reinit_ = false;

    uint32_t socket_count = 0;
    rc = lib_->get_socket_handles(&socket_count, nullptr);
    if (rc != AMDSMI_STATUS_SUCCESS) {
      return FailedPreconditionError("amdsmi_get_socket_handles: " + AmdSmiStatusName(rc));
    }
    std::vector<amdsmi_socket_handle> sockets(socket_count);
    if (socket_count > 0) {
      rc = lib_->get_socket_handles(&socket_count, sockets.data());
      if (rc != AMDSMI_STATUS_SUCCESS) {
        return FailedPreconditionError("amdsmi_get_socket_handles: " + AmdSmiStatusName(rc));
      }
      sockets.resize(socket_count);
    }
    for (amdsmi_socket_handle socket : sockets) {
      uint32_t count = 0;
      if (lib_->get_processor_handles(socket, &count, nullptr) != AMDSMI_STATUS_SUCCESS) continue;
      std::vector<amdsmi_processor_handle> procs(count);
      if (count == 0 ||
          lib_->get_processor_handles(socket, &count, procs.data()) != AMDSMI_STATUS_SUCCESS) {
        continue;
      }
      procs.resize(count);
      for (amdsmi_processor_handle h : procs) AddDevice(h);
    }
    if (devices_.empty()) {
      return NotFoundError("amdsmi (" + lib_->library->path() + "): no AMD GPU found");
    }
    std::vector<DeviceInfo> out;
    out.reserve(devices_.size());
    for (const AmdSmiDevice& d : devices_) out.push_back(d.info);
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    if (index >= devices_.size()) {
      return InvalidArgumentError("amdsmi: no device " + std::to_string(index));
    }
    if (needs_reinit_) {
      return UnavailableError("amdsmi: library needs re-initialization (driver reloaded?)");
    }
    AmdSmiReadContext ctx{*lib_, options_.enable_processes, out, needs_reinit_};
    return ReadAmdSmiDevice(devices_[index], ctx);
  }

 private:
  void AddDevice(amdsmi_processor_handle h) {
    if (lib_->get_processor_type != nullptr) {
      processor_type_t type = AMDSMI_PROCESSOR_TYPE_UNKNOWN;
      if (lib_->get_processor_type(h, &type) == AMDSMI_STATUS_SUCCESS &&
          type != AMDSMI_PROCESSOR_TYPE_AMD_GPU) {
        return;
      }
    }
    AmdSmiDevice dev;
    dev.handle = h;
    DeviceInfo& info = dev.info;
    info.vendor = Vendor::kAmd;
    if (lib_->get_gpu_device_bdf != nullptr) {
      amdsmi_bdf_t bdf{};
      if (lib_->get_gpu_device_bdf(h, &bdf) == AMDSMI_STATUS_SUCCESS) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%04llx:%02x:%02x.%x",
                      static_cast<unsigned long long>(bdf.domain()), bdf.bus(), bdf.device(),
                      bdf.function());
        info.pci_bus_id = buf;
      }
    }
    if (lib_->get_gpu_device_uuid != nullptr) {
      char uuid[kGpuUuidSize + 2] = {};
      unsigned int len = kGpuUuidSize;
      if (lib_->get_gpu_device_uuid(h, &len, uuid) == AMDSMI_STATUS_SUCCESS) {
        info.uuid = FromCString(uuid);
      }
    }
    if (lib_->get_gpu_asic_info != nullptr) {
      auto asic = std::make_unique<amdsmi_asic_info_t>();
      if (lib_->get_gpu_asic_info(h, asic.get()) == AMDSMI_STATUS_SUCCESS) {
        info.model = FromCString(asic->market_name);
        info.arch = GfxTarget(asic->target_graphics_version);
      }
    }
    if (info.model.empty() && lib_->get_gpu_board_info != nullptr) {
      auto board = std::make_unique<amdsmi_board_info_t>();
      if (lib_->get_gpu_board_info(h, board.get()) == AMDSMI_STATUS_SUCCESS) {
        info.model = FromCString(board->product_name);
      }
    }
    if (lib_->get_gpu_driver_info != nullptr) {
      auto driver = std::make_unique<amdsmi_driver_info_t>();
      if (lib_->get_gpu_driver_info(h, driver.get()) == AMDSMI_STATUS_SUCCESS) {
        info.driver_version = FromCString(driver->driver_version);
      }
    }
    if (lib_->get_gpu_memory_total != nullptr) {
      uint64_t total = 0;
      if (lib_->get_gpu_memory_total(h, AMDSMI_MEM_TYPE_VRAM, &total) == AMDSMI_STATUS_SUCCESS) {
        info.memory_total_bytes = total;
      }
    }
    DetectPartition(h, info);
    dev.board_sensors = info.partition.kind.empty() || info.partition.id == "0";
    devices_.push_back(std::move(dev));
  }

  // SPX (or a part without partitions) is a whole GPU; DPX/TPX/QPX/CPX make
  // every processor one XCP of its parent.
  void DetectPartition(amdsmi_processor_handle h, DeviceInfo& info) {
    if (lib_->get_gpu_compute_partition == nullptr) return;
    char buf[32] = {};
    if (lib_->get_gpu_compute_partition(h, buf, sizeof(buf) - 1) != AMDSMI_STATUS_SUCCESS) return;
    std::string mode = Lower(FromCString(buf));
    if (mode.empty() || mode == "spx") return;
    uint32_t xcp = UINT32_MAX;
    if (lib_->get_gpu_kfd_info != nullptr) {
      amdsmi_kfd_info_t kfd{};
      if (lib_->get_gpu_kfd_info(h, &kfd) == AMDSMI_STATUS_SUCCESS) xcp = kfd.current_partition_id;
    }
    if (xcp == UINT32_MAX) {
      // Older libraries lack kfd info: partitions of one GPU are listed in
      // XCP order and share the parent's UUID.
      xcp = 0;
      for (const AmdSmiDevice& d : devices_) {
        if (!info.uuid.empty() && d.info.uuid == info.uuid) ++xcp;
      }
    }
    info.partition = PartitionInfo{"amd_xcp", std::to_string(xcp), mode};
  }

  const AmdSmiCollectorOptions options_;
  std::unique_ptr<AmdSmiLibrary> lib_;
  bool initialized_ = false;
  std::vector<AmdSmiDevice> devices_;  // rebuilt by Discover only
  std::atomic<bool> needs_reinit_{false};
};

}  // namespace

std::unique_ptr<Collector> NewAmdSmiCollector(AmdSmiCollectorOptions options) {
  return std::make_unique<AmdSmiCollector>(std::move(options));
}

}  // namespace gpufleet
