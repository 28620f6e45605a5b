#include "collect/rocm_smi_collector.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "collect/rocm_smi_library.h"

namespace gpufleet {

namespace {

std::string FormatBdf(uint64_t bdfid) {
  // BDFID = domain << 32 | bus << 8 | device << 3 | function (rocm_smi.h).
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x",
                static_cast<unsigned>((bdfid >> 32) & 0xffffffff),
                static_cast<unsigned>((bdfid >> 8) & 0xff),
                static_cast<unsigned>((bdfid >> 3) & 0x1f), static_cast<unsigned>(bdfid & 0x7));
  return buf;
}

Status InitError(rsmi_status_t rc) {
  std::string what = "rsmi_init failed: " + RocmSmiStatusName(rc);
  switch (rc) {
    case RSMI_STATUS_INIT_ERROR:
    case RSMI_STATUS_NOT_FOUND:
    case RSMI_STATUS_FILE_ERROR:
      return NotFoundError(what + " (amdgpu driver absent or not loaded)");
    case RSMI_STATUS_PERMISSION:
      return PermissionDeniedError(what);
    default:
      return FailedPreconditionError(what);
  }
}

class RocmSmiCollector final : public Collector {
 public:
  explicit RocmSmiCollector(RocmSmiCollectorOptions options) : options_(std::move(options)) {}
  ~RocmSmiCollector() override {
    if (initialized_) lib_->shut_down();
  }

  std::string_view source() const override { return "rocm_smi"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    devices_.clear();
    if (lib_ == nullptr) {
      ASSIGN_OR_RETURN(lib_, RocmSmiLibrary::Load(options_.library_names));
    }
    if (initialized_) {
      lib_->shut_down();
      initialized_ = false;
    }
    rsmi_status_t rc = lib_->init(0);
    if (rc != RSMI_STATUS_SUCCESS) return InitError(rc);
    initialized_ = true;
    needs_reinit_ = false;
    uint32_t count = 0;
    rc = lib_->num_monitor_devices(&count);
    if (rc != RSMI_STATUS_SUCCESS) {
      return FailedPreconditionError("rsmi_num_monitor_devices: " + RocmSmiStatusName(rc));
    }
    if (count == 0) {
      return NotFoundError("rocm_smi (" + lib_->library->path() + "): no AMD GPU found");
    }
    std::string driver;
    if (lib_->version_str_get != nullptr) {
      char buf[256] = {};
      if (lib_->version_str_get(RSMI_SW_COMP_DRIVER, buf, sizeof(buf) - 1) == RSMI_STATUS_SUCCESS) {
        driver.assign(buf, strnlen(buf, sizeof(buf)));
      }
    }
    for (uint32_t i = 0; i < count; ++i) devices_.push_back(Describe(i, driver));
    return devices_;
  }

  Status Collect(size_t index, DeviceReadings& out) override;

 private:
  DeviceInfo Describe(uint32_t dv, const std::string& driver) const {
    DeviceInfo info;
    info.vendor = Vendor::kAmd;
    info.driver_version = driver;
    if (lib_->dev_name_get != nullptr) {
      char buf[256] = {};
      if (lib_->dev_name_get(dv, buf, sizeof(buf) - 1) == RSMI_STATUS_SUCCESS) {
        info.model.assign(buf, strnlen(buf, sizeof(buf)));
      }
    }
    uint64_t id = 0;
    if (lib_->dev_unique_id_get != nullptr &&
        lib_->dev_unique_id_get(dv, &id) == RSMI_STATUS_SUCCESS) {
      char buf[24];
      std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(id));
      info.uuid = buf;  // the ASIC unique id, as amdgpu's sysfs unique_id prints it
    }
    uint64_t bdfid = 0;
    if (lib_->dev_pci_id_get != nullptr &&
        lib_->dev_pci_id_get(dv, &bdfid) == RSMI_STATUS_SUCCESS) {
      info.pci_bus_id = FormatBdf(bdfid);
    }
    uint64_t total = 0;
    if (lib_->dev_memory_total_get != nullptr &&
        lib_->dev_memory_total_get(dv, RSMI_MEM_TYPE_VRAM, &total) == RSMI_STATUS_SUCCESS) {
      info.memory_total_bytes = total;
    }
    return info;
  }

  const RocmSmiCollectorOptions options_;
  std::unique_ptr<RocmSmiLibrary> lib_;
  bool initialized_ = false;
  std::vector<DeviceInfo> devices_;
  std::atomic<bool> needs_reinit_{false};
};

// Per-call classification; see the header for the policy.
class Calls {
 public:
  Calls(DeviceReadings& out, std::atomic<bool>& needs_reinit)
      : out_(out), needs_reinit_(needs_reinit) {}

  template <typename Fn>
  bool Have(Fn* fn) {
    if (fn == nullptr) out_.CountError("symbol_missing");
    return fn != nullptr;
  }

  bool Ok(rsmi_status_t rc, const char* call, bool probe = false) {
    switch (rc) {
      case RSMI_STATUS_SUCCESS:
        return true;
      case RSMI_STATUS_NOT_SUPPORTED:
      case RSMI_STATUS_NOT_YET_IMPLEMENTED:
      case RSMI_STATUS_NO_DATA:
        out_.CountError("not_supported");
        return false;
      case RSMI_STATUS_PERMISSION:
        out_.CountError("not_permitted");
        return false;
      case RSMI_STATUS_FILE_ERROR:
      case RSMI_STATUS_NOT_FOUND:
      case RSMI_STATUS_INVALID_ARGS:
        if (probe) {
          Fail(UnavailableError(std::string("lost: ") + call + " returned " +
                                RocmSmiStatusName(rc)));
        } else {
          out_.CountError("not_supported");
        }
        return false;
      case RSMI_STATUS_INIT_ERROR:
        needs_reinit_ = true;
        Fail(UnavailableError(std::string("driver gone: ") + call + " returned " +
                              RocmSmiStatusName(rc) + "; re-initializing on next discovery"));
        return false;
      default:
        out_.CountError("error");
        return false;
    }
  }

  const Status& fatal() const { return fatal_; }
  DeviceReadings& out() { return out_; }

 private:
  void Fail(Status s) {
    if (fatal_.ok()) fatal_ = std::move(s);
  }
  DeviceReadings& out_;
  std::atomic<bool>& needs_reinit_;
  Status fatal_;
};

Status RocmSmiCollector::Collect(size_t index, DeviceReadings& out) {
  if (index >= devices_.size()) {
    return InvalidArgumentError("rocm_smi: no device " + std::to_string(index));
  }
  if (needs_reinit_) {
    return UnavailableError("rocm_smi: library needs re-initialization (driver reloaded?)");
  }
  const RocmSmiLibrary& lib = *lib_;
  const uint32_t dv = static_cast<uint32_t>(index);
  Calls c(out, needs_reinit_);

  // Probe first: a vanished device fails here and nothing else is tried.
  if (c.Have(lib.dev_busy_percent_get)) {
    uint32_t pct = 0;
    if (c.Ok(lib.dev_busy_percent_get(dv, &pct), "rsmi_dev_busy_percent_get", true)) {
      out.Add("busy_percent", pct);
    }
    if (!c.fatal().ok()) return c.fatal();
  }
  if (c.Have(lib.dev_memory_busy_percent_get)) {
    uint32_t pct = 0;
    if (c.Ok(lib.dev_memory_busy_percent_get(dv, &pct), "rsmi_dev_memory_busy_percent_get")) {
      out.Add("memory_busy_percent", pct);
    }
  }
  if (c.Have(lib.dev_memory_usage_get)) {
    uint64_t used = 0;
    if (c.Ok(lib.dev_memory_usage_get(dv, RSMI_MEM_TYPE_VRAM, &used),
             "rsmi_dev_memory_usage_get")) {
      out.Add("memory_used_bytes", static_cast<double>(used));
    }
  }
  if (c.Have(lib.dev_memory_total_get)) {
    uint64_t total = 0;
    if (c.Ok(lib.dev_memory_total_get(dv, RSMI_MEM_TYPE_VRAM, &total),
             "rsmi_dev_memory_total_get")) {
      out.Add("memory_total_bytes", static_cast<double>(total));
    }
  }
  if (c.Have(lib.dev_power_ave_get)) {
    uint64_t uw = 0;
    if (c.Ok(lib.dev_power_ave_get(dv, 0, &uw), "rsmi_dev_power_ave_get")) {
      out.Add("power_average_microwatts", static_cast<double>(uw));
    }
  }
  if (c.Have(lib.dev_power_cap_get)) {
    uint64_t uw = 0;
    if (c.Ok(lib.dev_power_cap_get(dv, 0, &uw), "rsmi_dev_power_cap_get")) {
      out.Add("power_cap_microwatts", static_cast<double>(uw));
    }
  }
  if (c.Have(lib.dev_energy_count_get)) {
    uint64_t counter = 0;
    float resolution_uj = 0;
    uint64_t ts = 0;
    if (c.Ok(lib.dev_energy_count_get(dv, &counter, &resolution_uj, &ts),
             "rsmi_dev_energy_count_get")) {
      out.Add("energy_microjoules", static_cast<double>(counter) * resolution_uj);
    }
  }
  if (c.Have(lib.dev_temp_metric_get)) {
    static constexpr std::pair<rsmi_temperature_type_t, const char*> kSensors[] = {
        {RSMI_TEMP_TYPE_EDGE, "edge"},
        {RSMI_TEMP_TYPE_JUNCTION, "junction"},
        {RSMI_TEMP_TYPE_MEMORY, "memory"},
    };
    for (const auto& [type, sensor] : kSensors) {
      int64_t millic = 0;
      if (c.Ok(lib.dev_temp_metric_get(dv, type, RSMI_TEMP_CURRENT, &millic),
               "rsmi_dev_temp_metric_get")) {
        out.Add("temperature_millicelsius", static_cast<double>(millic),
                Labels{{"sensor", sensor}});
      }
    }
  }
  if (c.Have(lib.dev_gpu_clk_freq_get)) {
    static constexpr std::pair<rsmi_clk_type_t, const char*> kDomains[] = {
        {RSMI_CLK_TYPE_SYS, "sm"},
        {RSMI_CLK_TYPE_MEM, "memory"},
        {RSMI_CLK_TYPE_SOC, "soc"},
        {RSMI_CLK_TYPE_DF, "data"},
    };
    for (const auto& [type, domain] : kDomains) {
      rsmi_frequencies_t f{};
      if (!c.Ok(lib.dev_gpu_clk_freq_get(dv, type, &f), "rsmi_dev_gpu_clk_freq_get")) continue;
      // frequency[current] is the active DPM level, in Hz.
      if (f.num_supported == 0 || f.num_supported > RSMI_MAX_NUM_FREQUENCIES ||
          f.current >= f.num_supported) {
        out.CountError("sentinel");
        continue;
      }
      out.Add("clock_hz", static_cast<double>(f.frequency[f.current]), Labels{{"domain", domain}});
    }
  }
  if (c.Have(lib.dev_ecc_count_get)) {
    static constexpr std::pair<rsmi_gpu_block_t, const char*> kBlocks[] = {
        {RSMI_GPU_BLOCK_UMC, "umc"},
        {RSMI_GPU_BLOCK_GFX, "gfx"},
        {RSMI_GPU_BLOCK_SDMA, "sdma"},
    };
    for (const auto& [block, name] : kBlocks) {
      rsmi_error_count_t ec{};
      if (c.Ok(lib.dev_ecc_count_get(dv, block, &ec), "rsmi_dev_ecc_count_get")) {
        out.Add("ecc_correctable_total", static_cast<double>(ec.correctable_err),
                Labels{{"block", name}});
        out.Add("ecc_uncorrectable_total", static_cast<double>(ec.uncorrectable_err),
                Labels{{"block", name}});
      }
    }
  }
  if (c.Have(lib.dev_pci_replay_counter_get)) {
    uint64_t replays = 0;
    if (c.Ok(lib.dev_pci_replay_counter_get(dv, &replays), "rsmi_dev_pci_replay_counter_get")) {
      out.Add("pcie_replays_total", static_cast<double>(replays));
    }
  }
  if (options_.enable_pcie_throughput && c.Have(lib.dev_pci_throughput_get)) {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t max_packet = 0;
    if (c.Ok(lib.dev_pci_throughput_get(dv, &sent, &received, &max_packet),
             "rsmi_dev_pci_throughput_get")) {
      out.Add("pcie_sent_bytes_per_second", static_cast<double>(sent));
      out.Add("pcie_received_bytes_per_second", static_cast<double>(received));
    }
  }
  return c.fatal();
}

}  // namespace

std::unique_ptr<Collector> NewRocmSmiCollector(RocmSmiCollectorOptions options) {
  return std::make_unique<RocmSmiCollector>(std::move(options));
}

}  // namespace gpufleet
