#include "collect/amdsmi_read.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace gpufleet {

using namespace amdsmi_abi;  // NOLINT(build/namespaces): ABI names are prefixed

namespace {

constexpr uint32_t kMaxProcesses = 64;

// Classifies each call's status: usable, a field-level failure (counted), or
// a device-level failure that ends the collection (kept in `fatal`).
class Calls {
 public:
  explicit Calls(AmdSmiReadContext& ctx) : ctx_(ctx) {}

  // True when `fn` is bound; otherwise counts the missing symbol.
  template <typename Fn>
  bool Have(Fn* fn) {
    if (fn == nullptr) ctx_.out.CountError("symbol_missing");
    return fn != nullptr;
  }

  // True when the call's result may be used.
  bool Ok(amdsmi_status_t rc, const char* call) {
    switch (rc) {
      case AMDSMI_STATUS_SUCCESS:
        return true;
      case AMDSMI_STATUS_NOT_SUPPORTED:
      case AMDSMI_STATUS_NOT_YET_IMPLEMENTED:
      case AMDSMI_STATUS_NO_DATA:
        ctx_.out.CountError("not_supported");
        return false;
      case AMDSMI_STATUS_NO_PERM:
        ctx_.out.CountError("not_permitted");
        return false;
      // The device's sysfs/DRM nodes vanished: it fell off the bus or was
      // unbound. Nothing else on it will answer.
      case AMDSMI_STATUS_NOT_FOUND:
      case AMDSMI_STATUS_IO:
      case AMDSMI_STATUS_FILE_ERROR:
      case AMDSMI_STATUS_DRM_ERROR:
      case AMDSMI_STATUS_DIRECTORY_NOT_FOUND:
        if (fatal_.ok()) {
          fatal_ =
              UnavailableError(std::string("lost: ") + call + " returned " + AmdSmiStatusName(rc));
        }
        return false;
      case AMDSMI_STATUS_NOT_INIT:
      case AMDSMI_STATUS_DRIVER_NOT_LOADED:
        ctx_.needs_reinit = true;
        if (fatal_.ok()) {
          fatal_ = UnavailableError(std::string("driver gone: ") + call + " returned " +
                                    AmdSmiStatusName(rc) + "; re-initializing on next discovery");
        }
        return false;
      default:
        ctx_.out.CountError("error");
        return false;
    }
  }

  // Adds `value` unless it is a vendor "no value" marker.
  void AddUnlessSentinel(const char* name, uint64_t value, uint64_t sentinel, Labels labels = {}) {
    if (value == sentinel) {
      ctx_.out.CountError("sentinel");
      return;
    }
    ctx_.out.Add(name, static_cast<double>(value), std::move(labels));
  }

  const Status& fatal() const { return fatal_; }
  DeviceReadings& out() { return ctx_.out; }

 private:
  AmdSmiReadContext& ctx_;
  Status fatal_;
};

// 16-bit firmware fields are widened with 0xFFFF kept as "no value"; 32-bit
// ones use UINT32_MAX.
bool IsSmallSentinel(uint64_t v) { return v == UINT16_MAX || v == UINT32_MAX; }

void ReadActivity(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!c.Have(ctx.lib.get_gpu_activity)) return;
  amdsmi_engine_usage_t usage{};
  if (!c.Ok(ctx.lib.get_gpu_activity(d.handle, &usage), "amdsmi_get_gpu_activity")) return;
  for (auto [name, v] : {std::pair{"gfx_activity_percent", usage.gfx_activity},
                         std::pair{"umc_activity_percent", usage.umc_activity}}) {
    if (IsSmallSentinel(v)) {
      c.out().CountError("sentinel");
    } else {
      c.out().Add(name, v);
    }
  }
}

void ReadMemory(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (c.Have(ctx.lib.get_gpu_memory_usage)) {
    uint64_t used = 0;
    if (c.Ok(ctx.lib.get_gpu_memory_usage(d.handle, AMDSMI_MEM_TYPE_VRAM, &used),
             "amdsmi_get_gpu_memory_usage")) {
      c.AddUnlessSentinel("memory_used_bytes", used, UINT64_MAX);
    }
  }
  if (c.Have(ctx.lib.get_gpu_memory_total)) {
    uint64_t total = 0;
    if (c.Ok(ctx.lib.get_gpu_memory_total(d.handle, AMDSMI_MEM_TYPE_VRAM, &total),
             "amdsmi_get_gpu_memory_total")) {
      c.AddUnlessSentinel("memory_total_bytes", total, UINT64_MAX);
    }
  }
}

void ReadClocks(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!c.Have(ctx.lib.get_clock_info)) return;
  static constexpr std::pair<amdsmi_clk_type_t, const char*> kDomains[] = {
      {AMDSMI_CLK_TYPE_SYS, "sm"},  {AMDSMI_CLK_TYPE_MEM, "memory"},  {AMDSMI_CLK_TYPE_SOC, "soc"},
      {AMDSMI_CLK_TYPE_DF, "data"}, {AMDSMI_CLK_TYPE_VCLK0, "video"},
  };
  for (const auto& [type, domain] : kDomains) {
    amdsmi_clk_info_t info{};
    if (!c.Ok(ctx.lib.get_clock_info(d.handle, type, &info), "amdsmi_get_clock_info")) {
      if (!c.fatal().ok()) return;
      continue;
    }
    if (IsSmallSentinel(info.clk)) {
      c.out().CountError("sentinel");
      continue;
    }
    c.out().Add("clock_mhz", info.clk, Labels{{"domain", domain}});
  }
}

void ReadProcesses(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!ctx.enable_processes) return;
  if (!c.Have(ctx.lib.get_gpu_process_list)) return;
  std::vector<amdsmi_proc_info_t> procs(kMaxProcesses);
  uint32_t n = kMaxProcesses;
  amdsmi_status_t rc = ctx.lib.get_gpu_process_list(d.handle, &n, procs.data());
  // MORE_DATA: the buffer holds the first kMaxProcesses entries; keep them.
  if (rc == AMDSMI_STATUS_MORE_DATA) rc = AMDSMI_STATUS_SUCCESS;
  if (!c.Ok(rc, "amdsmi_get_gpu_process_list")) return;
  if (n > kMaxProcesses) n = kMaxProcesses;
  for (uint32_t i = 0; i < n; ++i) {
    c.out().Add("process_vram_bytes", static_cast<double>(procs[i].memory_usage.vram_mem),
                Labels{{"pid", std::to_string(procs[i].pid)}});
  }
}

void ReadPower(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (c.Have(ctx.lib.get_power_info)) {
    amdsmi_power_info_t p{};
    if (c.Ok(ctx.lib.get_power_info(d.handle, &p), "amdsmi_get_power_info")) {
      // MI300+ report current socket power, MI200 and Navi only an average.
      if (p.current_socket_power != UINT32_MAX) {
        c.out().Add("socket_power_watts", p.current_socket_power);
      } else if (p.average_socket_power != UINT32_MAX) {
        c.out().Add("socket_power_watts", p.average_socket_power);
      } else {
        c.out().CountError("sentinel");
      }
      c.AddUnlessSentinel("power_limit_microwatts", p.power_limit, UINT32_MAX);
    }
  }
  if (c.fatal().ok() && c.Have(ctx.lib.get_energy_count)) {
    uint64_t acc = 0;
    float resolution_uj = 0;
    uint64_t ts = 0;
    if (c.Ok(ctx.lib.get_energy_count(d.handle, &acc, &resolution_uj, &ts),
             "amdsmi_get_energy_count")) {
      c.out().Add("energy_microjoules", static_cast<double>(acc) * resolution_uj);
    }
  }
}

void ReadTemperatures(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!c.Have(ctx.lib.get_temp_metric)) return;
  static constexpr std::pair<amdsmi_temperature_type_t, const char*> kSensors[] = {
      {AMDSMI_TEMPERATURE_TYPE_EDGE, "edge"},
      {AMDSMI_TEMPERATURE_TYPE_HOTSPOT, "junction"},
      {AMDSMI_TEMPERATURE_TYPE_VRAM, "memory"},
  };
  for (const auto& [type, sensor] : kSensors) {
    int64_t celsius = 0;
    if (!c.Ok(ctx.lib.get_temp_metric(d.handle, type, AMDSMI_TEMP_CURRENT, &celsius),
              "amdsmi_get_temp_metric")) {
      if (!c.fatal().ok()) return;
      continue;
    }
    if (celsius < 0 || IsSmallSentinel(static_cast<uint64_t>(celsius))) {
      c.out().CountError("sentinel");
      continue;
    }
    c.out().Add("temperature_celsius", static_cast<double>(celsius), Labels{{"sensor", sensor}});
  }
}

void ReadErrors(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (c.Have(ctx.lib.get_gpu_total_ecc_count)) {
    amdsmi_error_count_t ec{};
    if (c.Ok(ctx.lib.get_gpu_total_ecc_count(d.handle, &ec), "amdsmi_get_gpu_total_ecc_count")) {
      c.AddUnlessSentinel("ecc_correctable_total", ec.correctable_count, UINT64_MAX);
      c.AddUnlessSentinel("ecc_uncorrectable_total", ec.uncorrectable_count, UINT64_MAX);
      c.AddUnlessSentinel("ecc_deferred_total", ec.deferred_count, UINT64_MAX);
    }
  }
  if (c.fatal().ok() && c.Have(ctx.lib.get_pcie_info)) {
    auto pcie = std::make_unique<amdsmi_pcie_info_t>();
    if (c.Ok(ctx.lib.get_pcie_info(d.handle, pcie.get()), "amdsmi_get_pcie_info")) {
      c.AddUnlessSentinel("pcie_replays_total", pcie->pcie_metric.pcie_replay_count, UINT64_MAX);
    }
  }
}

void ReadLinks(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!c.Have(ctx.lib.get_link_metrics)) return;
  auto m = std::make_unique<amdsmi_link_metrics_t>();
  if (!c.Ok(ctx.lib.get_link_metrics(d.handle, m.get()), "amdsmi_get_link_metrics")) return;
  uint32_t n = m->num_links < kMaxNumXgmiPhysicalLink ? m->num_links : kMaxNumXgmiPhysicalLink;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& link = m->links[i];
    if (link.link_type != AMDSMI_LINK_TYPE_XGMI) continue;
    std::string id = std::to_string(i);
    c.AddUnlessSentinel("xgmi_read_kilobytes", link.read, UINT64_MAX, Labels{{"link", id}});
    c.AddUnlessSentinel("xgmi_write_kilobytes", link.write, UINT64_MAX, Labels{{"link", id}});
  }
}

void ReadThrottle(const AmdSmiDevice& d, AmdSmiReadContext& ctx, Calls& c) {
  if (!c.Have(ctx.lib.get_violation_status)) return;
  auto v = std::make_unique<amdsmi_violation_status_t>();
  if (!c.Ok(ctx.lib.get_violation_status(d.handle, v.get()), "amdsmi_get_violation_status")) {
    return;
  }
  // PROCHOT is the hardware slowdown line, like NVIDIA's HW_SLOWDOWN.
  const std::pair<const char*, uint8_t> reasons[] = {
      {"power", v->active_ppt_pwr},
      {"thermal", v->active_socket_thrm},
      {"hw_slowdown", v->active_prochot_thrm},
      {"vr_thermal", v->active_vr_thrm},
      {"hbm_thermal", v->active_hbm_thrm},
  };
  for (const auto& [reason, active] : reasons) {
    c.AddUnlessSentinel("throttle_active", active, UINT8_MAX, Labels{{"reason", reason}});
  }
}

}  // namespace

Status ReadAmdSmiDevice(const AmdSmiDevice& device, AmdSmiReadContext& ctx) {
  Calls c(ctx);
  using Reader = void (*)(const AmdSmiDevice&, AmdSmiReadContext&, Calls&);
  static constexpr Reader kEveryDevice[] = {ReadActivity, ReadMemory, ReadClocks, ReadProcesses};
  static constexpr Reader kBoardLevel[] = {ReadPower, ReadTemperatures, ReadErrors, ReadLinks,
                                           ReadThrottle};
  for (Reader r : kEveryDevice) {
    r(device, ctx, c);
    if (!c.fatal().ok()) return c.fatal();
  }
  if (!device.board_sensors) return OkStatus();
  for (Reader r : kBoardLevel) {
    r(device, ctx, c);
    if (!c.fatal().ok()) return c.fatal();
  }
  return OkStatus();
}

}  // namespace gpufleet
