#include "server/fleet_api.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "core/clock.h"
#include "core/flat_index.h"
#include "core/string_map.h"
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
  StringSet set_;
  const std::string empty_;
};

// What a call learns of a device this time: its readings, when it was last
// seen, its up reason, and the teams and workloads of its holder series.
struct Hot {
  Reading reading[7];  // by Field kUp..kMemTotal
  int64_t last_seen_ns = 0;
  const std::string* up_reason = nullptr;
  bool seen = false;
};

struct Holders {
  std::vector<const std::string*> teams, workloads;  // distinct
};

// What persists between calls: a device's names.
struct Row {
  std::string key, uuid, node;
  const std::string *cloud = nullptr, *region = nullptr, *vendor = nullptr, *model = nullptr;
  bool named = false;  // cloud, region, vendor and model all set
};

// What a series' labels say, derived once per series id.
struct CachedSeries {
  uint32_t row;
  const std::string *team, *workload, *reason;
};

// The labels the summary reads, found in one pass over the (sorted) pairs.
struct SeriesLabels {
  std::string_view node, gpu, uuid, pci, partition, cloud, region, vendor, model, reason, team,
      workload_name, workload_pod;
};

void Extract(const StoredLabels& l, SeriesLabels& out) {
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

// Interned strings compare by address.
void AddDistinct(std::vector<const std::string*>& v, const std::string* x) {
  if (x->empty() || std::find(v.begin(), v.end(), x) != v.end()) return;
  v.push_back(x);
}

std::string Joined(std::vector<const std::string*> s) {
  std::sort(s.begin(), s.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
  std::string out;
  for (const std::string* x : s) {
    if (!out.empty()) out += ',';
    out += *x;
  }
  return out;
}

// splitmix64's finalizer: spreads sequential series ids over the index.
uint64_t MixId(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
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

struct FleetSummary::Cache {
  const WindowStore* window = nullptr;
  Interner interned;
  FlatIndex device_index;  // device key -> row
  std::vector<Row> rows;
  FlatIndex series_index;  // MixId(series id) -> series
  std::vector<uint64_t> series_ids;
  std::vector<CachedSeries> series;
};

FleetSummary::FleetSummary() : cache_(std::make_unique<Cache>()) {}
FleetSummary::~FleetSummary() = default;

size_t FleetSummary::cached_series() const {
  std::lock_guard lock(mu_);
  return cache_->series.size();
}

std::string FleetSummary::Json(const WindowStore& window, const FleetFilter& filter,
                               const std::unordered_map<std::string, int>& open_incidents,
                               int64_t now_ns, const FleetOptions& options) {
  std::lock_guard lock(mu_);
  if (cache_->window != &window) {
    cache_ = std::make_unique<Cache>();
    cache_->window = &window;
  }
  Cache& c = *cache_;
  std::vector<Hot> hot(c.rows.size());
  std::vector<Holders> holders(c.rows.size());
  std::string key;
  SeriesLabels sl;
  size_t visited = 0;
  const int64_t from_ns = now_ns - options.window_ns;
  // A series seen for the first time: its device (a new row if new) and what
  // its labels say, kept by series id.
  auto learn = [&](uint64_t hash, uint64_t series_id, const StoredLabels& l) {
    Extract(l, sl);
    DeviceKeyOf(sl, key);
    const uint64_t key_hash = std::hash<std::string_view>()(key);
    uint32_t row =
        c.device_index.Find(key_hash, [&](uint32_t i) { return c.rows[i].key == key; });
    if (row == FlatIndex::kNotFound) {
      row = c.device_index.Insert(key_hash);
      Row& n = c.rows.emplace_back();
      n.key = key;
      n.uuid.assign(sl.uuid);
      n.node.assign(sl.node);
      hot.emplace_back();
      holders.emplace_back();
    }
    Row& r = c.rows[row];
    if (!r.named) {
      // The first series that carries them names the device.
      if (r.cloud == nullptr || r.cloud->empty()) r.cloud = c.interned.Get(sl.cloud);
      if (r.region == nullptr || r.region->empty()) r.region = c.interned.Get(sl.region);
      if (r.vendor == nullptr || r.vendor->empty()) r.vendor = c.interned.Get(sl.vendor);
      if (r.model == nullptr || r.model->empty()) r.model = c.interned.Get(sl.model);
      r.named = !r.cloud->empty() && !r.region->empty() && !r.vendor->empty() && !r.model->empty();
    }
    c.series_index.Insert(hash);
    c.series_ids.push_back(series_id);
    c.series.push_back(
        {row, c.interned.Get(sl.team),
         c.interned.Get(!sl.workload_name.empty() ? sl.workload_name : sl.workload_pod),
         c.interned.Get(sl.reason)});
    return static_cast<uint32_t>(c.series.size() - 1);
  };
  for (int f = kUp; f <= kStep; ++f) {
    window.ForEachLatest(kMetrics[f], from_ns, now_ns,
                         [&](uint64_t series_id, const StoredLabels& l, const WindowPoint& last) {
                           ++visited;
                           const uint64_t hash = MixId(series_id);
                           uint32_t id = c.series_index.Find(
                               hash, [&](uint32_t i) { return c.series_ids[i] == series_id; });
                           if (id == FlatIndex::kNotFound) id = learn(hash, series_id, l);
                           const CachedSeries& cs = c.series[id];
                           Hot& h = hot[cs.row];
                           h.seen = true;
                           h.last_seen_ns = std::max(h.last_seen_ns, last.timestamp_ns);
                           if (f == kHolder || f == kStep) {
                             AddDistinct(holders[cs.row].teams, cs.team);
                             AddDistinct(holders[cs.row].workloads, cs.workload);
                             return;
                           }
                           Reading& rd = h.reading[f];
                           if (last.timestamp_ns < rd.ts_ns) return;  // another series is newer
                           rd.ts_ns = last.timestamp_ns;
                           rd.value = last.value;
                           if (f == kUp) h.up_reason = last.value > 0 ? nullptr : cs.reason;
                         });
  }

  std::vector<uint32_t> kept;
  kept.reserve(c.rows.size());
  for (uint32_t i = 0; i < c.rows.size(); ++i) {
    if (!hot[i].seen) continue;
    const Row& r = c.rows[i];
    const std::vector<const std::string*>& teams = holders[i].teams;
    if (!filter.vendor.empty() && *r.vendor != filter.vendor) continue;
    if (!filter.model.empty() && *r.model != filter.model) continue;
    if (!filter.cloud.empty() && *r.cloud != filter.cloud) continue;
    if (!filter.node.empty() && r.node != filter.node) continue;
    if (!filter.team.empty() && std::none_of(teams.begin(), teams.end(), [&](const auto* t) {
          return *t == filter.team;
        })) {
      continue;
    }
    kept.push_back(i);
  }
  std::sort(kept.begin(), kept.end(),
            [&](uint32_t a, uint32_t b) { return c.rows[a].key < c.rows[b].key; });

  int64_t up = 0, down = 0, stale = 0;
  std::map<std::string, int64_t> by_vendor = {{"nvidia", 0}, {"amd", 0}, {"intel", 0}};
  // One buffer: the device list first, the counts after it (key order is
  // free in JSON), so the large part is never copied.
  std::string devices;
  devices.reserve(kept.size() * 400 + 1024);
  devices += "{\"devices\":[";
  bool first_device = true;
  const int64_t stale_before = now_ns - options.stale_after_ns;
  for (uint32_t i : kept) {
    const Row* r = &c.rows[i];
    const Hot& h = hot[i];
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
    Str("team", Joined(holders[i].teams), devices);
    Str("workload", Joined(holders[i].workloads), devices);
    AppendJsonKey("up", devices);
    devices += !up_value.has_value() ? "null" : *up_value > 0 ? "true" : "false";
    devices += ',';
    Str("up_reason", h.up_reason != nullptr ? *h.up_reason : std::string(), devices);
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
  out += ",\"contention_region\":";
  if (const std::optional<ContentionRegion>& r = options.contention_region; r.has_value()) {
    out += '{';
    Str("rule", r->rule, out);
    Num("bandwidth_above", r->bandwidth_above, out);
    AppendJsonKey("occupancy_below", out);
    AppendJsonNumber(r->occupancy_below, out);
    out += '}';
  } else {
    out += "null";
  }
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
  // Series gone from the window stay cached until they outnumber the live
  // ones; then the cache starts afresh on the next call.
  if (c.series.size() > 2 * visited + 4096) cache_ = std::make_unique<Cache>();
  return out;
}

std::string FleetSummaryJson(const WindowStore& window, const FleetFilter& filter,
                             const std::unordered_map<std::string, int>& open_incidents,
                             int64_t now_ns, const FleetOptions& options) {
  return FleetSummary().Json(window, filter, open_incidents, now_ns, options);
}

std::span<const char* const> FleetSummaryMetrics() { return kMetrics; }

std::optional<ContentionRegion> FindContentionRegion(const detect::DetectConfig& config) {
  for (const detect::RuleConfig& rule : config.rules) {
    if (rule.conditions.size() != 2) continue;
    std::optional<double> bandwidth, occupancy;
    for (const detect::Condition& c : rule.conditions) {
      if (c.metric == kMetrics[kBandwidth] && c.op == detect::Condition::Op::kGreater) {
        bandwidth = c.value;
      } else if (c.metric == kMetrics[kOccupancy] && c.op == detect::Condition::Op::kLess) {
        occupancy = c.value;
      }
    }
    if (bandwidth.has_value() && occupancy.has_value()) {
      return ContentionRegion{rule.name, *bandwidth, *occupancy};
    }
  }
  return std::nullopt;
}

}  // namespace gpufleet
