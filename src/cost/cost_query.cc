#include "cost/cost_query.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "core/clock.h"
#include "detect/finding.h"
#include "detect/incident_store.h"

namespace gpufleet::cost {

std::vector<ContentionWindow> ContentionWindows(const std::vector<detect::IncidentRecord>& all,
                                                int64_t from_s, int64_t to_s) {
  std::vector<ContentionWindow> out;
  for (const detect::IncidentRecord& r : all) {
    if (r.kind != detect::kKindMemoryContention && r.kind != detect::kKindLatencyBound &&
        r.kind != detect::kKindSustained) {
      continue;
    }
    ContentionWindow w;
    w.incident_id = r.id;
    w.devices = r.devices;
    w.workloads = r.workloads;
    w.start_s = std::min(r.window_start_ns, r.first_seen_ns) / kNsPerSecond;
    // Until the condition was last seen, not until the incident resolved
    // (which waits resolve_after with the condition gone).
    w.end_s = std::max(r.last_seen_ns, r.window_end_ns) / kNsPerSecond;
    if (w.start_s <= 0) w.start_s = r.first_seen_ns / kNsPerSecond;
    if (w.end_s <= from_s || w.start_s >= to_s) continue;
    w.slowdown = r.estimated_slowdown;
    if (!r.causes.empty()) w.cause = r.causes.front().name;
    w.kind = r.kind;
    out.push_back(std::move(w));
  }
  return out;
}

StatusOr<Ledger> LedgerFromMeter(Meter& meter, const std::vector<ContentionWindow>& contention,
                                 const PriceBook& prices, const LedgerPolicy& policy,
                                 int64_t from_s, int64_t to_s, Rollup rollup,
                                 int64_t cache_before_s) {
  ASSIGN_OR_RETURN(std::vector<MeteredDevice> devices, meter.Devices());
  ASSIGN_OR_RETURN(std::shared_ptr<const std::vector<Holder>> holders, meter.Holders());
  MinuteScan scan = [&](const std::function<void(const DeviceMinute&)>& fn) {
    return meter.Scan(from_s, to_s, fn);
  };
  // A span is one block only where every minute of it is charged alike:
  // the allocation basis (usage bases weigh each minute's reading), no
  // energy price times measured energy, no contention window on the device.
  std::unordered_map<int64_t, std::pair<const MeteredDevice*, double>> info;
  for (const MeteredDevice& d : devices) {
    StatusOr<DevicePrice> p = prices.Resolve({d.node, d.cloud, d.region, d.model});
    info[d.id] = {&d, p.ok() ? p->usd_per_kwh : 0.0};
  }
  std::unordered_map<std::string, std::vector<const ContentionWindow*>> windows;
  for (const ContentionWindow& w : contention) {
    for (const std::string& dev : w.devices) windows[dev].push_back(&w);
  }
  BlockOk block_ok = [&](int64_t device, int64_t start_s, int64_t span_s, double energy_pos_j) {
    if (policy.basis != Basis::kAllocation) return false;
    auto it = info.find(device);
    if (it == info.end()) return false;
    if (it->second.second != 0 && energy_pos_j > 0) return false;
    if (policy.contention == ContentionRule::kOff) return true;
    for (const std::string* key : {&it->second.first->key, &it->second.first->gpu_uuid}) {
      auto w = windows.find(*key);
      if (w == windows.end()) continue;
      for (const ContentionWindow* cw : w->second) {
        if (cw->start_s < start_s + span_s && cw->end_s > start_s) return false;
      }
    }
    return true;
  };
  if (rollup == Rollup::kHours) {
    scan = [&meter, from_s, to_s, cache_before_s,
            block_ok](const std::function<void(const DeviceMinute&)>& fn) {
      return meter.ScanHours(from_s, to_s, cache_before_s, block_ok, fn);
    };
  }
  return ComputeLedger(devices, holders, scan, prices, contention, prices.owners(), policy, from_s,
                       to_s);
}

StatusOr<Ledger> LedgerFromStores(Meter& meter, detect::IncidentBook& incidents,
                                  const PriceBook& prices, const LedgerPolicy& policy,
                                  int64_t from_s, int64_t to_s) {
  ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> all, incidents.List(std::nullopt));
  const int64_t now_s = RealClock::Get().NowNs() / kNsPerSecond;
  return LedgerFromMeter(meter, ContentionWindows(all, from_s, to_s), prices, policy, from_s, to_s,
                         Rollup::kHours, now_s - 120);
}

std::vector<Migration> CostReaderMigrations() {
  std::vector<Migration> m = CostMigrations();
  const std::vector<Migration>& inc = detect::IncidentMigrations();
  m.insert(m.end(), inc.begin(), inc.end());
  return m;
}

}  // namespace gpufleet::cost
