#include "collect/amdgpu_sysfs_collector.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "core/file_util.h"
#include "core/strings.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {

namespace fs = std::filesystem;

namespace {

// sysfs has no marketing name unless the board exposes product_name: the
// hardware catalog knows the parts a fleet is likely to hold by PCI device id.
std::string ModelFromDeviceId(std::string_view id) {
  const HardwareCatalog& catalog = HardwareCatalog::Default();
  std::optional<uint32_t> n = ParsePciId(id);
  const PciDeviceSpec* p = n ? catalog.FindPciDevice(Vendor::kAmd, *n) : nullptr;
  return p != nullptr ? p->name : "AMD GPU " + std::string(id);
}

// "card3" -> 3; nullopt for connectors ("card0-DP-1") and render nodes.
std::optional<int> CardNumber(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "card") != 0) return std::nullopt;
  for (size_t i = 4; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
  }
  return std::stoi(name.substr(4));
}

struct SysfsDevice {
  fs::path device_dir;  // <root>/class/drm/cardN/device
  DeviceInfo info;
};

// Reads one device's files into `out`, counting what is missing.
class DeviceReader {
 public:
  DeviceReader(const fs::path& dir, DeviceReadings& out) : dir_(dir), out_(out) {}

  // Reads an unsigned integer file; counts "not_supported" when absent and
  // "error" when unreadable or malformed.
  std::optional<uint64_t> U64(const fs::path& p) {
    auto s = ReadFileToString(p.string());
    if (!s.ok()) {
      out_.CountError(s.status().code() == StatusCode::kNotFound ? "not_supported" : "error");
      return std::nullopt;
    }
    auto v = ParseUint64(TrimWhitespace(*s));
    if (!v) out_.CountError("error");
    return v;
  }

  void Add(const char* name, const fs::path& p, Labels labels = {}) {
    if (auto v = U64(p)) out_.Add(name, static_cast<double>(*v), std::move(labels));
  }

  void ReadDevice() {
    Add("gpu_busy_percent", dir_ / "gpu_busy_percent");
    Add("mem_busy_percent", dir_ / "mem_busy_percent");
    Add("vram_used_bytes", dir_ / "mem_info_vram_used");
    Add("vram_total_bytes", dir_ / "mem_info_vram_total");
    Add("pcie_replays_total", dir_ / "pcie_replay_count");
    ReadUmcErrors();
  }

  // ras/umc_err_count holds "ue: 0\nce: 3\n".
  void ReadUmcErrors() {
    auto s = ReadFileToString((dir_ / "ras" / "umc_err_count").string());
    if (!s.ok()) {
      out_.CountError(s.status().code() == StatusCode::kNotFound ? "not_supported" : "error");
      return;
    }
    for (std::string_view line : SplitString(*s, '\n')) {
      auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view key = TrimWhitespace(line.substr(0, colon));
      auto v = ParseUint64(TrimWhitespace(line.substr(colon + 1)));
      if (!v) {
        out_.CountError("error");
        continue;
      }
      if (key == "ce")
        out_.Add("ecc_correctable_total", static_cast<double>(*v), {{"block", "umc"}});
      if (key == "ue") {
        out_.Add("ecc_uncorrectable_total", static_cast<double>(*v), {{"block", "umc"}});
      }
    }
  }

  void ReadHwmon() {
    std::optional<fs::path> hwmon = FindHwmon();
    if (!hwmon) {
      out_.CountError("not_supported");
      return;
    }
    const fs::path& h = *hwmon;
    std::error_code ec;
    // power1_input (instantaneous, newer parts such as MI300) is preferred
    // over power1_average; only one is emitted so the series stays single.
    if (fs::exists(h / "power1_input", ec)) {
      Add("power_input_microwatts", h / "power1_input");
    } else {
      Add("power_average_microwatts", h / "power1_average");
    }
    Add("power_cap_microwatts", h / "power1_cap");
    if (fs::exists(h / "energy1_input", ec)) Add("energy_microjoules", h / "energy1_input");

    for (const std::string& idx : Indices(h, "temp", "_input")) {
      std::string sensor = "temp" + idx;
      if (auto label = ReadTrimmedFile(h / ("temp" + idx + "_label"))) {
        sensor = *label == "mem" ? "memory" : ToLower(*label);
      }
      Add("temperature_millicelsius", h / ("temp" + idx + "_input"), {{"sensor", sensor}});
    }
    for (const std::string& idx : Indices(h, "freq", "_input")) {
      std::string label = idx == "1" ? "sclk" : idx == "2" ? "mclk" : "freq" + idx;
      if (auto l = ReadTrimmedFile(h / ("freq" + idx + "_label"))) label = ToLower(*l);
      Add("clock_hz", h / ("freq" + idx + "_input"), {{"domain", ClockDomain(label)}});
    }
  }

 private:
  static std::string ClockDomain(const std::string& label) {
    if (label == "sclk") return "sm";
    if (label == "mclk") return "memory";
    if (label == "fclk") return "data";
    if (label == "socclk") return "soc";
    return label;
  }

  // The amdgpu hwmon directory: device/hwmon/hwmon<N>.
  std::optional<fs::path> FindHwmon() const {
    std::error_code ec;
    fs::directory_iterator it(dir_ / "hwmon", ec);
    if (ec) return std::nullopt;
    std::vector<fs::path> found;
    for (const fs::directory_entry& e : it) {
      if (StartsWith(e.path().filename().string(), "hwmon")) found.push_back(e.path());
    }
    if (found.empty()) return std::nullopt;
    std::sort(found.begin(), found.end());
    return found.front();
  }

  // The N of every "<prefix>N<suffix>" file in `dir`, sorted numerically.
  static std::vector<std::string> Indices(const fs::path& dir, const std::string& prefix,
                                          const std::string& suffix) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (!StartsWith(name, prefix) || !EndsWith(name, suffix)) continue;
      std::string idx = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      if (idx.empty() || !std::all_of(idx.begin(), idx.end(),
                                      [](unsigned char ch) { return std::isdigit(ch) != 0; })) {
        continue;
      }
      out.push_back(idx);
    }
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    return out;
  }

  const fs::path& dir_;
  DeviceReadings& out_;
};

class AmdgpuSysfsCollector final : public Collector {
 public:
  explicit AmdgpuSysfsCollector(AmdgpuSysfsOptions options) : options_(std::move(options)) {}

  std::string_view source() const override { return "amdgpu_sysfs"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    devices_.clear();
    fs::path drm = fs::path(options_.sysfs_root) / "class" / "drm";
    std::error_code ec;
    fs::directory_iterator it(drm, ec);
    if (ec) return NotFoundError("amdgpu sysfs: cannot list " + drm.string() + ": " + ec.message());
    std::vector<std::pair<int, fs::path>> cards;
    for (const fs::directory_entry& e : it) {
      if (auto n = CardNumber(e.path().filename().string())) cards.emplace_back(*n, e.path());
    }
    std::sort(cards.begin(), cards.end());
    fs::path version = fs::path(options_.sysfs_root) / "module" / "amdgpu" / "version";
    std::string driver = ReadTrimmedFile(version).value_or("");
    for (const auto& [n, card] : cards) {
      fs::path dev = card / "device";
      if (ReadTrimmedFile(dev / "vendor").value_or("") != "0x1002") continue;
      SysfsDevice d;
      d.device_dir = dev;
      d.info = Describe(dev);
      d.info.driver_version = driver;
      devices_.push_back(std::move(d));
    }
    if (devices_.empty()) {
      return NotFoundError("amdgpu sysfs: no AMD GPU (vendor 0x1002) under " + drm.string());
    }
    std::vector<DeviceInfo> out;
    for (const SysfsDevice& d : devices_) out.push_back(d.info);
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    if (index >= devices_.size()) {
      return InvalidArgumentError("amdgpu sysfs: no device " + std::to_string(index));
    }
    const fs::path& dir = devices_[index].device_dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      return UnavailableError("lost: " + dir.string() + " vanished");
    }
    DeviceReader reader(dir, out);
    reader.ReadDevice();
    reader.ReadHwmon();
    return OkStatus();
  }

 private:
  static DeviceInfo Describe(const fs::path& dev) {
    DeviceInfo info;
    info.vendor = Vendor::kAmd;
    // uevent line: "PCI_SLOT_NAME=0000:0c:00.0".
    if (auto uevent = ReadFileToString((dev / "uevent").string()); uevent.ok()) {
      for (std::string_view line : SplitString(*uevent, '\n')) {
        if (StartsWith(line, "PCI_SLOT_NAME=")) {
          info.pci_bus_id = CanonicalPciBusId(TrimWhitespace(line.substr(14)));
        }
      }
    }
    if (info.pci_bus_id.empty()) {
      std::error_code ec;
      fs::path target = fs::canonical(dev, ec);
      if (!ec) info.pci_bus_id = CanonicalPciBusId(target.filename().string());
    }
    info.uuid = ReadTrimmedFile(dev / "unique_id").value_or("");
    info.model = ReadTrimmedFile(dev / "product_name").value_or("");
    if (info.model.empty())
      info.model = ModelFromDeviceId(ReadTrimmedFile(dev / "device").value_or("?"));
    if (auto total = ReadTrimmedFile(dev / "mem_info_vram_total")) {
      info.memory_total_bytes = ParseUint64(*total).value_or(0);
    }
    return info;
  }

  const AmdgpuSysfsOptions options_;
  std::vector<SysfsDevice> devices_;
};

}  // namespace

std::unique_ptr<Collector> NewAmdgpuSysfsCollector(AmdgpuSysfsOptions options) {
  return std::make_unique<AmdgpuSysfsCollector>(std::move(options));
}

}  // namespace gpufleet
