#include "cost/work_meter.h"

#include <algorithm>
#include <cmath>

namespace gpufleet::cost {
namespace {

constexpr std::string_view kSteps = "gpu_workload_step_duration_seconds";
constexpr std::string_view kTokens = "gpu_workload_tokens_total";

struct MinuteWork {
  std::string workload, team;
  int64_t steps = 0;
  double step_seconds = 0, tokens = 0;
  int64_t last_ms = -1;
  double last_value = 0;
};

}  // namespace

bool IsWorkSeries(std::string_view name) { return name == kSteps || name == kTokens; }

Status WorkMeter::LoadLocked() {
  if (loaded_) return OkStatus();
  ASSIGN_OR_RETURN(Statement q, db_->Prepare("SELECT series, last_ms, last_value FROM "
                                             "cost_work_minutes w WHERE minute = (SELECT "
                                             "MAX(minute) FROM cost_work_minutes WHERE series = "
                                             "w.series)"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    cursors_[q.ColumnText(0)] = {q.ColumnInt64(1), q.ColumnDouble(2)};
  }
  loaded_ = true;
  return OkStatus();
}

Status WorkMeter::Record(const std::vector<RemoteWriteSeries>& series) {
  std::vector<MeterKey> keys(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    keys[i].work = IsWorkSeries(series[i].labels.Get("__name__"));
  }
  return Record(series, keys);
}

Status WorkMeter::Record(const std::vector<RemoteWriteSeries>& series,
                         const std::vector<MeterKey>& keys) {
  if (keys.size() != series.size()) {
    return InvalidArgumentError("work meter: " + std::to_string(keys.size()) + " keys for " +
                                std::to_string(series.size()) + " series");
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::unordered_map<std::string, Cursor> moved;
  WorkCounters delta;
  Status st = RecordLocked(series, keys, moved, delta);
  if (!st.ok()) {
    cursors_.clear();  // the transaction rolled back: reload what it kept
    loaded_ = false;
    return st;
  }
  for (auto& [k, c] : moved) cursors_[k] = c;
  counters_.samples_metered += delta.samples_metered;
  counters_.samples_duplicate += delta.samples_duplicate;
  counters_.samples_skipped += delta.samples_skipped;
  return OkStatus();
}

Status WorkMeter::RecordLocked(const std::vector<RemoteWriteSeries>& series,
                               const std::vector<MeterKey>& keys,
                               std::unordered_map<std::string, Cursor>& moved,
                               WorkCounters& delta) {
  std::map<std::pair<std::string, int64_t>, MinuteWork> minutes;
  for (size_t i = 0; i < series.size(); ++i) {
    if (!keys[i].work) continue;
    const RemoteWriteSeries& s = series[i];
    std::string_view name = s.labels.Get("__name__");
    const bool steps = name == kSteps;
    if (!steps && name != kTokens) continue;
    std::string_view workload = s.labels.Get("workload_name");
    std::string_view pod = s.labels.Get("workload_pod");
    if (workload.empty()) workload = pod;
    if (workload.empty()) {
      delta.samples_skipped += s.samples.size();
      continue;
    }
    if (!loaded_) RETURN_IF_ERROR(LoadLocked());
    std::string key = std::string(name) + "|" + std::string(workload) + "|" + std::string(pod);
    auto mit = moved.find(key);
    Cursor c = mit != moved.end() ? mit->second : cursors_.count(key) ? cursors_[key] : Cursor();
    std::vector<RemoteWriteSample> samples = s.samples;
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto& a, const auto& b) { return a.timestamp_ms < b.timestamp_ms; });
    for (const RemoteWriteSample& x : samples) {
      if (x.timestamp_ms <= c.last_ms) {
        delta.samples_duplicate++;
        continue;
      }
      if (!std::isfinite(x.value)) {
        // A staleness marker (Prometheus writes one when a recorded series
        // disappears) or a broken point: no work, and the cursor keeps the
        // last real value so the next point is not taken for a reset.
        delta.samples_skipped++;
        continue;
      }
      int64_t minute = x.timestamp_ms / 60000 * 60;
      MinuteWork& m = minutes[{key, minute}];
      m.workload = std::string(workload);
      m.team = std::string(s.labels.Get("workload_team"));
      if (steps) {
        m.steps++;
        m.step_seconds += std::max(0.0, x.value);
      } else if (c.last_ms >= 0) {
        m.tokens += x.value >= c.last_value ? x.value - c.last_value : std::max(0.0, x.value);
      }
      c = {x.timestamp_ms, x.value};
      m.last_ms = c.last_ms;
      m.last_value = c.last_value;
      delta.samples_metered++;
    }
    moved[key] = c;
  }
  if (minutes.empty()) return OkStatus();
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(
      Statement up,
      db_->Prepare("INSERT INTO cost_work_minutes (series, minute, workload, team, steps, "
                   "step_seconds, tokens, last_ms, last_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (series, minute) DO UPDATE SET steps = steps + excluded.steps, "
                   "step_seconds = step_seconds + excluded.step_seconds, tokens = tokens + "
                   "excluded.tokens, last_ms = excluded.last_ms, last_value = "
                   "excluded.last_value"));
  for (const auto& [k, m] : minutes) {
    RETURN_IF_ERROR(up.Reset());
    up.Bind(1, k.first).Bind(2, k.second).Bind(3, m.workload).Bind(4, m.team);
    up.Bind(5, m.steps).Bind(6, m.step_seconds).Bind(7, m.tokens);
    up.Bind(8, m.last_ms).Bind(9, m.last_value);
    ASSIGN_OR_RETURN(bool row, up.Step());
    (void)row;
  }
  RETURN_IF_ERROR(up.Reset());
  return tx.Commit();
}

StatusOr<std::map<std::string, WorkTotals>> WorkMeter::Totals(int64_t from_s, int64_t to_s) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement q,
                   db_->Prepare("SELECT series, workload, MAX(team), SUM(steps), "
                                "SUM(step_seconds), SUM(tokens) FROM cost_work_minutes WHERE "
                                "minute >= ? AND minute < ? GROUP BY series"));
  q.Bind(1, from_s).Bind(2, to_s);
  std::map<std::string, WorkTotals> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    const std::string series = q.ColumnText(0);
    const std::string pod = series.substr(series.rfind('|') + 1);
    std::vector<std::string> keys = {q.ColumnText(1)};
    if (!pod.empty()) keys.push_back(kPodKeyPrefix + pod);
    for (const std::string& k : keys) {
      WorkTotals& w = out[k];
      if (w.team.empty()) w.team = q.ColumnText(2);
      w.steps += q.ColumnInt64(3);
      w.step_seconds += q.ColumnDouble(4);
      w.tokens += q.ColumnDouble(5);
    }
  }
  return out;
}

WorkCounters WorkMeter::counters() {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace gpufleet::cost
