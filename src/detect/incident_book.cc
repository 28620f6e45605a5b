#include "detect/incident_book.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace gpufleet::detect {
namespace {

void MergeInto(std::vector<std::string>& into, const std::vector<std::string>& add) {
  for (const std::string& s : add) {
    if (std::find(into.begin(), into.end(), s) == into.end()) into.push_back(s);
  }
}

class MemoryIncidentBook : public IncidentBook {
 public:
  StatusOr<UpsertResult> Upsert(const IncidentRecord& observation, int64_t now_ns) override {
    GPUFLEET_CHECK(!observation.dedup_key.empty());
    std::lock_guard<std::mutex> lock(mu_);
    auto open = open_.find(observation.dedup_key);
    if (open != open_.end()) {
      MergeObservation(At(open->second), observation, now_ns);
      return UpsertResult{open->second, false};
    }
    IncidentRecord r = OpenIncident(observation, now_ns);
    r.id = static_cast<int64_t>(all_.size()) + 1;
    open_[r.dedup_key] = r.id;
    all_.push_back(std::move(r));
    return UpsertResult{all_.back().id, true};
  }

  StatusOr<std::vector<IncidentRecord>> ResolveStale(
      int64_t now_ns, int64_t resolve_after_ns,
      const std::vector<std::string>& keep_kinds) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<int64_t> ids;
    for (const auto& [key, id] : open_) {
      const IncidentRecord& r = At(id);
      if (r.last_seen_ns >= now_ns - resolve_after_ns) continue;
      if (std::find(keep_kinds.begin(), keep_kinds.end(), r.kind) != keep_kinds.end()) continue;
      ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    std::vector<IncidentRecord> out;
    for (int64_t id : ids) out.push_back(ResolveLocked(id, now_ns));
    return out;
  }

  StatusOr<std::optional<IncidentRecord>> ResolveOpen(std::string_view dedup_key,
                                                      int64_t now_ns) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto open = open_.find(std::string(dedup_key));
    if (open == open_.end()) return std::optional<IncidentRecord>();
    return std::optional<IncidentRecord>(ResolveLocked(open->second, now_ns));
  }

  Status SetCapturePath(int64_t id, std::string_view path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (id < 1 || id > static_cast<int64_t>(all_.size())) {
      return NotFoundError("incident " + std::to_string(id) + " not found");
    }
    At(id).capture_path = std::string(path);
    return OkStatus();
  }

  StatusOr<std::optional<IncidentRecord>> Get(int64_t id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (id < 1 || id > static_cast<int64_t>(all_.size())) return std::optional<IncidentRecord>();
    return std::optional<IncidentRecord>(At(id));
  }

  StatusOr<std::vector<IncidentRecord>> List(std::optional<IncidentStatus> status,
                                             size_t limit) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<IncidentRecord> out;
    for (auto it = all_.rbegin(); it != all_.rend(); ++it) {
      if (limit > 0 && out.size() >= limit) break;
      if (!status.has_value() || it->status == *status) out.push_back(*it);
    }
    return out;
  }

  StatusOr<int64_t> CountOpen() override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(open_.size());
  }

 private:
  IncidentRecord& At(int64_t id) { return all_[static_cast<size_t>(id - 1)]; }

  IncidentRecord ResolveLocked(int64_t id, int64_t now_ns) {
    IncidentRecord& r = At(id);
    r.status = IncidentStatus::kResolved;
    r.resolved_at_ns = now_ns;
    open_.erase(r.dedup_key);
    return r;
  }

  std::mutex mu_;
  std::vector<IncidentRecord> all_;      // by id - 1; guarded by mu_
  std::map<std::string, int64_t> open_;  // dedup key -> id; guarded by mu_
};

}  // namespace

std::string_view IncidentStatusName(IncidentStatus s) {
  return s == IncidentStatus::kOpen ? "open" : "resolved";
}

std::optional<IncidentStatus> ParseIncidentStatus(std::string_view s) {
  if (s == "open") return IncidentStatus::kOpen;
  if (s == "resolved") return IncidentStatus::kResolved;
  return std::nullopt;
}

IncidentRecord OpenIncident(const IncidentRecord& observation, int64_t now_ns) {
  IncidentRecord r = observation;
  r.id = 0;
  r.status = IncidentStatus::kOpen;
  r.first_seen_ns = now_ns;
  r.last_seen_ns = now_ns;
  r.resolved_at_ns = 0;
  if (r.window_start_ns == 0) r.window_start_ns = now_ns;
  if (r.window_end_ns == 0) r.window_end_ns = now_ns;
  r.observations = 1;
  return r;
}

void MergeObservation(IncidentRecord& open, const IncidentRecord& obs, int64_t now_ns) {
  MergeInto(open.devices, obs.devices);
  MergeInto(open.workloads, obs.workloads);
  open.severity = obs.severity;
  open.summary = obs.summary;
  open.last_seen_ns = now_ns;
  open.window_start_ns =
      std::min(open.window_start_ns, obs.window_start_ns != 0 ? obs.window_start_ns : now_ns);
  open.window_end_ns = obs.window_end_ns != 0 ? obs.window_end_ns : now_ns;
  // The worst the incident has been, and the causes seen then: a finding
  // still held after its cause has gone compares against a reference the
  // episode has entered, where nothing has risen any more.
  if (!obs.causes.empty() &&
      (open.causes.empty() || obs.estimated_slowdown >= open.estimated_slowdown)) {
    open.causes = obs.causes;
  }
  open.estimated_slowdown = std::max(open.estimated_slowdown, obs.estimated_slowdown);
  open.evidence = obs.evidence;
  ++open.observations;
  if (!obs.team.empty()) open.team = obs.team;
}

std::unique_ptr<IncidentBook> NewMemoryIncidentBook() {
  return std::make_unique<MemoryIncidentBook>();
}

}  // namespace gpufleet::detect
