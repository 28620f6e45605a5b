#include "detect/detect_eval.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/strings.h"
#include "detect/detection_engine.h"
#include "detect/fleet_sim.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kGraceNs = 15 * 60 * kS;

bool IsContention(const std::string& kind) {
  return kind == kKindMemoryContention || kind == kKindLatencyBound || kind == kKindSustained;
}

int64_t RuleWindow(const DetectConfig& c, const Finding& f) {
  for (const RuleConfig& r : c.rules) {
    if (r.name == f.kind) return r.for_ns;
  }
  if (f.kind == kKindVariance) return c.variance.window_ns;
  if (f.kind == kKindCloudSpecific) return c.cross_cloud.window_ns;
  if (f.kind == kKindBaselineDeviation) return c.baseline.for_ns;
  for (const CaptureTriggerConfig& t : c.captures) {
    if (t.name == f.capture_name) return t.for_ns;
  }
  return 0;
}

// The class an incident is scored under; "" for findings not scored.
std::string ClassOf(const Finding& f) {
  if (IsContention(f.kind)) return "contention";
  // A capture trigger's condition on a device with work is an incident named
  // after the trigger (detect/actionable.h).
  if (f.kind == "low_utilization") return "idle";
  if (f.kind == kKindMemoryBound) return "";  // informational, not an alert
  if (f.kind == f.capture_name) return "";
  if (f.kind == kKindBaselineDeviation) return "baseline";
  return f.kind;
}

struct RunResult {
  std::vector<EvalIncident> incidents;
  std::vector<SimEpisode> episodes;
  double gpu_days = 0;
};

StatusOr<RunResult> RunOnce(const DetectConfig& config, const FleetSimOptions& sim_options) {
  FleetSim sim(sim_options);
  WindowStoreOptions store_options;
  store_options.retention_ns = 45 * 60 * kS;
  WindowStore store(store_options);
  std::unique_ptr<BaselineStore> baselines = NewMemoryBaselineStore();
  ASSIGN_OR_RETURN(std::unique_ptr<DetectionEngine> engine,
                   DetectionEngine::Create(config, baselines.get()));
  EvalIncidentTracker tracker(config);
  int64_t now = 0;
  int64_t tick = 0;
  while (sim.Step(store, &now)) {
    if (++tick % 30 == 0) store.Prune(now);
    RETURN_IF_ERROR(tracker.Add(engine->Evaluate(store, now), now));
  }
  RunResult result;
  ASSIGN_OR_RETURN(result.incidents, tracker.Incidents());
  result.episodes = sim.episodes();
  result.gpu_days = sim.gpu_days();
  return result;
}

bool SharesDevice(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

bool Overlaps(const EvalIncident& i, const SimEpisode& e) {
  return i.first_ns <= e.end_ns + kGraceNs && i.last_ns >= e.start_ns;
}

std::string Fixed(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, x);
  return buf;
}

}  // namespace

EvalIncidentTracker::EvalIncidentTracker(const DetectConfig& config, LifecyclePolicy policy)
    : config_(config), book_(NewMemoryIncidentBook()), lifecycle_(*book_, std::move(policy)) {}

Status EvalIncidentTracker::Add(const std::vector<Finding>& findings, int64_t now_ns) {
  std::vector<Finding> scored;
  std::vector<std::string> classes;
  for (const Finding& f : findings) {
    std::string cls = ClassOf(f);
    if (cls.empty()) continue;
    scored.push_back(f);
    classes.push_back(std::move(cls));
  }
  LifecycleStep step = lifecycle_.Step(scored, now_ns);
  RETURN_IF_ERROR(step.first_error);
  for (size_t i = 0; i < scored.size(); ++i) {
    const Finding& f = scored[i];
    const UpsertResult& up = step.observed[i];
    if (up.id == 0) continue;  // no key: the server ignores it too
    if (up.created) {
      EvalIncident& inc = scored_[up.id];
      inc.cls = classes[i];
      inc.label = inc.cls == "contention" ? "" : inc.cls;
      inc.bound_ns = RuleWindow(config_, f) + 2 * config_.interval_ns;
    }
    EvalIncident& inc = scored_[up.id];
    if (inc.cls == "contention" && inc.label.empty() && !f.causes.empty()) {
      inc.label = f.causes.front().cause;
    }
  }
  return OkStatus();
}

StatusOr<std::vector<EvalIncident>> EvalIncidentTracker::Incidents() const {
  ASSIGN_OR_RETURN(std::vector<IncidentRecord> all, book_->List(std::nullopt));
  std::vector<EvalIncident> out;
  out.reserve(all.size());
  for (auto r = all.rbegin(); r != all.rend(); ++r) {  // List is newest first
    auto it = scored_.find(r->id);
    if (it == scored_.end()) continue;
    EvalIncident inc = it->second;
    inc.devices = r->devices;
    inc.first_ns = r->first_seen_ns;
    inc.last_ns = r->last_seen_ns;
    if (inc.label.empty()) inc.label = "unclassified";
    out.push_back(std::move(inc));
  }
  return out;
}

const KindQuality* EvalReport::Find(std::string_view kind) const {
  for (const KindQuality& k : kinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

StatusOr<EvalReport> RunDetectionEval(const DetectConfig& config, const EvalOptions& options) {
  if (!(options.gpu_days > 0)) return InvalidArgumentError("gpu_days must be > 0");
  EvalReport report;
  report.seed = options.seed;
  report.resolve_after_ns = LifecyclePolicy().resolve_after_ns;
  constexpr double kGpus = 16;

  FleetSimOptions sim;
  sim.seed = options.seed;
  sim.interval_ns = config.interval_ns;
  sim.duration_s = options.gpu_days / kGpus * 86400;
  ASSIGN_OR_RETURN(RunResult run, RunOnce(config, sim));
  report.gpu_days = run.gpu_days;

  const std::vector<std::string> kinds = {"memory_pressure", "bandwidth_saturation", "coherency",
                                          "variance",        "cloud_specific",       "idle"};
  std::map<std::string, KindQuality> q;
  for (const std::string& k : kinds) q[k].kind = k;
  // Episode index -> earliest matching incident.
  std::map<size_t, const EvalIncident*> detected;
  for (const EvalIncident& inc : run.incidents) {
    if (inc.cls == "baseline") continue;  // not a ground-truth kind here
    KindQuality& kq = q[inc.label];
    kq.kind = inc.label;
    ++kq.incidents;
    bool matched = false, explained = false;
    for (size_t e = 0; e < run.episodes.size(); ++e) {
      const SimEpisode& ep = run.episodes[e];
      if (!SharesDevice(inc.devices, ep.devices) || !Overlaps(inc, ep)) continue;
      if (SimEpisodeKindName(ep.kind) == inc.label) {
        matched = true;
        auto d = detected.find(e);
        if (d == detected.end() || inc.first_ns < d->second->first_ns) detected[e] = &inc;
      } else if (inc.cls == "variance" || inc.cls == "cloud_specific") {
        explained = true;
      }
    }
    if (matched) {
      ++kq.true_incidents;
    } else if (explained) {
      ++kq.explained;
    }
  }
  for (size_t e = 0; e < run.episodes.size(); ++e) {
    const SimEpisode& ep = run.episodes[e];
    if (!IsGroundTruth(ep.kind)) continue;
    KindQuality& kq = q[std::string(SimEpisodeKindName(ep.kind))];
    ++kq.episodes;
    auto d = detected.find(e);
    if (d == detected.end()) continue;
    ++kq.detected;
    const double latency_s =
        std::max<double>(0, static_cast<double>(d->second->first_ns - ep.start_ns) / 1e9);
    kq.latencies_s.push_back(latency_s);
    kq.latency_bound_s = std::max(kq.latency_bound_s, d->second->bound_ns / 1e9);
    if (latency_s <= d->second->bound_ns / 1e9) ++kq.within_bound;
  }
  for (const std::string& k : kinds) report.kinds.push_back(q[k]);
  for (auto& [k, kq] : q) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) report.kinds.push_back(kq);
  }

  if (options.clean_gpu_days > 0) {
    FleetSimOptions clean = sim;
    clean.seed = options.seed + 1000;
    clean.inject_truth = false;
    clean.duration_s = options.clean_gpu_days / kGpus * 86400;
    ASSIGN_OR_RETURN(RunResult c, RunOnce(config, clean));
    report.clean_gpu_days = c.gpu_days;
    for (const EvalIncident& inc : c.incidents) {
      // A baseline deviation during a thermal fault is a true deviation.
      bool explained = false;
      if (inc.cls == "baseline") {
        for (const SimEpisode& ep : c.episodes) {
          explained = explained || (ep.kind == SimEpisodeKind::kThermal &&
                                    SharesDevice(inc.devices, ep.devices) && Overlaps(inc, ep));
        }
      }
      if (explained) continue;
      ++report.clean_false_incidents;
      ++report.clean_false_by_kind[inc.label];
    }
  }
  return report;
}

std::string FormatEvalReport(const EvalReport& r) {
  std::string out = "Simulated fleet: " + Fixed(r.gpu_days, 1) +
                    " GPU-days with injected episodes, seed " + std::to_string(r.seed) +
                    "; incidents by the server's life cycle (resolve after " +
                    Fixed(static_cast<double>(r.resolve_after_ns) / 1e9, 0) + " s absent).\n\n";
  out +=
      "| kind | episodes | detected | recall | incidents | true | explained "
      "| precision | "
      "latency p50 s | latency max s | within window + 2 intervals |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const KindQuality& k : r.kinds) {
    std::vector<double> lat = k.latencies_s;
    std::sort(lat.begin(), lat.end());
    const std::string p50 = lat.empty() ? "-" : Fixed(lat[lat.size() / 2], 0);
    const std::string max = lat.empty() ? "-" : Fixed(lat.back(), 0);
    out += "| " + k.kind + " | " + std::to_string(k.episodes) + " | " + std::to_string(k.detected) +
           " | " + Fixed(k.recall(), 3) + " | " + std::to_string(k.incidents) + " | " +
           std::to_string(k.true_incidents) + " | " + std::to_string(k.explained) + " | " +
           Fixed(k.precision(), 3) + " | " + p50 + " | " + max + " | " +
           std::to_string(k.within_bound) + "/" + std::to_string(k.detected) + " |\n";
  }
  if (r.clean_gpu_days > 0) {
    out += "\nClean scenario: " + Fixed(r.clean_gpu_days, 1) +
           " GPU-days (noise, noisy-neighbour bursts, thermal throttling, GPU "
           "lost): " +
           std::to_string(r.clean_false_incidents) +
           " false incidents = " + Fixed(r.false_per_100_gpu_days(), 2) + " per 100 GPU-days";
    if (!r.clean_false_by_kind.empty()) {
      out += " (";
      bool first = true;
      for (const auto& [k, n] : r.clean_false_by_kind) {
        out += (first ? "" : ", ") + k + ": " + std::to_string(n);
        first = false;
      }
      out += ")";
    }
    out += ".\n";
  }
  return out;
}

}  // namespace gpufleet::detect
