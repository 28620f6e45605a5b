// The subset of the AMD SMI C ABI (libamd_smi.so, header amd_smi/amdsmi.h)
// that gpufleet calls. Debian ships no amdsmi.h, so these declarations are
// written by us from the documented header (ROCm amdsmi, library major
// version 26; gpufleet's reference notes cite therock-10.0.0a20260730).
//
// HONESTY NOTE: every struct below is declared from the documented header,
// not compiled against it. All layouts live in this one file so they can be
// checked side by side against a real amdsmi.h (same member order, widths,
// array sizes, trailing reserved words). AMD has changed some of these
// structs between major versions (e.g. amdsmi_power_info_t grew 64-bit
// members); a library whose major version differs may not match. The fake
// library in tests/fakes/amd/ includes this header, so tests check our code
// against our declarations, not against AMD's binary.
//
// Units (bare-metal Linux): activity %, socket power W, power_limit uW,
// temperatures C, clocks MHz, memory bytes, energy = accumulator x
// resolution uJ, link read/write KB. Unsupported members are UINT32_MAX
// (power), UINT16_MAX / UINT32_MAX (activity), UINT64_MAX / UINT8_MAX
// (violation status).
//
// Private to src/collect/amdsmi_* and the fake library; never include it from
// a public header.
#pragma once

#include <cstdint>

namespace amdsmi_abi {

constexpr int kMaxStringLength = 256;        // AMDSMI_MAX_STRING_LENGTH
constexpr int kMaxNumXgmiPhysicalLink = 64;  // AMDSMI_MAX_NUM_XGMI_PHYSICAL_LINK
constexpr int kMaxNumXcp = 8;                // AMDSMI_MAX_NUM_XCP
constexpr int kMaxNumXcc = 8;                // AMDSMI_MAX_NUM_XCC
constexpr int kGpuUuidSize = 38;             // AMDSMI_GPU_UUID_SIZE
constexpr uint64_t kInitAmdGpus = 1u << 1;   // AMDSMI_INIT_AMD_GPUS

using amdsmi_processor_handle = void*;
using amdsmi_socket_handle = void*;

enum amdsmi_status_t : uint32_t {
  AMDSMI_STATUS_SUCCESS = 0,
  AMDSMI_STATUS_INVAL = 1,
  AMDSMI_STATUS_NOT_SUPPORTED = 2,
  AMDSMI_STATUS_NOT_YET_IMPLEMENTED = 3,
  AMDSMI_STATUS_FAIL_LOAD_MODULE = 4,
  AMDSMI_STATUS_FAIL_LOAD_SYMBOL = 5,
  AMDSMI_STATUS_DRM_ERROR = 6,
  AMDSMI_STATUS_API_FAILED = 7,
  AMDSMI_STATUS_TIMEOUT = 8,
  AMDSMI_STATUS_RETRY = 9,
  AMDSMI_STATUS_NO_PERM = 10,
  AMDSMI_STATUS_INTERRUPT = 11,
  AMDSMI_STATUS_IO = 12,
  AMDSMI_STATUS_ADDRESS_FAULT = 13,
  AMDSMI_STATUS_FILE_ERROR = 14,
  AMDSMI_STATUS_OUT_OF_RESOURCES = 15,
  AMDSMI_STATUS_INTERNAL_EXCEPTION = 16,
  AMDSMI_STATUS_INPUT_OUT_OF_BOUNDS = 17,
  AMDSMI_STATUS_INIT_ERROR = 18,
  AMDSMI_STATUS_REFCOUNT_OVERFLOW = 19,
  AMDSMI_STATUS_DIRECTORY_NOT_FOUND = 20,
  AMDSMI_STATUS_BUSY = 30,
  AMDSMI_STATUS_NOT_FOUND = 31,
  AMDSMI_STATUS_NOT_INIT = 32,
  AMDSMI_STATUS_NO_SLOT = 33,
  AMDSMI_STATUS_DRIVER_NOT_LOADED = 34,
  AMDSMI_STATUS_MORE_DATA = 39,
  AMDSMI_STATUS_NO_DATA = 40,
  AMDSMI_STATUS_INSUFFICIENT_SIZE = 41,
  AMDSMI_STATUS_UNEXPECTED_SIZE = 42,
  AMDSMI_STATUS_UNEXPECTED_DATA = 43,
  AMDSMI_STATUS_MAP_ERROR = 0xFFFFFFFE,
  AMDSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF,
};

enum processor_type_t : uint32_t {
  AMDSMI_PROCESSOR_TYPE_UNKNOWN = 0,
  AMDSMI_PROCESSOR_TYPE_AMD_GPU = 1,
  AMDSMI_PROCESSOR_TYPE_AMD_CPU = 2,
};

enum amdsmi_clk_type_t : uint32_t {
  AMDSMI_CLK_TYPE_SYS = 0,  // == AMDSMI_CLK_TYPE_GFX
  AMDSMI_CLK_TYPE_DF = 1,
  AMDSMI_CLK_TYPE_DCEF = 2,
  AMDSMI_CLK_TYPE_SOC = 3,
  AMDSMI_CLK_TYPE_MEM = 4,
  AMDSMI_CLK_TYPE_PCIE = 5,
  AMDSMI_CLK_TYPE_VCLK0 = 6,
};

enum amdsmi_temperature_type_t : uint32_t {
  AMDSMI_TEMPERATURE_TYPE_EDGE = 0,
  AMDSMI_TEMPERATURE_TYPE_HOTSPOT = 1,  // == JUNCTION
  AMDSMI_TEMPERATURE_TYPE_VRAM = 2,
  AMDSMI_TEMPERATURE_TYPE_HBM_0 = 3,
};

enum amdsmi_temperature_metric_t : uint32_t {
  AMDSMI_TEMP_CURRENT = 0,
};

enum amdsmi_memory_type_t : uint32_t {
  AMDSMI_MEM_TYPE_VRAM = 0,
  AMDSMI_MEM_TYPE_VIS_VRAM = 1,
  AMDSMI_MEM_TYPE_GTT = 2,
};

enum amdsmi_link_type_t : uint32_t {
  AMDSMI_LINK_TYPE_INTERNAL = 0,
  AMDSMI_LINK_TYPE_PCIE = 1,
  AMDSMI_LINK_TYPE_XGMI = 2,
  AMDSMI_LINK_TYPE_NOT_APPLICABLE = 3,
  AMDSMI_LINK_TYPE_UNKNOWN = 4,
};

enum amdsmi_link_status_t : uint32_t {
  AMDSMI_LINK_STATUS_ENABLED = 0,
  AMDSMI_LINK_STATUS_DISABLED = 1,
  AMDSMI_LINK_STATUS_INACTIVE = 2,
  AMDSMI_LINK_STATUS_ERROR = 3,
};

enum amdsmi_card_form_factor_t : uint32_t {
  AMDSMI_CARD_FORM_FACTOR_PCIE = 0,
  AMDSMI_CARD_FORM_FACTOR_OAM = 1,
};

// The real header declares a union of a 3/5/8/48-bit bitfield struct and
// `uint64_t as_uint`; GCC lays the bitfields out from bit 0, so decoding
// as_uint by shifts is the same ABI without a pedantic anonymous struct.
struct amdsmi_bdf_t {
  uint64_t as_uint;
  uint32_t function() const { return static_cast<uint32_t>(as_uint & 0x7); }
  uint32_t device() const { return static_cast<uint32_t>((as_uint >> 3) & 0x1f); }
  uint32_t bus() const { return static_cast<uint32_t>((as_uint >> 8) & 0xff); }
  uint64_t domain() const { return as_uint >> 16; }
  static amdsmi_bdf_t Make(uint64_t domain, uint32_t bus, uint32_t device, uint32_t function) {
    return amdsmi_bdf_t{(domain << 16) | (uint64_t{bus & 0xff} << 8) |
                        (uint64_t{device & 0x1f} << 3) | (function & 0x7)};
  }
};

struct amdsmi_asic_info_t {
  char market_name[kMaxStringLength];
  uint32_t vendor_id;
  char vendor_name[kMaxStringLength];
  uint32_t subvendor_id;
  uint64_t device_id;
  uint32_t rev_id;
  char asic_serial[kMaxStringLength];
  uint32_t oam_id;
  uint32_t num_of_compute_units;
  uint64_t target_graphics_version;  // e.g. 90402 -> gfx942; UINT64_MAX if unsupported
  uint32_t subsystem_id;
  uint64_t flags;
  uint32_t reserved[18];
};

struct amdsmi_board_info_t {
  char model_number[kMaxStringLength];
  char product_serial[kMaxStringLength];
  char fru_id[kMaxStringLength];
  char product_name[kMaxStringLength];
  char manufacturer_name[kMaxStringLength];
  uint64_t reserved[64];
};

struct amdsmi_driver_info_t {
  char driver_version[kMaxStringLength];
  char driver_date[kMaxStringLength];
  char driver_name[kMaxStringLength];
};

struct amdsmi_power_info_t {
  uint64_t socket_power;          // W on bare metal, uW on a host
  uint32_t current_socket_power;  // W, MI300+; UINT32_MAX when unsupported
  uint32_t average_socket_power;  // W, MI200 and earlier, Navi
  uint64_t gfx_voltage;           // mV
  uint64_t soc_voltage;           // mV
  uint64_t mem_voltage;           // mV
  uint32_t power_limit;           // uW
  uint32_t ubb_power;             // W, MI350X+
  uint64_t reserved[18];
};

struct amdsmi_clk_info_t {
  uint32_t clk;  // MHz
  uint32_t min_clk;
  uint32_t max_clk;
  uint8_t clk_locked;
  uint8_t clk_deep_sleep;
  uint32_t reserved[4];
};

struct amdsmi_engine_usage_t {
  uint32_t gfx_activity;  // %
  uint32_t umc_activity;  // %
  uint32_t mm_activity;   // %
  uint32_t reserved[13];
};

struct amdsmi_error_count_t {
  uint64_t correctable_count;
  uint64_t uncorrectable_count;
  uint64_t deferred_count;
  uint64_t reserved[5];
};

struct amdsmi_pcie_info_t {
  struct pcie_static_ {
    uint16_t max_pcie_width;
    uint32_t max_pcie_speed;  // MT/s
    uint32_t pcie_interface_version;
    amdsmi_card_form_factor_t slot_type;
    uint32_t max_pcie_interface_version;
    uint64_t reserved[9];
  } pcie_static;
  struct pcie_metric_ {
    uint16_t pcie_width;
    uint32_t pcie_speed;      // MT/s
    uint32_t pcie_bandwidth;  // Mb/s, instantaneous
    uint64_t pcie_replay_count;
    uint64_t pcie_l0_to_recovery_count;
    uint64_t pcie_replay_roll_over_count;
    uint64_t pcie_nak_sent_count;
    uint64_t pcie_nak_received_count;
    uint32_t pcie_lc_perf_other_end_recovery_count;
    uint64_t reserved[12];
  } pcie_metric;
  uint64_t reserved[32];
};

struct amdsmi_link_metrics_t {
  uint32_t num_links;
  struct _links {
    amdsmi_bdf_t bdf;        // peer
    uint32_t bit_rate;       // Gb/s
    uint32_t max_bandwidth;  // Gb/s
    amdsmi_link_type_t link_type;
    uint64_t read;   // KB received, accumulated
    uint64_t write;  // KB sent, accumulated
    amdsmi_link_status_t link_status;
    uint64_t reserved[1];
  } links[kMaxNumXgmiPhysicalLink];
  uint64_t reserved[7];
};

struct amdsmi_proc_info_t {
  char name[kMaxStringLength];
  uint32_t pid;
  uint64_t mem;  // bytes
  struct engine_usage_ {
    uint64_t gfx;  // ns
    uint64_t enc;  // ns
    uint32_t reserved[12];
  } engine_usage;
  struct memory_usage_ {
    uint64_t gtt_mem;
    uint64_t cpu_mem;
    uint64_t vram_mem;  // bytes
    uint32_t reserved[10];
  } memory_usage;
  char container_name[kMaxStringLength];
  uint32_t cu_occupancy;
  uint32_t evicted_time;
  uint64_t sdma_usage;
  uint32_t reserved[8];
};

struct amdsmi_kfd_info_t {
  uint64_t kfd_id;
  uint32_t node_id;
  uint32_t current_partition_id;  // XCP index; UINT32_MAX if unsupported
  uint32_t reserved[12];
};

// MI300+ only; older parts answer NOT_SUPPORTED. UINT64_MAX / UINT8_MAX
// members mean unsupported.
struct amdsmi_violation_status_t {
  uint64_t reference_timestamp;
  uint64_t violation_timestamp;
  uint64_t acc_counter;
  uint64_t acc_prochot_thrm;
  uint64_t acc_ppt_pwr;
  uint64_t acc_socket_thrm;
  uint64_t acc_vr_thrm;
  uint64_t acc_hbm_thrm;
  uint64_t acc_gfx_clk_below_host_limit;
  uint64_t per_prochot_thrm;
  uint64_t per_ppt_pwr;
  uint64_t per_socket_thrm;
  uint64_t per_vr_thrm;
  uint64_t per_hbm_thrm;
  uint64_t per_gfx_clk_below_host_limit;
  uint8_t active_prochot_thrm;
  uint8_t active_ppt_pwr;
  uint8_t active_socket_thrm;
  uint8_t active_vr_thrm;
  uint8_t active_hbm_thrm;
  uint8_t active_gfx_clk_below_host_limit;
  uint64_t acc_gfx_clk_below_host_limit_pwr[kMaxNumXcp][kMaxNumXcc];
  uint64_t acc_gfx_clk_below_host_limit_thm[kMaxNumXcp][kMaxNumXcc];
  uint64_t acc_low_utilization[kMaxNumXcp][kMaxNumXcc];
  uint64_t acc_gfx_clk_below_host_limit_total[kMaxNumXcp][kMaxNumXcc];
  uint64_t per_gfx_clk_below_host_limit_pwr[kMaxNumXcp][kMaxNumXcc];
  uint64_t per_gfx_clk_below_host_limit_thm[kMaxNumXcp][kMaxNumXcc];
  uint64_t per_low_utilization[kMaxNumXcp][kMaxNumXcc];
  uint64_t per_gfx_clk_below_host_limit_total[kMaxNumXcp][kMaxNumXcc];
  uint8_t active_gfx_clk_below_host_limit_pwr[kMaxNumXcp][kMaxNumXcc];
  uint8_t active_gfx_clk_below_host_limit_thm[kMaxNumXcp][kMaxNumXcc];
  uint8_t active_low_utilization[kMaxNumXcp][kMaxNumXcc];
  uint8_t active_gfx_clk_below_host_limit_total[kMaxNumXcp][kMaxNumXcc];
  uint64_t reserved[kMaxNumXcp][kMaxNumXcc];
  uint64_t reserved2[kMaxNumXcp][kMaxNumXcc];
  uint64_t reserved3[kMaxNumXcp][kMaxNumXcc];
};

// Function types, one per symbol, named after the symbol.
extern "C" {
using amdsmi_init_fn = amdsmi_status_t(uint64_t init_flags);
using amdsmi_shut_down_fn = amdsmi_status_t();
using amdsmi_get_socket_handles_fn = amdsmi_status_t(uint32_t* socket_count,
                                                     amdsmi_socket_handle* socket_handles);
using amdsmi_get_processor_handles_fn = amdsmi_status_t(amdsmi_socket_handle socket,
                                                        uint32_t* processor_count,
                                                        amdsmi_processor_handle* processor_handles);
using amdsmi_get_processor_type_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                     processor_type_t* type);
using amdsmi_get_gpu_device_bdf_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_bdf_t*);
using amdsmi_get_gpu_device_uuid_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                      unsigned int* uuid_length, char* uuid);
using amdsmi_get_gpu_asic_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_asic_info_t*);
using amdsmi_get_gpu_board_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_board_info_t*);
using amdsmi_get_gpu_driver_info_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                      amdsmi_driver_info_t*);
using amdsmi_get_gpu_compute_partition_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                            char* compute_partition, uint32_t len);
using amdsmi_get_gpu_kfd_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_kfd_info_t*);
using amdsmi_get_gpu_activity_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_engine_usage_t*);
using amdsmi_get_power_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_power_info_t*);
using amdsmi_get_energy_count_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                   uint64_t* energy_accumulator,
                                                   float* counter_resolution_uj,
                                                   uint64_t* timestamp_ns);
using amdsmi_get_gpu_memory_usage_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                       amdsmi_memory_type_t, uint64_t* used);
using amdsmi_get_gpu_memory_total_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                       amdsmi_memory_type_t, uint64_t* total);
using amdsmi_get_temp_metric_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                  amdsmi_temperature_type_t,
                                                  amdsmi_temperature_metric_t, int64_t* value);
using amdsmi_get_clock_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_clk_type_t,
                                                 amdsmi_clk_info_t*);
using amdsmi_get_gpu_total_ecc_count_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                          amdsmi_error_count_t*);
using amdsmi_get_pcie_info_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_pcie_info_t*);
using amdsmi_get_link_metrics_fn = amdsmi_status_t(amdsmi_processor_handle, amdsmi_link_metrics_t*);
using amdsmi_get_gpu_process_list_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                       uint32_t* max_processes,
                                                       amdsmi_proc_info_t* list);
using amdsmi_get_violation_status_fn = amdsmi_status_t(amdsmi_processor_handle,
                                                       amdsmi_violation_status_t*);
}  // extern "C"

}  // namespace amdsmi_abi
