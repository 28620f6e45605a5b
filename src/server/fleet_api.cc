#include "server/fleet_api.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "core/clock.h"
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

struct Row {
  std::string key, uuid, node, cloud, region, vendor, model, up_reason;
  std::set<std::string> teams, workloads;
  Reading up, util, bandwidth, occupancy, power, mem_used, mem_total;
  int64_t last_seen_ns = 0;
};

// Field index of each metric read for the summary.
enum Field { kUp, kUtil, kBandwidth, kOccupancy, kPower, kMemUsed, kMemTotal, kHolder, kStep };
constexpr const char* kMetrics[] = {"gpu_up",
                                    "gpu_utilization_ratio",
                                    "gpu_memory_bandwidth_utilization_ratio",
                                    "gpu_sm_occupancy_ratio",
                                    "gpu_power_watts",
                                    "gpu_memory_used_bytes",
                                    "gpu_memory_total_bytes",
                                    "gpu_workload_info",
                                    "gpu_workload_step_duration_seconds"};

void DeviceKeyOf(const Labels& l, std::string& key) {
  key.assign(l.Get("node"));
  std::string_view id = l.Get("gpu");
  if (id.empty()) id = l.Get("gpu_uuid");
  if (id.empty()) id = l.Get("pci_bus_id");
  key += '/';
  key += id;
  std::string_view part = l.Get("partition_id");
  if (!part.empty()) {
    key += "/p";
    key += part;
  }
}

void SetIfEmpty(std::string& field, std::string_view v) {
  if (field.empty() && !v.empty()) field.assign(v);
}

std::string Joined(const std::set<std::string>& s) {
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
  std::unordered_map<std::string, Row> rows;
  rows.reserve(1024);
  std::string key;
  const int64_t from_ns = now_ns - options.window_ns;
  for (int f = kUp; f <= kStep; ++f) {
    window.ForEach(kMetrics[f], from_ns, now_ns,
                   [&](const Labels& l, std::span<const WindowPoint> pts) {
                     DeviceKeyOf(l, key);
                     Row& r = rows[key];
                     if (r.key.empty()) {
                       r.key = key;
                       r.uuid.assign(l.Get("gpu_uuid"));
                       r.node.assign(l.Get("node"));
                     }
                     SetIfEmpty(r.cloud, l.Get("cloud"));
                     SetIfEmpty(r.region, l.Get("region"));
                     SetIfEmpty(r.vendor, l.Get("vendor"));
                     SetIfEmpty(r.model, l.Get("model"));
                     const WindowPoint& last = pts.back();
                     r.last_seen_ns = std::max(r.last_seen_ns, last.timestamp_ns);
                     if (f == kHolder || f == kStep) {
                       std::string_view team = l.Get("workload_team");
                       if (!team.empty()) r.teams.emplace(team);
                       std::string_view w = l.Get("workload_name");
                       if (w.empty()) w = l.Get("workload_pod");
                       if (!w.empty()) r.workloads.emplace(w);
                       return;
                     }
                     Reading* slot[] = {&r.up,    &r.util,     &r.bandwidth, &r.occupancy,
                                        &r.power, &r.mem_used, &r.mem_total};
                     Reading& rd = *slot[f];
                     if (last.timestamp_ns < rd.ts_ns) return;  // another series is newer
                     rd.ts_ns = last.timestamp_ns;
                     rd.value = last.value;
                     if (f == kUp) r.up_reason.assign(last.value > 0 ? "" : l.Get("reason"));
                   });
  }

  std::vector<const Row*> kept;
  kept.reserve(rows.size());
  for (const auto& [k, r] : rows) {
    if (!filter.vendor.empty() && r.vendor != filter.vendor) continue;
    if (!filter.model.empty() && r.model != filter.model) continue;
    if (!filter.cloud.empty() && r.cloud != filter.cloud) continue;
    if (!filter.node.empty() && r.node != filter.node) continue;
    if (!filter.team.empty() && r.teams.count(filter.team) == 0) continue;
    kept.push_back(&r);
  }
  std::sort(kept.begin(), kept.end(), [](const Row* a, const Row* b) { return a->key < b->key; });

  int64_t up = 0, down = 0, stale = 0;
  std::map<std::string, int64_t> by_vendor = {{"nvidia", 0}, {"amd", 0}, {"intel", 0}};
  std::string devices;
  devices.reserve(kept.size() * 420);
  const int64_t stale_before = now_ns - options.stale_after_ns;
  for (const Row* r : kept) {
    bool is_stale = r->last_seen_ns < stale_before;
    std::optional<double> up_value = r->up.Get();
    if (is_stale) {
      ++stale;
    } else if (up_value.has_value()) {
      (*up_value > 0 ? up : down)++;
    }
    if (!r->vendor.empty()) by_vendor[r->vendor]++;
    if (!devices.empty()) devices += ',';
    devices += '{';
    Str("gpu_uuid", r->uuid, devices);
    Str("device", r->key, devices);
    Str("node", r->node, devices);
    Str("cloud", r->cloud, devices);
    Str("region", r->region, devices);
    Str("vendor", r->vendor, devices);
    Str("model", r->model, devices);
    Str("team", Joined(r->teams), devices);
    Str("workload", Joined(r->workloads), devices);
    AppendJsonKey("up", devices);
    devices += !up_value.has_value() ? "null" : *up_value > 0 ? "true" : "false";
    devices += ',';
    Str("up_reason", r->up_reason, devices);
    Num("utilization", r->util.Get(), devices);
    Num("memory_bandwidth", r->bandwidth.Get(), devices);
    Num("occupancy", r->occupancy.Get(), devices);
    Num("power_watts", r->power.Get(), devices);
    std::optional<double> used = r->mem_used.Get(), total = r->mem_total.Get();
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
    AppendJsonNumber(static_cast<double>(r->last_seen_ns) / 1e9, devices);
    devices += '}';
  }

  std::string out;
  out.reserve(devices.size() + 512);
  out += "{\"generated_at\":";
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
  out += "}},\"devices\":[";
  out += devices;
  out += "]}\n";
  return out;
}

}  // namespace gpufleet
