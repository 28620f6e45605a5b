// The hardware catalog (data/hardware.toml): per GPU model, the published
// capabilities used by the simulator, placement and cost: memory, bandwidth,
// peak FLOP/s, power, interconnect, clocks; and the names of PCI device ids,
// for collectors that find only the id (sysfs).
//
// Thread safety: immutable after construction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/vendor.h"

namespace gpufleet {

struct GpuModelSpec {
  std::string key;            // short id used in scenario files, e.g. "h100-sxm"
  Vendor vendor = Vendor::kUnknown;
  std::string name;           // as the vendor library reports it, e.g. "NVIDIA H100 80GB HBM3"
  std::string arch;           // "sm_90", "gfx942", "xe-hpc"
  uint64_t memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double peak_bf16_flops = 0;
  double peak_fp16_flops = 0;
  double peak_fp32_flops = 0;
  double peak_fp64_flops = 0;
  double peak_fp8_flops = 0;  // 0 = unsupported
  double tdp_watts = 0;
  double idle_watts = 0;
  double max_sm_clock_hz = 0;
  double memory_clock_hz = 0;
  int compute_units = 0;      // SMs / CUs / Xe cores
  std::string interconnect;   // "nvlink4", "xgmi", "xelink", "pcie"
  int interconnect_links = 0;
  double interconnect_bytes_per_s = 0;  // per direction, all links
  double pcie_bytes_per_s = 0;          // per direction
  // The share of memory_bandwidth_bytes_per_s a streaming kernel measurably
  // reaches (BabelStream-like; 0 = no measurement in the catalog), and where
  // that measurement comes from.
  double stream_bandwidth_ratio = 0;
  std::string stream_source;
  std::string source;         // where the figures come from
};

// A PCI device id a collector may find without a marketing name (sysfs
// shows one only when the board exposes product_name).
struct PciDeviceSpec {
  Vendor vendor = Vendor::kUnknown;
  uint32_t device_id = 0;  // e.g. 0x74a1
  std::string name;        // as the sysfs collectors report it, e.g. "AMD Instinct MI300X"
  std::string arch;        // "" when the entry names none
  std::string gpu;         // key of the part's GpuModelSpec; "" when the catalog has none
};

class HardwareCatalog {
 public:
  static StatusOr<HardwareCatalog> Parse(std::string_view toml, std::string_view origin);
  static const HardwareCatalog& Default();

  // By key ("h100-sxm") or by exact vendor name; nullptr when unknown.
  const GpuModelSpec* Find(std::string_view key_or_name) const;
  const std::vector<GpuModelSpec>& models() const { return models_; }
  // By (vendor, PCI device id); nullptr when unknown.
  const PciDeviceSpec* FindPciDevice(Vendor vendor, uint32_t device_id) const;
  const std::vector<PciDeviceSpec>& pci_devices() const { return pci_devices_; }

 private:
  std::vector<GpuModelSpec> models_;
  std::vector<PciDeviceSpec> pci_devices_;
};

}  // namespace gpufleet
