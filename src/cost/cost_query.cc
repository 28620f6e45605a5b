#include "cost/cost_query.h"

#include <algorithm>

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
    out.push_back(std::move(w));
  }
  return out;
}

StatusOr<Ledger> LedgerFromStores(Meter& meter, detect::IncidentBook& incidents,
                                  const PriceBook& prices, const LedgerPolicy& policy,
                                  int64_t from_s, int64_t to_s) {
  ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> all, incidents.List(std::nullopt));
  ASSIGN_OR_RETURN(std::vector<MeteredDevice> devices, meter.Devices());
  ASSIGN_OR_RETURN(std::vector<Holder> holders, meter.Holders());
  MinuteScan scan = [&](const std::function<void(const DeviceMinute&)>& fn) {
    return meter.Scan(from_s, to_s, fn);
  };
  return ComputeLedger(devices, holders, scan, prices, ContentionWindows(all, from_s, to_s),
                       prices.owners(), policy, from_s, to_s);
}

std::vector<Migration> CostReaderMigrations() {
  std::vector<Migration> m = CostMigrations();
  const std::vector<Migration>& inc = detect::IncidentMigrations();
  m.insert(m.end(), inc.begin(), inc.end());
  return m;
}

}  // namespace gpufleet::cost
