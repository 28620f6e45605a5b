#include "server/fleet_api.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "core/clock.h"
#include "core/flat_index.h"
#include "server/json_out.h"

namespace gpufleet {
namespace {

struct Reading {
  int64_t ts_ns = -1;
  double value = 0;
  std::optional<double> Get() const {
    return ts_ns < 0 ? std::nullopt : std::optional<double>(value);
  }
};

// Interned label values (cloud, region, vendor, model repeat across devices):
// one copy each, rows point at them. Node-based, so pointers stay valid.
class Interner {
 public:
  const std::string* Get(std::string_view v) {
    if (v.empty()) return &empty_;
    auto it = set_.find(v);
    if (it == set_.end()) it = set_.emplace(v).first;
    return &*it;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> set_;
  const std::string empty_;
};

// A device's row, split so the per-series pass touches little memory: the
// readings (Hot, 128 bytes) for every series, the names (Row) only when the
// device is first seen or still lacks a name.
struct Hot {
  Reading reading[7];  // by Field kUp..kMemTotal
  int64_t last_seen_ns = 0;
  bool named = false;  // cloud, region, vendor and model all set
};

struct Row {
  std::string key, uuid, node, up_reason;
  const std::string *cloud = nullptr, *region = nullptr, *vendor = nullptr, *model = nullptr;
  std::vector<std::string> teams, workloads;  // distinct, sorted at the end
  const Hot* hot = nullptr;
};

// The labels the summary reads, found in one pass over the (sorted) pairs.
struct SeriesLabels {
  std::string_view node, gpu, uuid, pci, partition, cloud, region, vendor, model, reason, team,
      workload_name, workload_pod;
};

void Extract(const Labels& l, SeriesLabels& out) {
  out = SeriesLabels();
  for (const auto& [k, v] : l.pairs()) {
    switch (k.size()) {
      case 3:
        if (k == "gpu") out.gpu = v;
        break;
      case 4:
        if (k == "node") out.node = v;
        break;
      case 5:
        if (k == "cloud")
          out.cloud = v;
        else if (k == "model")
          out.model = v;
        break;
      case 6:
        if (k == "region")
          out.region = v;
        else if (k == "vendor")
          out.vendor = v;
        else if (k == "reason")
          out.reason = v;
        break;
      case 8:
        if (k == "gpu_uuid") out.uuid = v;
        break;
      case 10:
        if (k == "pci_bus_id") out.pci = v;
        break;
      case 12:
        if (k == "partition_id")
          out.partition = v;
        else if (k == "workload_pod")
          out.workload_pod = v;
        break;
      case 13:
        if (k == "workload_team")
          out.team = v;
        else if (k == "workload_name")
          out.workload_name = v;
        break;
      default:
        break;
    }
  }
}

// Field index of each metric read for the summary.
enum Field { kUp, kUtil, kBandwidth, kOccupancy, kPower, kMemUsed, kMemTotal, kHolder, kStep };
constexpr std::array<const char*, 9> kMetrics = {"gpu_up",
                                                 "gpu_utilization_ratio",
                                                 "gpu_memory_bandwidth_utilization_ratio",
                                                 "gpu_sm_occupancy_ratio",
                                                 "gpu_power_watts",
                                                 "gpu_memory_used_bytes",
                                                 "gpu_memory_total_bytes",
                                                 "gpu_workload_info",
                                                 "gpu_workload_step_duration_seconds"};

// "node/gpu" (or gpu_uuid, pci_bus_id) + "/pN": the detectors' device key.
void DeviceKeyOf(const SeriesLabels& l, std::string& key) {
  key.assign(l.node);
  std::string_view id = !l.gpu.empty() ? l.gpu : !l.uuid.empty() ? l.uuid : l.pci;
  key += '/';
  key += id;
  if (!l.partition.empty()) {
    key += "/p";
    key += l.partition;
  }
}

void AddDistinct(std::vector<std::string>& v, std::string_view x) {
  if (x.empty()) return;
  for (const std::string& e : v) {
    if (e == x) return;
  }
  v.emplace_back(x);
}

std::string Joined(std::vector<std::string> s) {
  std::sort(s.begin(), s.end());
  std::string out;
  for (const std::string& x : s) {
    if (!out.empty()) out += ',';
    out += x;
  }
  return out;
}

void Str(std::string_view key, std::string_view value, std::string& out) {
  AppendJsonKey(key, out);
  AppendJsonString(value, out);
  out += ',';
}

void Num(std::string_view key, std::optional<double> value, std::string& out) {
  AppendJsonKey(key, out);
  AppendJsonNumber(value, out);
  out += ',';
}

}  // namespace

std::string FleetSummaryJson(const WindowStore& window, const FleetFilter& filter,
                             const std::unordered_map<std::string, int>& open_incidents,
                             int64_t now_ns, const FleetOptions& options) {
  std::vector<Row> rows;
  std::vector<Hot> hot;
  std::vector<std::string> keys;  // by row id, compared on lookup
  rows.reserve(4096);
  hot.reserve(4096);
  keys.reserve(4096);
  FlatIndex index;
  Interner interned;
  std::string key;
  SeriesLabels sl;
  const int64_t from_ns = now_ns - options.window_ns;
  for (int f = kUp; f <= kStep; ++f) {
    window.ForEach(
        kMetrics[f], from_ns, now_ns, [&](const Labels& l, std::span<const WindowPoint> pts) {
          Extract(l, sl);
          DeviceKeyOf(sl, key);
          const uint64_t hash = std::hash<std::string_view>()(key);
          uint32_t id = index.Find(hash, [&](uint32_t i) { return keys[i] == key; });
          if (id == FlatIndex::kNotFound) {
            id = index.Insert(hash);
            keys.push_back(key);
            hot.emplace_back();
            rows.emplace_back();
            Row& n = rows.back();
            n.key = key;
            n.uuid.assign(sl.uuid);
            n.node.assign(sl.node);
          }
          Hot& h = hot[id];
          if (!h.named) {
            // The first series that carries them names the device.
            Row& r = rows[id];
            if (r.cloud == nullptr || r.cloud->empty()) r.cloud = interned.Get(sl.cloud);
            if (r.region == nullptr || r.region->empty()) r.region = interned.Get(sl.region);
            if (r.vendor == nullptr || r.vendor->empty()) r.vendor = interned.Get(sl.vendor);
            if (r.model == nullptr || r.model->empty()) r.model = interned.Get(sl.model);
            h.named =
                !r.cloud->empty() && !r.region->empty() && !r.vendor->empty() && !r.model->empty();
          }
          const WindowPoint& last = pts.back();
          h.last_seen_ns = std::max(h.last_seen_ns, last.timestamp_ns);
          if (f == kHolder || f == kStep) {
            Row& r = rows[id];
            AddDistinct(r.teams, sl.team);
            AddDistinct(r.workloads,
                        !sl.workload_name.empty() ? sl.workload_name : sl.workload_pod);
            return;
          }
          Reading& rd = h.reading[f];
          if (last.timestamp_ns < rd.ts_ns) return;  // another series is newer
          rd.ts_ns = last.timestamp_ns;
          rd.value = last.value;
          if (f == kUp) {
            rows[id].up_reason.assign(last.value > 0 ? std::string_view() : sl.reason);
          }
        });
  }
  for (size_t i = 0; i < rows.size(); ++i) rows[i].hot = &hot[i];

  std::vector<const Row*> kept;
  kept.reserve(rows.size());
  for (const Row& r : rows) {
    if (!filter.vendor.empty() && *r.vendor != filter.vendor) continue;
    if (!filter.model.empty() && *r.model != filter.model) continue;
    if (!filter.cloud.empty() && *r.cloud != filter.cloud) continue;
    if (!filter.node.empty() && r.node != filter.node) continue;
    if (!filter.team.empty() &&
        std::find(r.teams.begin(), r.teams.end(), filter.team) == r.teams.end()) {
      continue;
    }
    kept.push_back(&r);
  }
  std::sort(kept.begin(), kept.end(), [](const Row* a, const Row* b) { return a->key < b->key; });

  int64_t up = 0, down = 0, stale = 0;
  std::map<std::string, int64_t> by_vendor = {{"nvidia", 0}, {"amd", 0}, {"intel", 0}};
  // One buffer: the device list first, the counts after it (key order is
  // free in JSON), so the large part is never copied.
  std::string devices;
  devices.reserve(kept.size() * 400 + 1024);
  devices += "{\"devices\":[";
  bool first_device = true;
  const int64_t stale_before = now_ns - options.stale_after_ns;
  for (const Row* r : kept) {
    const Hot& h = *r->hot;
    bool is_stale = h.last_seen_ns < stale_before;
    std::optional<double> up_value = h.reading[kUp].Get();
    if (is_stale) {
      ++stale;
    } else if (up_value.has_value()) {
      (*up_value > 0 ? up : down)++;
    }
    if (!r->vendor->empty()) by_vendor[*r->vendor]++;
    if (!first_device) devices += ',';
    first_device = false;
    devices += '{';
    Str("gpu_uuid", r->uuid, devices);
    Str("device", r->key, devices);
    Str("node", r->node, devices);
    Str("cloud", *r->cloud, devices);
    Str("region", *r->region, devices);
    Str("vendor", *r->vendor, devices);
    Str("model", *r->model, devices);
    Str("team", Joined(r->teams), devices);
    Str("workload", Joined(r->workloads), devices);
    AppendJsonKey("up", devices);
    devices += !up_value.has_value() ? "null" : *up_value > 0 ? "true" : "false";
    devices += ',';
    Str("up_reason", r->up_reason, devices);
    Num("utilization", h.reading[kUtil].Get(), devices);
    Num("memory_bandwidth", h.reading[kBandwidth].Get(), devices);
    Num("occupancy", h.reading[kOccupancy].Get(), devices);
    Num("power_watts", h.reading[kPower].Get(), devices);
    std::optional<double> used = h.reading[kMemUsed].Get(), total = h.reading[kMemTotal].Get();
    Num("memory_used_ratio",
        used.has_value() && total.has_value() && *total > 0 ? std::optional(*used / *total)
                                                            : std::nullopt,
        devices);
    int incidents = 0;
    if (auto it = open_incidents.find(r->key); it != open_incidents.end()) incidents += it->second;
    if (!r->uuid.empty()) {
      if (auto it = open_incidents.find(r->uuid); it != open_incidents.end()) {
        incidents += it->second;
      }
    }
    Num("open_incidents", incidents, devices);
    AppendJsonKey("stale", devices);
    devices += is_stale ? "true," : "false,";
    AppendJsonKey("last_seen", devices);
    AppendJsonNumber(static_cast<double>(h.last_seen_ns) / 1e9, devices);
    devices += '}';
  }

  std::string& out = devices;
  out += "],\"generated_at\":";
  AppendJsonNumber(static_cast<double>(now_ns) / 1e9, out);
  out += ",\"window_s\":";
  AppendJsonNumber(static_cast<double>(options.window_ns) / 1e9, out);
  out += ",\"stale_after_s\":";
  AppendJsonNumber(static_cast<double>(options.stale_after_ns) / 1e9, out);
  out += ",\"counts\":{\"devices\":" + std::to_string(kept.size()) +
         ",\"up\":" + std::to_string(up) + ",\"down\":" + std::to_string(down) +
         ",\"stale\":" + std::to_string(stale) + ",\"by_vendor\":{";
  bool first = true;
  for (const auto& [vendor, n] : by_vendor) {
    if (!first) out += ',';
    first = false;
    AppendJsonKey(vendor, out);
    out += std::to_string(n);
  }
  out += "}}}\n";
  return out;
}

std::span<const char* const> FleetSummaryMetrics() { return kMetrics; }

}  // namespace gpufleet
