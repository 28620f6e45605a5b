// IncidentAlerts: what a periodic check (budgets, cost-per-unit jumps,
// canary verdicts) does to the incident book and to Alertmanager, in one
// place. Observe opens or updates an incident through the on-pass life
// cycle (detect/incident_lifecycle.h) and fires an alert only when it is
// newly opened; Resolve ends an open one and sends the alert's resolve;
// ResolveOthers ends every open incident of a kind that the latest check no
// longer reports.
//
// Thread safety: one check at a time per object; the book and the sender are
// safe to share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "detect/incident_book.h"
#include "detect/incident_lifecycle.h"

namespace gpufleet {

class AlertSender;

struct IncidentChanges {
  std::vector<int64_t> opened;    // newly opened (alert fired)
  std::vector<int64_t> updated;   // open incidents observed again
  std::vector<int64_t> resolved;  // ended by this check (resolve sent)
};

class IncidentAlerts {
 public:
  // `alerts` may be null (no alerting). `external_url` as in AlertFromIncident.
  IncidentAlerts(detect::IncidentBook& book, AlertSender* alerts, std::string external_url,
                 int64_t now_ns);

  // The incident's id, and whether the observation opened it.
  StatusOr<detect::UpsertResult> Observe(const detect::IncidentRecord& observation);
  // Returns true when an open incident with `dedup_key` was resolved.
  StatusOr<bool> Resolve(std::string_view dedup_key);
  // Resolves every open incident of `kind` for which keep(dedup_key) is false.
  Status ResolveOthers(std::string_view kind, const std::function<bool(const std::string&)>& keep);

  const IncidentChanges& changes() const { return changes_; }

 private:
  detect::IncidentBook& book_;
  detect::IncidentLifecycle lifecycle_;
  AlertSender* alerts_;
  const std::string external_url_;
  const int64_t now_ns_;
  IncidentChanges changes_;
};

}  // namespace gpufleet
