// Device-level NVML reading families: utilization, memory, power, thermal,
// clocks, reliability, clock event reasons and field values.
#include <string>
#include <vector>

#include "collect/nvml_device.h"

namespace gpufleet {

using namespace nvml;  // NOLINT: NVML's own names read best unqualified here

bool IsDeviceFatal(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_ERROR_GPU_IS_LOST:
    case NVML_ERROR_RESET_REQUIRED:
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
    case NVML_ERROR_UNINITIALIZED:
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return true;
    default:
      return false;
  }
}

bool NeedsReinit(nvmlReturn_t rc) {
  return rc == NVML_ERROR_UNINITIALIZED || rc == NVML_ERROR_DRIVER_NOT_LOADED;
}

Status NvmlStatus(const NvmlApi& api, nvmlReturn_t rc, std::string_view call) {
  std::string what = std::string(call) + ": " + api.ErrorText(rc);
  switch (rc) {
    case NVML_SUCCESS:
      return OkStatus();
    case NVML_ERROR_GPU_IS_LOST:
    case NVML_ERROR_RESET_REQUIRED:
      return UnavailableError("lost: " + what);
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return FailedPreconditionError("nvml: driver/library version mismatch: " + what);
    case NVML_ERROR_UNINITIALIZED:
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return FailedPreconditionError("nvml: driver unloaded or reloaded, re-initializing: " + what);
    case NVML_ERROR_NO_PERMISSION:
      return PermissionDeniedError("nvml: " + what);
    case NVML_ERROR_NOT_FOUND:
      return NotFoundError("nvml: " + what);
    case NVML_ERROR_NOT_SUPPORTED:
      return UnimplementedError("nvml: " + what);
    case NVML_ERROR_TIMEOUT:
      return DeadlineExceededError("nvml: " + what);
    default:
      return InternalError("nvml: " + what);
  }
}

bool NvmlCallScope::Ok(nvmlReturn_t rc, std::string_view call) {
  if (rc == NVML_SUCCESS) return true;
  if (IsDeviceFatal(rc)) {
    if (status_.ok()) status_ = NvmlStatus(api_, rc, call);
    if (NeedsReinit(rc)) needs_reinit_ = true;
  } else if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_NO_PERMISSION) {
    out_.CountError("not_supported");
  } else {
    out_.CountError("error");
  }
  return false;
}

void ReadUtilization(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  // Not supported for a GPU in MIG mode (NVML documents it); the GPM
  // graphics activity covers that case.
  if (s.Has(api.DeviceGetUtilizationRates)) {
    nvmlUtilization_t u{};
    if (s.Ok(api.DeviceGetUtilizationRates(d.handle, &u), "nvmlDeviceGetUtilizationRates")) {
      s.out().Add("utilization_gpu_pct", u.gpu);
      s.out().Add("utilization_memory_pct", u.memory);
    }
  }
  if (s.failed()) return;
  unsigned pct = 0, period_us = 0;
  if (s.Has(api.DeviceGetEncoderUtilization) &&
      s.Ok(api.DeviceGetEncoderUtilization(d.handle, &pct, &period_us),
           "nvmlDeviceGetEncoderUtilization")) {
    s.out().Add("encoder_utilization_pct", pct);
  }
  if (s.failed()) return;
  if (s.Has(api.DeviceGetDecoderUtilization) &&
      s.Ok(api.DeviceGetDecoderUtilization(d.handle, &pct, &period_us),
           "nvmlDeviceGetDecoderUtilization")) {
    s.out().Add("decoder_utilization_pct", pct);
  }
}

void ReadMemory(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  // v2 excludes driver-reserved memory from `used`; v1 includes it.
  if (api.DeviceGetMemoryInfoV2 != nullptr) {
    nvmlMemory_v2_t m{};
    m.version = kNvmlMemoryV2Version;
    if (s.Ok(api.DeviceGetMemoryInfoV2(d.handle, &m), "nvmlDeviceGetMemoryInfo_v2")) {
      s.out().Add("memory_used_bytes", static_cast<double>(m.used));
      s.out().Add("memory_total_bytes", static_cast<double>(m.total));
    }
    return;
  }
  if (!s.Has(api.DeviceGetMemoryInfo)) return;
  nvmlMemory_t m{};
  if (s.Ok(api.DeviceGetMemoryInfo(d.handle, &m), "nvmlDeviceGetMemoryInfo")) {
    s.out().Add("memory_used_bytes", static_cast<double>(m.used));
    s.out().Add("memory_total_bytes", static_cast<double>(m.total));
  }
}

void ReadPower(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  unsigned mw = 0;
  if (s.Has(api.DeviceGetPowerUsage) &&
      s.Ok(api.DeviceGetPowerUsage(d.handle, &mw), "nvmlDeviceGetPowerUsage")) {
    s.out().Add("power_usage_mw", mw);
  }
  if (s.failed()) return;
  if (s.Has(api.DeviceGetEnforcedPowerLimit) &&
      s.Ok(api.DeviceGetEnforcedPowerLimit(d.handle, &mw), "nvmlDeviceGetEnforcedPowerLimit")) {
    s.out().Add("power_limit_mw", mw);
  }
  if (s.failed()) return;
  unsigned long long mj = 0;
  if (s.Has(api.DeviceGetTotalEnergyConsumption) &&
      s.Ok(api.DeviceGetTotalEnergyConsumption(d.handle, &mj),
           "nvmlDeviceGetTotalEnergyConsumption")) {
    s.out().Add("energy_consumed_mj", static_cast<double>(mj));
  }
}

void ReadThermalAndClocks(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  unsigned v = 0;
  if (s.Has(api.DeviceGetTemperature) &&
      s.Ok(api.DeviceGetTemperature(d.handle, NVML_TEMPERATURE_GPU, &v),
           "nvmlDeviceGetTemperature")) {
    s.out().Add("temperature_c", v, Labels{{"sensor", "gpu"}});
  }
  if (s.failed() || !s.Has(api.DeviceGetClockInfo)) return;
  static constexpr struct {
    nvmlClockType_t type;
    const char* domain;
  } kClocks[] = {{NVML_CLOCK_SM, "sm"},
                 {NVML_CLOCK_MEM, "memory"},
                 {NVML_CLOCK_GRAPHICS, "graphics"},
                 {NVML_CLOCK_VIDEO, "video"}};
  for (const auto& c : kClocks) {
    if (s.Ok(api.DeviceGetClockInfo(d.handle, c.type, &v), "nvmlDeviceGetClockInfo")) {
      s.out().Add("clock_mhz", v, Labels{{"domain", c.domain}});
    }
    if (s.failed()) return;
  }
}

void ReadReliability(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  unsigned replays = 0;
  if (s.Has(api.DeviceGetPcieReplayCounter) &&
      s.Ok(api.DeviceGetPcieReplayCounter(d.handle, &replays), "nvmlDeviceGetPcieReplayCounter")) {
    s.out().Add("pcie_replay_count", replays);
  }
  if (s.failed()) return;
  // Needs ECC enabled; NOT_SUPPORTED otherwise.
  if (s.Has(api.DeviceGetTotalEccErrors)) {
    static constexpr struct {
      nvmlMemoryErrorType_t type;
      nvmlEccCounterType_t counter;
      const char* severity;
      const char* scope;
    } kEcc[] = {
        {NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, "corrected", "volatile"},
        {NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, "uncorrected", "volatile"},
        {NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, "corrected", "aggregate"},
        {NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, "uncorrected", "aggregate"},
    };
    for (const auto& e : kEcc) {
      unsigned long long n = 0;
      if (s.Ok(api.DeviceGetTotalEccErrors(d.handle, e.type, e.counter, &n),
               "nvmlDeviceGetTotalEccErrors")) {
        s.out().Add("ecc_errors", static_cast<double>(n),
                    Labels{{"severity", e.severity}, {"scope", e.scope}});
      }
      if (s.failed()) return;
    }
  }
  unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
  if (s.Has(api.DeviceGetRemappedRows) &&
      s.Ok(api.DeviceGetRemappedRows(d.handle, &corrected, &uncorrected, &pending, &failure),
           "nvmlDeviceGetRemappedRows")) {
    s.out().Add("remapped_rows", corrected, Labels{{"severity", "corrected"}});
    s.out().Add("remapped_rows", uncorrected, Labels{{"severity", "uncorrected"}});
    s.out().Add("row_remap_failed", failure != 0 ? 1 : 0);
  }
}

void ReadClockEventReasons(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  unsigned long long mask = 0;
  if (!s.Has(api.DeviceGetCurrentClocksEventReasons) ||
      !s.Ok(api.DeviceGetCurrentClocksEventReasons(d.handle, &mask),
            "nvmlDeviceGetCurrentClocksEventReasons")) {
    return;
  }
  static constexpr struct {
    unsigned long long bit;
    const char* reason;
  } kReasons[] = {
      {kNvmlClocksEventGpuIdle, "idle"},
      {kNvmlClocksEventApplicationsClocks, "applications_clocks"},
      {kNvmlClocksEventSwPowerCap, "power"},
      {kNvmlClocksEventHwSlowdown, "hw_slowdown"},
      {kNvmlClocksEventSyncBoost, "sync_boost"},
      {kNvmlClocksEventSwThermal, "thermal"},
      {kNvmlClocksEventHwThermal, "hw_thermal"},
      {kNvmlClocksEventHwPowerBrake, "hw_power_brake"},
      {kNvmlClocksEventDisplayClock, "display_clock"},
  };
  // One series per active reason; inactive reasons are simply absent.
  for (const auto& r : kReasons) {
    if ((mask & r.bit) != 0)
      s.out().Add("clock_event_reason_active", 1, Labels{{"reason", r.reason}});
  }
}

namespace {

double FieldAsDouble(const nvmlFieldValue_t& f) {
  switch (f.valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
      return f.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return f.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return static_cast<double>(f.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return static_cast<double>(f.value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      return static_cast<double>(f.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT:
      return f.value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return f.value.usVal;
  }
  return static_cast<double>(f.value.ullVal);
}

nvmlFieldValue_t Field(unsigned id, unsigned scope = 0) {
  nvmlFieldValue_t f{};
  f.fieldId = id;
  f.scopeId = scope;
  return f;
}

struct ThrottleField {
  unsigned id;
  const char* reason;
};
constexpr ThrottleField kThrottleFields[] = {
    {kFiPerfPolicyPower, "power"},
    {kFiPerfPolicyThermal, "thermal"},
    {kFiPerfPolicySyncBoost, "sync_boost"},
    {kFiPerfPolicyBoardLimit, "board_limit"},
    {kFiPerfPolicyLowUtil, "low_utilization"},
    {kFiPerfPolicyReliability, "reliability"},
};

// NVLink links of the device, asked once (field 91); 0 when unsupported.
void LearnNvlinkCount(NvmlDevice& d, NvmlCallScope& s) {
  if (d.nvlink_count >= 0) return;
  nvmlFieldValue_t f = Field(kFiNvlinkLinkCount);
  if (!s.Ok(s.api().DeviceGetFieldValues(d.handle, 1, &f), "nvmlDeviceGetFieldValues")) return;
  d.nvlink_count = 0;
  if (f.nvmlReturn == NVML_SUCCESS) {
    double n = FieldAsDouble(f);
    // NVSwitch systems have at most 18 links per GPU today; bound it anyway.
    if (n > 0 && n <= 64) d.nvlink_count = static_cast<int>(n);
  }
}

void ReadPcieThroughput(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  if (!s.Has(api.DeviceGetPcieThroughput)) return;
  unsigned kib_per_s = 0;
  if (s.Ok(api.DeviceGetPcieThroughput(d.handle, NVML_PCIE_UTIL_TX_BYTES, &kib_per_s),
           "nvmlDeviceGetPcieThroughput")) {
    s.out().Add("pcie_tx_kib_per_s", kib_per_s);
  }
  if (s.failed()) return;
  if (s.Ok(api.DeviceGetPcieThroughput(d.handle, NVML_PCIE_UTIL_RX_BYTES, &kib_per_s),
           "nvmlDeviceGetPcieThroughput")) {
    s.out().Add("pcie_rx_kib_per_s", kib_per_s);
  }
}

}  // namespace

void ReadFieldValues(NvmlDevice& d, NvmlCallScope& s) {
  const NvmlApi& api = s.api();
  if (!s.Has(api.DeviceGetFieldValues)) {
    // The 20 ms PCIe throughput window is noisy, but better than nothing.
    ReadPcieThroughput(d, s);
    return;
  }
  LearnNvlinkCount(d, s);
  if (s.failed()) return;

  std::vector<nvmlFieldValue_t> fields = {Field(kFiMemoryTemp), Field(kFiPcieCountTxBytes),
                                          Field(kFiPcieCountRxBytes)};
  for (const ThrottleField& t : kThrottleFields) fields.push_back(Field(t.id));
  for (int link = 0; link < d.nvlink_count; ++link) {
    fields.push_back(Field(kFiNvlinkThroughputDataTx, static_cast<unsigned>(link)));
    fields.push_back(Field(kFiNvlinkThroughputDataRx, static_cast<unsigned>(link)));
  }
  if (!s.Ok(api.DeviceGetFieldValues(d.handle, static_cast<int>(fields.size()), fields.data()),
            "nvmlDeviceGetFieldValues")) {
    return;
  }
  bool have_pcie_counters = false;
  for (const nvmlFieldValue_t& f : fields) {
    if (!s.Ok(f.nvmlReturn, "nvmlDeviceGetFieldValues(field " + std::to_string(f.fieldId) + ")")) {
      if (s.failed()) return;
      continue;
    }
    double v = FieldAsDouble(f);
    switch (f.fieldId) {
      case kFiMemoryTemp:
        s.out().Add("temperature_c", v, Labels{{"sensor", "memory"}});
        break;
      case kFiPcieCountTxBytes:
        s.out().Add("pcie_tx_bytes", v);
        have_pcie_counters = true;
        break;
      case kFiPcieCountRxBytes:
        s.out().Add("pcie_rx_bytes", v);
        have_pcie_counters = true;
        break;
      case kFiNvlinkThroughputDataTx:
        s.out().Add("nvlink_tx_kib", v, Labels{{"link", std::to_string(f.scopeId)}});
        break;
      case kFiNvlinkThroughputDataRx:
        s.out().Add("nvlink_rx_kib", v, Labels{{"link", std::to_string(f.scopeId)}});
        break;
      default:
        for (const ThrottleField& t : kThrottleFields) {
          if (t.id == f.fieldId) s.out().Add("throttle_ns", v, Labels{{"reason", t.reason}});
        }
        break;
    }
  }
  if (!have_pcie_counters) ReadPcieThroughput(d, s);
}

}  // namespace gpufleet
