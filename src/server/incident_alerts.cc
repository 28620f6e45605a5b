#include "server/incident_alerts.h"

#include <optional>
#include <utility>

#include "server/alert_sender.h"

namespace gpufleet {

IncidentAlerts::IncidentAlerts(detect::IncidentBook& book, AlertSender* alerts,
                               std::string external_url, int64_t now_ns)
    : book_(book),
      lifecycle_(book),
      alerts_(alerts),
      external_url_(std::move(external_url)),
      now_ns_(now_ns) {}

StatusOr<detect::UpsertResult> IncidentAlerts::Observe(const detect::IncidentRecord& observation) {
  ASSIGN_OR_RETURN(detect::UpsertResult up, lifecycle_.Observe(observation, now_ns_));
  (up.created ? changes_.opened : changes_.updated).push_back(up.id);
  if (!up.created || alerts_ == nullptr) return up;
  ASSIGN_OR_RETURN(std::optional<detect::IncidentRecord> rec, book_.Get(up.id));
  if (rec.has_value()) alerts_->Fire(rec->dedup_key, AlertFromIncident(*rec, external_url_));
  return up;
}

StatusOr<bool> IncidentAlerts::Resolve(std::string_view dedup_key) {
  ASSIGN_OR_RETURN(std::optional<detect::IncidentRecord> done,
                   lifecycle_.ResolvePassed(dedup_key, now_ns_));
  if (!done.has_value()) return false;
  changes_.resolved.push_back(done->id);
  if (alerts_ != nullptr)
    alerts_->Resolve(done->dedup_key, AlertFromIncident(*done, external_url_));
  return true;
}

Status IncidentAlerts::ResolveOthers(std::string_view kind,
                                     const std::function<bool(const std::string&)>& keep) {
  ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> open,
                   book_.List(detect::IncidentStatus::kOpen));
  for (const detect::IncidentRecord& r : open) {
    if (r.kind != kind || keep(r.dedup_key)) continue;
    RETURN_IF_ERROR(Resolve(r.dedup_key).status());
  }
  return OkStatus();
}

}  // namespace gpufleet
