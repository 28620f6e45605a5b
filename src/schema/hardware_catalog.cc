#include "schema/hardware_catalog.h"

#include <optional>

#include "core/embedded.h"
#include "core/toml_reader.h"
#include "schema/device.h"

namespace gpufleet {

namespace {

// data/hardware.toml uses the units of vendor data sheets (GiB, GB/s,
// TFLOP/s, MHz) so entries can be checked against their source by eye;
// they are converted to base units here.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;
constexpr double kTera = 1e12;
constexpr double kMHz = 1e6;

StatusOr<GpuModelSpec> ParseModel(const toml::table& t, std::string_view origin) {
  GpuModelSpec m;
  std::string where = TomlWhere(origin, t);
  ASSIGN_OR_RETURN(m.key, RequiredString(t, "key", origin));
  ASSIGN_OR_RETURN(std::string vendor, RequiredString(t, "vendor", origin));
  m.vendor = ParseVendor(vendor);
  if (m.vendor == Vendor::kUnknown) {
    return InvalidArgumentError(where + "unknown vendor '" + vendor + "' for '" + m.key + "'");
  }
  ASSIGN_OR_RETURN(m.name, RequiredString(t, "name", origin));
  ASSIGN_OR_RETURN(m.arch, OptionalString(t, "arch", origin));
  ASSIGN_OR_RETURN(double mem_gib, OptionalNumber(t, "memory_gib", 0, origin));
  m.memory_bytes = static_cast<uint64_t>(mem_gib * kGiB);
  ASSIGN_OR_RETURN(double bw, OptionalNumber(t, "memory_bandwidth_gb_s", 0, origin));
  m.memory_bandwidth_bytes_per_s = bw * kGB;
  ASSIGN_OR_RETURN(double bf16, OptionalNumber(t, "peak_bf16_tflops", 0, origin));
  ASSIGN_OR_RETURN(double fp16, OptionalNumber(t, "peak_fp16_tflops", bf16, origin));
  ASSIGN_OR_RETURN(double fp32, OptionalNumber(t, "peak_fp32_tflops", 0, origin));
  ASSIGN_OR_RETURN(double fp64, OptionalNumber(t, "peak_fp64_tflops", 0, origin));
  ASSIGN_OR_RETURN(double fp8, OptionalNumber(t, "peak_fp8_tflops", 0, origin));
  m.peak_bf16_flops = bf16 * kTera;
  m.peak_fp16_flops = fp16 * kTera;
  m.peak_fp32_flops = fp32 * kTera;
  m.peak_fp64_flops = fp64 * kTera;
  m.peak_fp8_flops = fp8 * kTera;
  ASSIGN_OR_RETURN(m.tdp_watts, OptionalNumber(t, "tdp_watts", 0, origin));
  ASSIGN_OR_RETURN(m.idle_watts, OptionalNumber(t, "idle_watts", 0, origin));
  ASSIGN_OR_RETURN(double sm_mhz, OptionalNumber(t, "max_sm_clock_mhz", 0, origin));
  ASSIGN_OR_RETURN(double mem_mhz, OptionalNumber(t, "memory_clock_mhz", 0, origin));
  m.max_sm_clock_hz = sm_mhz * kMHz;
  m.memory_clock_hz = mem_mhz * kMHz;
  ASSIGN_OR_RETURN(double cus, OptionalNumber(t, "compute_units", 0, origin));
  m.compute_units = static_cast<int>(cus);
  ASSIGN_OR_RETURN(m.interconnect, OptionalString(t, "interconnect", origin));
  ASSIGN_OR_RETURN(double links, OptionalNumber(t, "interconnect_links", 0, origin));
  m.interconnect_links = static_cast<int>(links);
  ASSIGN_OR_RETURN(double ic, OptionalNumber(t, "interconnect_gb_s", 0, origin));
  m.interconnect_bytes_per_s = ic * kGB;
  ASSIGN_OR_RETURN(double pcie, OptionalNumber(t, "pcie_gb_s", 0, origin));
  m.pcie_bytes_per_s = pcie * kGB;
  ASSIGN_OR_RETURN(m.stream_bandwidth_ratio, OptionalNumber(t, "stream_bandwidth_ratio", 0, origin));
  ASSIGN_OR_RETURN(m.stream_source, OptionalString(t, "stream_source", origin));
  ASSIGN_OR_RETURN(m.source, OptionalString(t, "source", origin));
  if (m.stream_bandwidth_ratio < 0 || m.stream_bandwidth_ratio > 1 ||
      (m.stream_bandwidth_ratio > 0 && m.stream_source.empty())) {
    return InvalidArgumentError(where + "'" + m.key +
                                "': stream_bandwidth_ratio must be in (0, 1] with a "
                                "stream_source naming the measurement");
  }

  if (m.memory_bytes == 0 || m.memory_bandwidth_bytes_per_s <= 0 || m.tdp_watts <= 0) {
    return InvalidArgumentError(where + "'" + m.key +
                                "' needs memory_gib, memory_bandwidth_gb_s and tdp_watts > 0");
  }
  if (m.idle_watts < 0 || m.idle_watts >= m.tdp_watts) {
    return InvalidArgumentError(where + "'" + m.key + "': idle_watts must be in [0, tdp_watts)");
  }
  return m;
}

// [[pci_device]]: vendor, id ("0x74a1"), name, optional arch and gpu (a key
// of a [[gpu]] entry, which must exist).
StatusOr<PciDeviceSpec> ParsePciDevice(const toml::table& t, const HardwareCatalog& cat,
                                       std::string_view origin) {
  PciDeviceSpec d;
  std::string where = TomlWhere(origin, t);
  ASSIGN_OR_RETURN(std::string vendor, RequiredString(t, "vendor", origin));
  d.vendor = ParseVendor(vendor);
  if (d.vendor == Vendor::kUnknown) {
    return InvalidArgumentError(where + "unknown vendor '" + vendor + "'");
  }
  ASSIGN_OR_RETURN(std::string id, RequiredString(t, "id", origin));
  std::optional<uint32_t> device_id = ParsePciId(id);
  if (!device_id) {
    return InvalidArgumentError(where + "field 'id': '" + id + "' is not a PCI id like \"0x74a1\"");
  }
  d.device_id = *device_id;
  ASSIGN_OR_RETURN(d.name, RequiredString(t, "name", origin));
  ASSIGN_OR_RETURN(d.arch, OptionalString(t, "arch", origin));
  ASSIGN_OR_RETURN(d.gpu, OptionalString(t, "gpu", origin));
  if (!d.gpu.empty() && cat.Find(d.gpu) == nullptr) {
    return InvalidArgumentError(where + "field 'gpu': no [[gpu]] entry with key '" + d.gpu + "'");
  }
  if (cat.FindPciDevice(d.vendor, d.device_id) != nullptr) {
    return InvalidArgumentError(where + "duplicate PCI id " + vendor + " " + id);
  }
  return d;
}

}  // namespace

StatusOr<HardwareCatalog> HardwareCatalog::Parse(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  const toml::array* arr = root["gpu"].as_array();
  if (arr == nullptr) return InvalidArgumentError(std::string(origin) + ": no [[gpu]] entries");
  HardwareCatalog cat;
  for (const toml::node& node : *arr) {
    const toml::table* t = node.as_table();
    if (t == nullptr) return InvalidArgumentError(TomlWhere(origin, node) + "[[gpu]] must be a table");
    ASSIGN_OR_RETURN(GpuModelSpec m, ParseModel(*t, origin));
    if (cat.Find(m.key) != nullptr) {
      return InvalidArgumentError(TomlWhere(origin, node) + "duplicate gpu key '" + m.key + "'");
    }
    cat.models_.push_back(std::move(m));
  }
  if (const toml::array* pci = root["pci_device"].as_array()) {
    for (const toml::node& node : *pci) {
      const toml::table* t = node.as_table();
      if (t == nullptr) {
        return InvalidArgumentError(TomlWhere(origin, node) + "[[pci_device]] must be a table");
      }
      ASSIGN_OR_RETURN(PciDeviceSpec d, ParsePciDevice(*t, cat, origin));
      cat.pci_devices_.push_back(std::move(d));
    }
  }
  return cat;
}

const HardwareCatalog& HardwareCatalog::Default() {
  static const HardwareCatalog* catalog = [] {
    auto text = FindEmbeddedFile("hardware.toml");
    GPUFLEET_CHECK(text.has_value());
    StatusOr<HardwareCatalog> c = Parse(*text, "data/hardware.toml");
    if (!c.ok()) CheckFailed(__FILE__, __LINE__, "default hardware catalog", c.status().ToString());
    return new HardwareCatalog(std::move(c).value());
  }();
  return *catalog;
}

const GpuModelSpec* HardwareCatalog::Find(std::string_view key_or_name) const {
  for (const GpuModelSpec& m : models_) {
    if (m.key == key_or_name || m.name == key_or_name) return &m;
  }
  return nullptr;
}

const PciDeviceSpec* HardwareCatalog::FindPciDevice(Vendor vendor, uint32_t device_id) const {
  for (const PciDeviceSpec& d : pci_devices_) {
    if (d.vendor == vendor && d.device_id == device_id) return &d;
  }
  return nullptr;
}

}  // namespace gpufleet
