// Fake librocm_smi64.so: exports the ROCm SMI symbols gpufleet uses, with the
// types of the Debian header <rocm_smi/rocm_smi.h> (the real contract), and
// scripted values in ROCm SMI's own units (uW, millidegrees, Hz) for:
//   device 0: "AMD Instinct MI300X" (whole GPU: 5.2.3 has no partitions)
//   device 1: "AMD Instinct MI250X" (edge, junction and memory sensors)
// Failure injection per device: FakeRocmSmi_* control functions, or the
// config file named by $GPUFLEET_FAKE_ROCM_SMI_CONFIG (see
// tests/fakes/common/fake_faults.h).
// A lost device answers RSMI_STATUS_FILE_ERROR, as when its sysfs vanished.
#include <rocm_smi/rocm_smi.h>

#include <cstring>
#include <mutex>

#include "tests/fakes/common/fake_faults.h"

namespace {

constexpr int kGpus = 2;
constexpr uint64_t kGiB = 1ull << 30;

fake_common::FaultState<kGpus>& S() {
  static fake_common::FaultState<kGpus> s("GPUFLEET_FAKE_ROCM_SMI_CONFIG");
  return s;
}

double ElapsedSeconds() { return S().ElapsedSeconds(); }

rsmi_status_t Enter(uint32_t dv) {
  switch (S().Enter(dv < kGpus ? static_cast<int>(dv) : -1)) {
    case fake_common::Admission::kNotInitialized:
      return RSMI_INITIALIZATION_ERROR;
    case fake_common::Admission::kNoSuchDevice:
      return RSMI_STATUS_INVALID_ARGS;
    case fake_common::Admission::kLost:
      return RSMI_STATUS_FILE_ERROR;  // as when the device's sysfs vanished
    case fake_common::Admission::kOk:
      break;
  }
  return RSMI_STATUS_SUCCESS;
}

#define ENTER(dv)                                                  \
  if (rsmi_status_t rc_ = Enter(dv); rc_ != RSMI_STATUS_SUCCESS) { \
    return rc_;                                                    \
  }

using fake_common::CopyString;

}  // namespace

FAKE_DEFINE_FAULT_CONTROLS(FakeRocmSmi_, S)

extern "C" {

// ---- ROCm SMI ABI ----

rsmi_status_t rsmi_init(uint64_t /*flags*/) { return static_cast<rsmi_status_t>(S().Init()); }

rsmi_status_t rsmi_shut_down(void) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().initialized = false;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t* n) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().ReloadConfig();
  if (!S().initialized) return RSMI_INITIALIZATION_ERROR;
  *n = static_cast<uint32_t>(S().faults.device_count);
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_version_str_get(rsmi_sw_component_t component, char* buf, uint32_t len) {
  if (component != RSMI_SW_COMP_DRIVER) return RSMI_STATUS_INVALID_ARGS;
  CopyString(buf, len, "6.8.5");
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv, char* name, size_t len) {
  ENTER(dv);
  CopyString(name, len, dv == 0 ? "AMD Instinct MI300X" : "AMD Instinct MI250X");
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv, uint64_t* id) {
  ENTER(dv);
  *id = dv == 0 ? 0x5ab1d2c3e4f50617ull : 0x1c2d3e4f5a6b7c8dull;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t* bdfid) {
  ENTER(dv);
  uint64_t bus = dv == 0 ? 0x0c : 0x29;
  *bdfid = (uint64_t{0} << 32) | (bus << 8) | (0u << 3) | 0u;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t* pct) {
  ENTER(dv);
  *pct = dv == 0 ? 71 : 38;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv, uint32_t* pct) {
  ENTER(dv);
  *pct = dv == 0 ? 24 : 9;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, rsmi_memory_type_t type, uint64_t* total) {
  ENTER(dv);
  if (type != RSMI_MEM_TYPE_VRAM) return RSMI_STATUS_NOT_SUPPORTED;
  *total = dv == 0 ? 192 * kGiB : 64 * kGiB;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, rsmi_memory_type_t type, uint64_t* used) {
  ENTER(dv);
  if (type != RSMI_MEM_TYPE_VRAM) return RSMI_STATUS_NOT_SUPPORTED;
  *used = dv == 0 ? 40 * kGiB : 2 * kGiB;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t* uw) {
  ENTER(dv);
  if (sensor != 0) return RSMI_STATUS_INVALID_ARGS;
  *uw = dv == 0 ? 545000000ull : 298000000ull;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t* uw) {
  ENTER(dv);
  if (sensor != 0) return RSMI_STATUS_INVALID_ARGS;
  *uw = dv == 0 ? 750000000ull : 500000000ull;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_energy_count_get(uint32_t dv, uint64_t* counter, float* resolution,
                                        uint64_t* timestamp) {
  ENTER(dv);
  const float kResolution = 15.259f;
  double watts = dv == 0 ? 545 : 298;
  double joules = 2.0e6 + watts * ElapsedSeconds();
  *counter = static_cast<uint64_t>(joules * 1e6 / kResolution);
  *resolution = kResolution;
  *timestamp = static_cast<uint64_t>(ElapsedSeconds() * 1e9);
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor,
                                       rsmi_temperature_metric_t metric, int64_t* millic) {
  ENTER(dv);
  if (metric != RSMI_TEMP_CURRENT) return RSMI_STATUS_NOT_SUPPORTED;
  bool absurd = S().Absurd(static_cast<int>(dv));
  switch (sensor) {
    case RSMI_TEMP_TYPE_EDGE:
      if (dv == 0) return RSMI_STATUS_NOT_SUPPORTED;  // MI300X: no edge sensor
      *millic = 40000;
      return RSMI_STATUS_SUCCESS;
    case RSMI_TEMP_TYPE_JUNCTION:
      *millic = absurd ? 60000000 : (dv == 0 ? 64000 : 47000);
      return RSMI_STATUS_SUCCESS;
    case RSMI_TEMP_TYPE_MEMORY:
      *millic = dv == 0 ? 52000 : 54000;
      return RSMI_STATUS_SUCCESS;
    default:
      return RSMI_STATUS_NOT_SUPPORTED;
  }
}

rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv, rsmi_clk_type_t type, rsmi_frequencies_t* f) {
  ENTER(dv);
  std::memset(f, 0, sizeof(*f));
  uint64_t mhz_levels[3] = {};
  switch (type) {
    case RSMI_CLK_TYPE_SYS:
      mhz_levels[0] = 500, mhz_levels[1] = 1500, mhz_levels[2] = dv == 0 ? 2100 : 1700;
      break;
    case RSMI_CLK_TYPE_MEM:
      mhz_levels[0] = 900, mhz_levels[1] = 1200, mhz_levels[2] = dv == 0 ? 1300 : 1600;
      break;
    case RSMI_CLK_TYPE_SOC:
      mhz_levels[0] = 600, mhz_levels[1] = 900, mhz_levels[2] = 1143;
      break;
    default:
      return RSMI_STATUS_NOT_SUPPORTED;
  }
  f->num_supported = 3;
  f->current = 2;
  for (int i = 0; i < 3; ++i) f->frequency[i] = mhz_levels[i] * 1000000;  // Hz
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_ecc_count_get(uint32_t dv, rsmi_gpu_block_t block, rsmi_error_count_t* ec) {
  ENTER(dv);
  if (block != RSMI_GPU_BLOCK_UMC && block != RSMI_GPU_BLOCK_GFX) {
    return RSMI_STATUS_NOT_SUPPORTED;
  }
  ec->correctable_err = (dv == 0 && block == RSMI_GPU_BLOCK_UMC) ? 5 : 0;
  ec->uncorrectable_err = 0;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_pci_replay_counter_get(uint32_t dv, uint64_t* counter) {
  ENTER(dv);
  *counter = dv == 0 ? 1 : 0;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_pci_throughput_get(uint32_t dv, uint64_t* sent, uint64_t* received,
                                          uint64_t* max_pkt_sz) {
  ENTER(dv);  // the real call samples for 1 s; the fake answers at once
  if (sent != nullptr) *sent = dv == 0 ? 3000000000ull : 1000000ull;
  if (received != nullptr) *received = dv == 0 ? 1500000000ull : 2000000ull;
  if (max_pkt_sz != nullptr) *max_pkt_sz = 256;
  return RSMI_STATUS_SUCCESS;
}

}  // extern "C"
