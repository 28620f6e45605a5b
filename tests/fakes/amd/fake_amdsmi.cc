// Fake libamd_smi.so: exports the AMD SMI C symbols gpufleet uses (ABI as
// declared in src/collect/amdsmi_api.h) with scripted values for two
// physical GPUs:
//   GPU 0: "AMD Instinct MI300X" in CPX mode -> 8 processors (XCP 0..7);
//          board sensors (power, temperature, ...) answer on XCP 0 only.
//   GPU 1: "AMD Instinct MI250X" (one GCD), no compute partitions, no
//          current socket power (average only), UMC activity = 0xFFFF.
// Counters (energy, xGMI bytes) grow with time since load.
//
// Failure injection, per physical GPU: FakeAmdSmi_* control functions, or
// the config file named by $GPUFLEET_FAKE_AMDSMI_CONFIG, re-read when it
// changes (tests/fakes/common/fake_faults.h lists both).
// Built twice: complete, and with FAKE_AMDSMI_PARTIAL (no energy, link
// metrics, violation status or process list symbols).
#include <algorithm>
#include <cstring>
#include <mutex>

#include "collect/amdsmi_api.h"
#include "tests/fakes/common/fake_faults.h"

using namespace amdsmi_abi;  // NOLINT(build/namespaces)

namespace {

constexpr int kGpus = 2;
constexpr int kXcps = 8;  // GPU 0 in CPX
constexpr uint64_t kGiB = 1ull << 30;

struct Proc {
  int gpu;
  int xcp;
};
// Processor handles are pointers into this table: GPU 0's 8 XCPs, then GPU 1.
Proc g_procs[kXcps + 1] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {1, 0}};
int g_sockets[kGpus] = {0, 1};

fake_common::FaultState<kGpus>& S() {
  static fake_common::FaultState<kGpus> s("GPUFLEET_FAKE_AMDSMI_CONFIG");
  return s;
}

[[maybe_unused]] double ElapsedSeconds() { return S().ElapsedSeconds(); }

// Common entry of every per-processor call: validates the handle, applies
// hang and loss injection. Returns SUCCESS and sets *p, or the status to return.
amdsmi_status_t Enter(amdsmi_processor_handle h, const Proc** p) {
  const Proc* proc = static_cast<const Proc*>(h);
  bool known = proc >= g_procs && proc < g_procs + (kXcps + 1);
  switch (S().Enter(known ? proc->gpu : -1)) {
    case fake_common::Admission::kNotInitialized:
      return AMDSMI_STATUS_NOT_INIT;
    case fake_common::Admission::kNoSuchDevice:
      return AMDSMI_STATUS_INVAL;
    case fake_common::Admission::kLost:
      return AMDSMI_STATUS_NOT_FOUND;
    case fake_common::Admission::kOk:
      break;
  }
  *p = proc;
  return AMDSMI_STATUS_SUCCESS;
}

#define ENTER(h)           \
  const Proc* p = nullptr; \
  if (amdsmi_status_t rc_ = Enter(h, &p); rc_ != AMDSMI_STATUS_SUCCESS) return rc_

bool IsMi300(const Proc* p) { return p->gpu == 0; }

// The list protocol of AMD SMI: without an array, how many there are;
// otherwise up to *count handles to first[0..n), and how many were written.
template <typename H, typename T>
amdsmi_status_t ListHandles(uint32_t* count, H* handles, T* first, uint32_t n) {
  if (handles != nullptr) {
    n = std::min(n, *count);
    for (uint32_t i = 0; i < n; ++i) handles[i] = first + i;
  }
  *count = n;
  return AMDSMI_STATUS_SUCCESS;
}

using fake_common::CopyString;

}  // namespace

FAKE_DEFINE_FAULT_CONTROLS(FakeAmdSmi_, S)

extern "C" {

// ---- AMD SMI ABI ----

amdsmi_status_t amdsmi_init(uint64_t /*flags*/) { return static_cast<amdsmi_status_t>(S().Init()); }

amdsmi_status_t amdsmi_shut_down() {
  std::lock_guard<std::mutex> lock(S().mu);
  S().initialized = false;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_socket_handles(uint32_t* count, amdsmi_socket_handle* handles) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().initialized) return AMDSMI_STATUS_NOT_INIT;
  if (count == nullptr) return AMDSMI_STATUS_INVAL;
  return ListHandles(count, handles, g_sockets, static_cast<uint32_t>(S().faults.device_count));
}

amdsmi_status_t amdsmi_get_processor_handles(amdsmi_socket_handle socket, uint32_t* count,
                                             amdsmi_processor_handle* handles) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().initialized) return AMDSMI_STATUS_NOT_INIT;
  if (count == nullptr || socket == nullptr) return AMDSMI_STATUS_INVAL;
  int gpu = *static_cast<int*>(socket);
  return gpu == 0 ? ListHandles(count, handles, &g_procs[0], kXcps)
                  : ListHandles(count, handles, &g_procs[kXcps], 1);
}

amdsmi_status_t amdsmi_get_processor_type(amdsmi_processor_handle h, processor_type_t* type) {
  ENTER(h);
  *type = AMDSMI_PROCESSOR_TYPE_AMD_GPU;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_device_bdf(amdsmi_processor_handle h, amdsmi_bdf_t* bdf) {
  ENTER(h);
  *bdf = IsMi300(p) ? amdsmi_bdf_t::Make(0, 0x0c, 0, 0) : amdsmi_bdf_t::Make(0, 0x29, 0, 0);
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_device_uuid(amdsmi_processor_handle h, unsigned int* len,
                                           char* uuid) {
  ENTER(h);
  const char* id =
      IsMi300(p) ? "8fff74a1-0000-1000-80b2-c9f1a3e5d701" : "3aff740c-0000-1000-8041-d2e4f6a8b9c1";
  if (*len < std::strlen(id) + 1) return AMDSMI_STATUS_INSUFFICIENT_SIZE;
  CopyString(uuid, *len, id);
  *len = static_cast<unsigned int>(std::strlen(id));
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_asic_info(amdsmi_processor_handle h, amdsmi_asic_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  CopyString(info->market_name, sizeof(info->market_name),
             IsMi300(p) ? "AMD Instinct MI300X" : "AMD Instinct MI250X");
  info->vendor_id = 0x1002;
  info->device_id = IsMi300(p) ? 0x74a1 : 0x740c;
  info->target_graphics_version = IsMi300(p) ? 90402 : 90010;
  info->num_of_compute_units = IsMi300(p) ? 38 : 110;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_board_info(amdsmi_processor_handle h, amdsmi_board_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  CopyString(info->product_name, sizeof(info->product_name),
             IsMi300(p) ? "AMD Instinct MI300X OAM" : "AMD Instinct MI250X OAM");
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_driver_info(amdsmi_processor_handle h, amdsmi_driver_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  CopyString(info->driver_version, sizeof(info->driver_version), "6.10.5");
  CopyString(info->driver_name, sizeof(info->driver_name), "amdgpu");
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_compute_partition(amdsmi_processor_handle h, char* buf,
                                                 uint32_t len) {
  ENTER(h);
  if (!IsMi300(p)) return AMDSMI_STATUS_NOT_SUPPORTED;
  if (len < 4) return AMDSMI_STATUS_INSUFFICIENT_SIZE;
  CopyString(buf, len, "CPX");
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_kfd_info(amdsmi_processor_handle h, amdsmi_kfd_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  info->kfd_id = static_cast<uint64_t>(p - g_procs) + 1000;
  info->node_id = static_cast<uint32_t>(p - g_procs) + 1;
  info->current_partition_id = IsMi300(p) ? static_cast<uint32_t>(p->xcp) : UINT32_MAX;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_activity(amdsmi_processor_handle h, amdsmi_engine_usage_t* u) {
  ENTER(h);
  std::memset(u, 0, sizeof(*u));
  if (IsMi300(p)) {
    u->gfx_activity = p->xcp == 0 ? 63 : static_cast<uint32_t>(10 * p->xcp);
    u->umc_activity = 21;
    u->mm_activity = 0;
  } else {
    u->gfx_activity = 45;
    u->umc_activity = UINT16_MAX;  // firmware "no value"
    u->mm_activity = UINT16_MAX;
  }
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_memory_total(amdsmi_processor_handle h, amdsmi_memory_type_t type,
                                            uint64_t* total) {
  ENTER(h);
  if (type != AMDSMI_MEM_TYPE_VRAM) return AMDSMI_STATUS_NOT_SUPPORTED;
  *total = IsMi300(p) ? 24 * kGiB : 64 * kGiB;  // CPX caps memory per XCP
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_memory_usage(amdsmi_processor_handle h, amdsmi_memory_type_t type,
                                            uint64_t* used) {
  ENTER(h);
  if (type != AMDSMI_MEM_TYPE_VRAM) return AMDSMI_STATUS_NOT_SUPPORTED;
  *used = IsMi300(p) ? (p->xcp == 0 ? 9 * kGiB : kGiB / 2) : kGiB;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_clock_info(amdsmi_processor_handle h, amdsmi_clk_type_t type,
                                      amdsmi_clk_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  uint32_t mhz = 0;
  switch (type) {
    case AMDSMI_CLK_TYPE_SYS:
      mhz = IsMi300(p) ? 2100 : 1700;
      break;
    case AMDSMI_CLK_TYPE_MEM:
      mhz = IsMi300(p) ? 1300 : 1600;
      break;
    case AMDSMI_CLK_TYPE_SOC:
      mhz = IsMi300(p) ? 1143 : 1090;
      break;
    case AMDSMI_CLK_TYPE_DF:
      mhz = IsMi300(p) ? 1600 : 1200;
      break;
    case AMDSMI_CLK_TYPE_VCLK0:
      if (!IsMi300(p)) return AMDSMI_STATUS_NOT_SUPPORTED;
      mhz = 1450;
      break;
    default:
      return AMDSMI_STATUS_NOT_SUPPORTED;
  }
  info->clk = mhz;
  info->min_clk = 500;
  info->max_clk = mhz + 100;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_power_info(amdsmi_processor_handle h, amdsmi_power_info_t* info) {
  ENTER(h);
  std::memset(info, 0xff, sizeof(*info));
  if (IsMi300(p)) {
    // Non-zero only on partition 0, as on real MI300 in CPX.
    uint32_t watts = p->xcp == 0 ? 520 : 0;
    info->socket_power = watts;
    info->current_socket_power = watts;
    info->average_socket_power = UINT32_MAX;
    info->power_limit = 750000000;  // uW
  } else {
    info->socket_power = 310;
    info->current_socket_power = UINT32_MAX;
    info->average_socket_power = 310;
    info->power_limit = 500000000;
  }
  info->gfx_voltage = 800;
  info->soc_voltage = 750;
  info->mem_voltage = 1100;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_temp_metric(amdsmi_processor_handle h, amdsmi_temperature_type_t type,
                                       amdsmi_temperature_metric_t metric, int64_t* value) {
  ENTER(h);
  if (metric != AMDSMI_TEMP_CURRENT) return AMDSMI_STATUS_NOT_SUPPORTED;
  bool absurd = S().Absurd(p->gpu);
  switch (type) {
    case AMDSMI_TEMPERATURE_TYPE_EDGE:
      if (IsMi300(p)) return AMDSMI_STATUS_NOT_SUPPORTED;  // MI300X has no edge sensor
      *value = 41;
      return AMDSMI_STATUS_SUCCESS;
    case AMDSMI_TEMPERATURE_TYPE_HOTSPOT:
      *value = absurd ? 60000 : (IsMi300(p) ? 62 : 49);
      return AMDSMI_STATUS_SUCCESS;
    case AMDSMI_TEMPERATURE_TYPE_VRAM:
      *value = IsMi300(p) ? 51 : 55;
      return AMDSMI_STATUS_SUCCESS;
    default:
      return AMDSMI_STATUS_NOT_SUPPORTED;
  }
}

amdsmi_status_t amdsmi_get_gpu_total_ecc_count(amdsmi_processor_handle h,
                                               amdsmi_error_count_t* ec) {
  ENTER(h);
  std::memset(ec, 0, sizeof(*ec));
  ec->correctable_count = IsMi300(p) ? 3 : 0;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_pcie_info(amdsmi_processor_handle h, amdsmi_pcie_info_t* info) {
  ENTER(h);
  std::memset(info, 0, sizeof(*info));
  info->pcie_static.max_pcie_width = 16;
  info->pcie_static.max_pcie_speed = 32000;
  info->pcie_metric.pcie_width = 16;
  info->pcie_metric.pcie_speed = IsMi300(p) ? 32000 : 16000;
  info->pcie_metric.pcie_replay_count = IsMi300(p) ? 2 : 0;
  return AMDSMI_STATUS_SUCCESS;
}

#ifndef FAKE_AMDSMI_PARTIAL

amdsmi_status_t amdsmi_get_energy_count(amdsmi_processor_handle h, uint64_t* acc,
                                        float* resolution_uj, uint64_t* timestamp_ns) {
  ENTER(h);
  const float kResolution = 15.259f;
  double watts = IsMi300(p) ? 520 : 310;
  double joules = 1.0e6 + watts * ElapsedSeconds();  // since "driver load"
  *acc = static_cast<uint64_t>(joules * 1e6 / kResolution);
  *resolution_uj = kResolution;
  *timestamp_ns = static_cast<uint64_t>(ElapsedSeconds() * 1e9);
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_link_metrics(amdsmi_processor_handle h, amdsmi_link_metrics_t* m) {
  ENTER(h);
  std::memset(m, 0, sizeof(*m));
  uint64_t grown_kb = static_cast<uint64_t>(ElapsedSeconds() * 1e6);  // ~1 GB/s
  if (IsMi300(p)) {
    m->num_links = 7;  // 8 GPUs fully connected
    for (uint32_t i = 0; i < 7; ++i) {
      m->links[i].bdf = amdsmi_bdf_t::Make(0, 0x1c + 0x10 * i, 0, 0);
      m->links[i].bit_rate = 32;
      m->links[i].max_bandwidth = 64;
      m->links[i].link_type = AMDSMI_LINK_TYPE_XGMI;
      m->links[i].read = 5000000 + i * 1000 + grown_kb;
      m->links[i].write = 4000000 + i * 1000 + grown_kb;
      m->links[i].link_status = AMDSMI_LINK_STATUS_ENABLED;
    }
  } else {
    m->num_links = 4;
    for (uint32_t i = 0; i < 4; ++i) {
      m->links[i].bdf = amdsmi_bdf_t::Make(0, 0x2a + i, 0, 0);
      m->links[i].link_type = i == 3 ? AMDSMI_LINK_TYPE_PCIE : AMDSMI_LINK_TYPE_XGMI;
      m->links[i].read = 700000 + grown_kb;
      m->links[i].write = 600000 + grown_kb;
    }
  }
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_process_list(amdsmi_processor_handle h, uint32_t* max,
                                            amdsmi_proc_info_t* list) {
  ENTER(h);
  uint32_t n = (IsMi300(p) && p->xcp == 0) ? 1 : 0;
  if (list == nullptr || *max < n) {
    *max = n;
    return n == 0 ? AMDSMI_STATUS_SUCCESS : AMDSMI_STATUS_MORE_DATA;
  }
  if (n == 1) {
    std::memset(&list[0], 0, sizeof(list[0]));
    CopyString(list[0].name, sizeof(list[0].name), "python3");
    list[0].pid = 4242;
    list[0].mem = 8 * kGiB;
    list[0].memory_usage.vram_mem = 8 * kGiB;
    list[0].cu_occupancy = 30;
  }
  *max = n;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_violation_status(amdsmi_processor_handle h,
                                            amdsmi_violation_status_t* v) {
  ENTER(h);
  if (!IsMi300(p)) return AMDSMI_STATUS_NOT_SUPPORTED;  // MI3x and later only
  std::memset(v, 0xff, sizeof(*v));
  v->active_ppt_pwr = 1;
  v->active_socket_thrm = 0;
  v->active_prochot_thrm = 0;
  v->active_vr_thrm = 0;
  v->active_hbm_thrm = 0;
  return AMDSMI_STATUS_SUCCESS;
}

#endif  // FAKE_AMDSMI_PARTIAL

}  // extern "C"
