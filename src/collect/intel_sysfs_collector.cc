#include "collect/intel_sysfs_collector.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include "core/file_util.h"
#include "core/strings.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

bool IsCardName(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "card") != 0) return false;
  return std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> SortedEntries(const std::string& dir, std::string_view prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (StartsWith(name, prefix)) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

struct Temp {
  std::string path;
  std::string reading;  // "temp_gpu_millicelsius" / "temp_memory_millicelsius"
};

struct Card {
  DeviceInfo info;
  std::string device_dir;       // <root>/class/drm/cardN/device
  std::string energy_path;      // "" when absent
  std::string power_max_path;
  std::vector<Temp> temps;
  std::string freq_path;
  std::string idle_path;        // idle residency counter, ms
  std::string lmem_total_path;  // i915
  std::string lmem_avail_path;
  std::vector<std::string> vram_paths;  // xe, per tile

  // Previous samples for rates; touched only by Collect() of this card.
  std::optional<std::pair<double, int64_t>> prev_energy;  // uJ, monotonic ns
  std::optional<std::pair<double, int64_t>> prev_idle;    // ms, monotonic ns
};

class IntelSysfsCollector final : public Collector {
 public:
  explicit IntelSysfsCollector(IntelSysfsOptions options)
      : root_(std::move(options.sysfs_root)),
        clock_(options.clock != nullptr ? *options.clock : RealClock::Get()) {}

  std::string_view source() const override { return "intel_sysfs"; }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    cards_.clear();
    std::string drm = root_ + "/class/drm";
    for (const std::string& name : SortedEntries(drm, "card")) {
      if (!IsCardName(name)) continue;  // connectors: card0-DP-1
      if (auto card = Probe(drm + "/" + name)) cards_.push_back(std::move(*card));
    }
    if (cards_.empty()) {
      return NotFoundError("intel_sysfs: no card under " + drm + " with vendor 0x8086");
    }
    std::vector<DeviceInfo> out;
    for (const Card& c : cards_) out.push_back(c.info);
    return out;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    if (index >= cards_.size()) {
      return OutOfRangeError("intel_sysfs: device index " + std::to_string(index) + " of " +
                             std::to_string(cards_.size()));
    }
    Card& c = cards_[index];
    if (!Exists(c.device_dir + "/vendor")) {
      c.prev_energy.reset();
      c.prev_idle.reset();
      return UnavailableError("intel_sysfs: " + c.device_dir + " is gone (device removed?)");
    }
    int64_t now_ns = clock_.MonotonicNs();
    if (auto uj = ReadNumber(c.energy_path, out)) {
      out.Add("energy1_input_microjoules", *uj);
      if (c.prev_energy && *uj >= c.prev_energy->first && now_ns > c.prev_energy->second) {
        // uJ per ns * 1e3 = W
        out.Add("power_watts", (*uj - c.prev_energy->first) * 1e3 /
                                   static_cast<double>(now_ns - c.prev_energy->second));
      }
      c.prev_energy = std::make_pair(*uj, now_ns);
    }
    if (auto uw = ReadNumber(c.power_max_path, out); uw && *uw > 0) {
      out.Add("power1_max_microwatts", *uw);
    }
    for (const Temp& t : c.temps) {
      if (auto v = ReadNumber(t.path, out)) out.Add(t.reading, *v);
    }
    if (auto mhz = ReadNumber(c.freq_path, out)) out.Add("gt_act_freq_mhz", *mhz);
    if (auto idle_ms = ReadNumber(c.idle_path, out)) {
      if (c.prev_idle && *idle_ms >= c.prev_idle->first && now_ns > c.prev_idle->second) {
        double elapsed_ms = static_cast<double>(now_ns - c.prev_idle->second) / 1e6;
        double awake = 1.0 - (*idle_ms - c.prev_idle->first) / elapsed_ms;
        out.Add("gt_awake_ratio", std::clamp(awake, 0.0, 1.0));
      }
      c.prev_idle = std::make_pair(*idle_ms, now_ns);
    }
    if (auto total = ReadNumber(c.lmem_total_path, out)) {
      out.Add("lmem_total_bytes", *total);
      if (auto avail = ReadNumber(c.lmem_avail_path, out); avail && *avail <= *total) {
        out.Add("lmem_used_bytes", *total - *avail);
      }
    } else if (!c.vram_paths.empty()) {
      double sum = 0;
      bool all = true;
      for (const std::string& p : c.vram_paths) {
        auto v = ReadNumber(p, out);
        all = all && v.has_value();
        if (v) sum += *v;
      }
      if (all) out.Add("vram_total_bytes", sum);
    }
    return OkStatus();
  }

 private:
  // Reads a decimal file; "" means the card has no such file (not an error).
  static std::optional<double> ReadNumber(const std::string& path, DeviceReadings& out) {
    if (path.empty()) return std::nullopt;
    auto text = ReadFileToString(path);
    if (!text.ok()) {
      out.CountError(text.status().code() == StatusCode::kPermissionDenied ? "permission"
                                                                          : "error");
      return std::nullopt;
    }
    auto v = ParseDouble(TrimWhitespace(*text));
    if (!v) out.CountError("error");
    return v;
  }

  std::optional<Card> Probe(const std::string& card_dir) {
    Card c;
    c.device_dir = card_dir + "/device";
    auto vendor = ReadTrimmedFile(c.device_dir + "/vendor");
    if (!vendor || ParsePciId(*vendor) != 0x8086u) return std::nullopt;
    uint32_t device_id = 0;
    if (auto d = ReadTrimmedFile(c.device_dir + "/device")) device_id = ParsePciId(*d).value_or(0);

    // uevent: "DRIVER=xe", "PCI_SLOT_NAME=0000:3a:00.0".
    std::string driver;
    if (auto uevent = ReadTrimmedFile(c.device_dir + "/uevent")) {
      for (std::string_view line : SplitString(*uevent, '\n')) {
        line = TrimWhitespace(line);
        if (StartsWith(line, "DRIVER=")) driver = std::string(line.substr(7));
        if (StartsWith(line, "PCI_SLOT_NAME=")) {
          c.info.pci_bus_id = CanonicalPciBusId(line.substr(14));
        }
      }
    }
    c.info.vendor = Vendor::kIntel;
    // sysfs has no marketing name: the hardware catalog knows the parts by id.
    if (const PciDeviceSpec* p =
            HardwareCatalog::Default().FindPciDevice(Vendor::kIntel, device_id)) {
      c.info.model = p->name;
      c.info.arch = p->arch;
    } else {
      char fallback[48];
      std::snprintf(fallback, sizeof(fallback), "Intel GPU [8086:%04x]", device_id);
      c.info.model = fallback;
    }
    // sysfs has no UUID; derive a stable one from the PCI address.
    c.info.uuid = "intel-pci-" + (c.info.pci_bus_id.empty() ? card_dir : c.info.pci_bus_id);
    c.info.driver_version = driver;

    std::string hwmon_root = c.device_dir + "/hwmon";
    for (const std::string& h : SortedEntries(hwmon_root, "hwmon")) {
      std::string dir = hwmon_root + "/" + h;
      if (Exists(dir + "/energy1_input")) c.energy_path = dir + "/energy1_input";
      if (Exists(dir + "/power1_max")) c.power_max_path = dir + "/power1_max";
      for (const std::string& f : SortedEntries(dir, "temp")) {
        if (!EndsWith(f, "_input")) continue;
        std::string stem = f.substr(0, f.size() - 6);
        std::string label = ToLower(ReadTrimmedFile(dir + "/" + stem + "_label").value_or(""));
        bool memory = label == "vram" || label == "mctrl" || label == "memory";
        c.temps.push_back(
            {dir + "/" + f, memory ? "temp_memory_millicelsius" : "temp_gpu_millicelsius"});
      }
      if (!c.energy_path.empty()) break;  // the card's own hwmon; others are extra sensors
    }

    auto first = [](std::initializer_list<std::string> paths) -> std::string {
      for (const std::string& p : paths) {
        if (Exists(p)) return p;
      }
      return "";
    };
    c.freq_path = first({card_dir + "/gt_act_freq_mhz", card_dir + "/gt/gt0/rps_act_freq_mhz",
                         c.device_dir + "/tile0/gt0/freq0/act_freq"});
    c.idle_path = first({card_dir + "/gt/gt0/rc6_residency_ms",
                         card_dir + "/power/rc6_residency_ms",
                         c.device_dir + "/tile0/gt0/gtidle/idle_residency_ms"});
    c.lmem_total_path = first({card_dir + "/lmem_total_bytes"});
    c.lmem_avail_path = first({card_dir + "/lmem_avail_bytes"});
    for (const std::string& t : SortedEntries(c.device_dir, "tile")) {
      std::string p = c.device_dir + "/" + t + "/physical_vram_size_bytes";
      if (Exists(p)) c.vram_paths.push_back(p);
    }
    if (!c.lmem_total_path.empty()) {
      c.info.memory_total_bytes = static_cast<uint64_t>(
          ParseDouble(ReadTrimmedFile(c.lmem_total_path).value_or("0")).value_or(0));
    } else {
      for (const std::string& p : c.vram_paths) {
        c.info.memory_total_bytes +=
            static_cast<uint64_t>(ParseDouble(ReadTrimmedFile(p).value_or("0")).value_or(0));
      }
    }
    return c;
  }

  const std::string root_;
  Clock& clock_;
  std::vector<Card> cards_;  // rebuilt by Discover()
};

}  // namespace

std::unique_ptr<Collector> NewIntelSysfsCollector(IntelSysfsOptions options) {
  return std::make_unique<IntelSysfsCollector>(std::move(options));
}

}  // namespace gpufleet
