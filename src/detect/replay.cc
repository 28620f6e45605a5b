#include "detect/replay.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_map>

#include "core/labels.h"
#include "core/strings.h"
#include "detect/baseline_store.h"
#include "detect/detection_engine.h"
#include "detect/device_series.h"
#include "detect/incident_lifecycle.h"
#include "store/window_store.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;
// Longest history a detector reads: the 30-minute references plus lookback.
constexpr int64_t kRetentionNs = 45 * 60 * kS;
constexpr std::string_view kHardNegative = "hard_negative";

int64_t AlignUp(int64_t t, int64_t step) {
  int64_t r = t % step;
  if (r < 0) r += step;
  return r == 0 ? t : t + (step - r);
}

}  // namespace

StatusOr<ReplayResult> RunReplay(const DetectConfig& config, ReplayReader& reader) {
  std::unique_ptr<BaselineStore> baselines = NewMemoryBaselineStore();
  ASSIGN_OR_RETURN(std::unique_ptr<DetectionEngine> engine,
                   DetectionEngine::Create(config, baselines.get()));
  WindowStoreOptions so;
  so.retention_ns = kRetentionNs;
  WindowStore store(so);
  std::unique_ptr<IncidentBook> book = NewMemoryIncidentBook();
  IncidentLifecycle lifecycle(*book);
  const int64_t interval = std::max<int64_t>(config.interval_ns, kS);

  ReplayResult result;
  Status failed;
  std::set<std::string> devices;
  // The reader hands out one interned Labels per series: a series seen once
  // needs no device key and no label hash again, and the store finds it by
  // its id.
  struct Known {
    uint64_t hash = 0, series_id = 0;
  };
  std::unordered_map<const Labels*, Known> known_series;
  bool first = true;
  int64_t next_tick = 0;
  auto evaluate = [&](int64_t t) {
    LifecycleStep step = lifecycle.Step(engine->Evaluate(store, t), t);
    if (!step.first_error.ok() && failed.ok()) failed = step.first_error;
    ++result.evaluations;
    if (result.evaluations % 30 == 0) {
      store.Prune(t);
      WindowStore::Stats s = store.stats();
      result.peak_series = std::max(result.peak_series, s.series);
      result.peak_memory_bytes = std::max(result.peak_memory_bytes, s.memory_bytes);
    }
  };
  reader.ForEach([&](const Labels& labels, int64_t ts, double value) {
    if (first) {
      first = false;
      result.first_ns = ts;
      next_tick = AlignUp(ts + 1, interval);
    }
    if (ts - next_tick > 2 * kRetentionNs) {
      // A long gap: let open incidents resolve, then skip the empty ticks.
      evaluate(next_tick);
      evaluate(next_tick + lifecycle.policy().resolve_after_ns + interval);
      next_tick = AlignUp(ts, interval);
    }
    while (ts >= next_tick) {
      evaluate(next_tick);
      next_tick += interval;
    }
    result.last_ns = std::max(result.last_ns, ts);
    auto [known, added] = known_series.try_emplace(&labels);
    if (added) {
      known->second.hash = WindowStore::LabelHash(labels);
      if ((!labels.Get("gpu_uuid").empty() || !labels.Get("gpu").empty()) &&
          devices.size() < 1'000'000) {
        devices.insert(DeviceKey(labels));
      }
    }
    store.Append(labels, known->second.hash, ts, value, &known->second.series_id);
  });
  if (!first) evaluate(next_tick);
  RETURN_IF_ERROR(failed);
  result.input = reader.stats();
  result.dropped_out_of_order = store.stats().dropped_out_of_order;
  result.devices = devices.size();
  ASSIGN_OR_RETURN(result.incidents, book->List(std::nullopt));
  std::reverse(result.incidents.begin(), result.incidents.end());
  return result;
}

std::string SamplesAsText(ReplayReader& reader, uint64_t* skipped) {
  std::string out;
  // Each series' `name{labels} ` once, by the reader's interned labels; ""
  // for one text cannot hold.
  std::unordered_map<const Labels*, std::string> prefix;
  reader.ForEach([&](const Labels& labels, int64_t ts_ns, double value) {
    auto [it, added] = prefix.try_emplace(&labels);
    if (added) {
      std::vector<std::pair<std::string_view, std::string_view>> rest;
      bool valid = IsValidMetricName(labels.Get("__name__"));
      for (const auto& [name, v] : labels.pairs()) {
        if (name == "__name__") continue;
        valid = valid && IsValidLabelName(name);
        rest.emplace_back(name, v);
      }
      if (valid) {
        std::string& p = it->second;
        p = labels.Get("__name__");
        AppendLabelList(rest, p);
        p += ' ';
      }
    }
    if (it->second.empty()) {
      if (skipped != nullptr) ++*skipped;
      return;
    }
    out += it->second;
    AppendDouble(value, out);
    out += ' ';
    out += std::to_string(ts_ns / 1'000'000);
    out += '\n';
  });
  return out;
}

std::string ScoredKind(std::string_view kind) {
  if (kind == "contention" || kind == "memory_contention" || kind == "latency_bound_contention" ||
      kind == "sustained_contention") {
    return "contention";
  }
  return std::string(kind);
}

namespace {

std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t c = line.find(',', pos);
    out.push_back(line.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

bool ParseNumber(std::string_view s, double& out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

StatusOr<std::vector<TruthRow>> ParseTruthCsv(std::string_view text, std::string_view origin,
                                              uint64_t* bad, std::vector<std::string>* errors) {
  std::vector<TruthRow> rows;
  size_t pos = 0, line_no = 0;
  bool header = false;
  auto fail = [&](std::string what) {
    ++*bad;
    if (errors->size() < 20) {
      errors->push_back(std::string(origin) + ":" + std::to_string(line_no) + ": " + what);
    }
  };
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.size() - pos
                                                                           : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!header) {
      if (line != "kind,cause,node,gpu_uuid,start_s,end_s,slowdown") {
        return InvalidArgumentError(std::string(origin) + ":" + std::to_string(line_no) +
                                    ": expected the header kind,cause,node,gpu_uuid,start_s,"
                                    "end_s,slowdown");
      }
      header = true;
      continue;
    }
    std::vector<std::string_view> f = SplitCsv(line);
    if (f.size() != 7) {
      fail("expected 7 fields, found " + std::to_string(f.size()));
      continue;
    }
    TruthRow r;
    r.kind = std::string(f[0]);
    r.cause = std::string(f[1]);
    r.node = std::string(f[2]);
    r.gpu_uuid = std::string(f[3]);
    double start = 0, end = 0;
    if (r.kind.empty() || !ParseNumber(f[4], start) || !ParseNumber(f[5], end) || end < start) {
      fail("kind, start_s or end_s missing or not numbers (or end before start)");
      continue;
    }
    r.start_ns = static_cast<int64_t>(start * kS);
    r.end_ns = static_cast<int64_t>(end * kS);
    if (!f[6].empty() && !(ParseNumber(f[6], r.slowdown) && r.slowdown >= 0 && r.slowdown <= 1)) {
      fail("slowdown '" + std::string(f[6]) + "' is not a fraction in [0, 1]");
      continue;
    }
    rows.push_back(std::move(r));
  }
  if (!header) return InvalidArgumentError(std::string(origin) + ": empty truth file");
  return rows;
}

namespace {

int64_t WindowOf(const DetectConfig& c, std::string_view kind) {
  int64_t w = 0;
  for (const RuleConfig& r : c.rules) {
    if (ScoredKind(r.name) == kind) w = std::max(w, r.for_ns);
  }
  if (kind == kKindVariance) w = c.variance.window_ns;
  if (kind == kKindCloudSpecific) w = c.cross_cloud.window_ns;
  if (kind == kKindBaselineDeviation) w = c.baseline.for_ns;
  for (const CaptureTriggerConfig& t : c.captures) {
    if (t.name == kind) w = t.for_ns;
  }
  return w;
}

// The window of the rule or detector that opened an incident of `kind`.
int64_t ExactWindowOf(const DetectConfig& c, std::string_view kind) {
  for (const RuleConfig& r : c.rules) {
    if (r.name == kind) return r.for_ns;
  }
  return WindowOf(c, ScoredKind(kind));
}

bool SameDevice(const IncidentRecord& inc, const TruthRow& row) {
  if (inc.subject.Get("node") == row.node &&
      (inc.subject.Get("gpu_uuid") == row.gpu_uuid || inc.subject.Get("gpu") == row.gpu_uuid)) {
    return true;
  }
  // Workload-level incidents (variance, cloud-specific) name their devices
  // only in `devices` ("node/gpu" or "node/gpu_uuid").
  const std::string key = row.node + "/" + row.gpu_uuid;
  return std::find(inc.devices.begin(), inc.devices.end(), key) != inc.devices.end();
}

int Bucket(double slowdown) {
  if (slowdown < 0.05) return 0;
  if (slowdown < 0.10) return 1;
  if (slowdown < 0.20) return 2;
  return 3;
}

std::string Cause(const IncidentRecord& inc) {
  return inc.causes.empty() ? std::string("unclassified") : inc.causes.front().name;
}

}  // namespace

ReplayScore ScoreReplay(const DetectConfig& config, const ReplayResult& result,
                        const std::vector<TruthRow>& truth) {
  ReplayScore score;
  score.gpu_days = static_cast<double>(result.devices) *
                   static_cast<double>(result.last_ns - result.first_ns) / (86400.0 * kS);
  std::map<std::pair<std::string, std::string>, ScoreLine> lines;
  auto line = [&](const std::string& kind, const std::string& cause) -> ScoreLine& {
    ScoreLine& l = lines[{kind, cause}];
    l.kind = kind;
    l.cause = cause;
    return l;
  };
  auto matches = [&](const IncidentRecord& inc, const TruthRow& row) {
    const std::string kind = ScoredKind(row.kind);
    if (ScoredKind(inc.kind) != kind || !SameDevice(inc, row)) return false;
    const int64_t grace = 2 * WindowOf(config, kind);
    return inc.first_seen_ns <= row.end_ns + grace && inc.last_seen_ns >= row.start_ns;
  };
  std::vector<bool> matched(result.incidents.size(), false);
  std::map<std::string, NegativeLine> negatives;
  for (const TruthRow& row : truth) {
    if (row.kind == kHardNegative) {
      NegativeLine& n = negatives[row.cause];
      n.kind = row.cause;
      ++n.windows;
      n.exposure_gpu_days += static_cast<double>(row.end_ns - row.start_ns) / (86400.0 * kS);
      continue;
    }
    const std::string kind = ScoredKind(row.kind);
    std::vector<ScoreLine*> ls = {&line(kind, "")};
    if (kind == "contention" && !row.cause.empty()) ls.push_back(&line(kind, row.cause));
    const IncidentRecord* first = nullptr;
    bool cause_hit = false;
    for (size_t i = 0; i < result.incidents.size(); ++i) {
      const IncidentRecord& inc = result.incidents[i];
      if (!matches(inc, row)) continue;
      matched[i] = true;
      if (first == nullptr || inc.first_seen_ns < first->first_seen_ns) first = &inc;
      cause_hit = cause_hit || Cause(inc) == row.cause;
    }
    for (size_t k = 0; k < ls.size(); ++k) {
      ScoreLine& l = *ls[k];
      const bool hit = first != nullptr && (k == 0 || cause_hit);
      ++l.episodes;
      if (row.slowdown >= 0) {
        ++l.bucket_episodes[Bucket(row.slowdown)];
        if (hit) ++l.bucket_detected[Bucket(row.slowdown)];
      }
      if (!hit) continue;
      ++l.detected;
      const int64_t latency_ns = std::max<int64_t>(0, first->first_seen_ns - row.start_ns);
      l.latencies_s.push_back(static_cast<double>(latency_ns) / kS);
      if (latency_ns <= ExactWindowOf(config, first->kind) + 2 * config.interval_ns) {
        ++l.within_bound;
      }
      if (row.slowdown >= 0 && first->estimated_slowdown > 0) {
        l.slowdown_abs_error_sum += std::abs(first->estimated_slowdown - row.slowdown);
        ++l.slowdown_scored;
      }
    }
  }
  // Precision: every incident counts, under its kind (and dominant cause);
  // informational ones (memory_bound) only when the truth has their kind.
  std::set<std::string> truth_kinds;
  for (const TruthRow& row : truth) {
    if (row.kind != kHardNegative) truth_kinds.insert(ScoredKind(row.kind));
  }
  // The shortest hard-negative window an unmatched incident overlaps.
  // None when the incident overlaps a true episode on its device (a real
  // problem reported under the wrong kind, counted in false_during_episodes).
  auto negative_of = [&](const IncidentRecord& inc, bool* during_episode) -> NegativeLine* {
    const TruthRow* best = nullptr;
    const int64_t grace = 2 * WindowOf(config, ScoredKind(inc.kind));
    for (const TruthRow& row : truth) {
      if (!SameDevice(inc, row)) continue;
      if (inc.first_seen_ns > row.end_ns + grace || inc.last_seen_ns < row.start_ns) continue;
      if (row.kind != kHardNegative) {
        *during_episode = true;
        return nullptr;
      }
      if (best == nullptr || row.end_ns - row.start_ns < best->end_ns - best->start_ns) best = &row;
    }
    return best ? &negatives[best->cause] : nullptr;
  };
  for (size_t i = 0; i < result.incidents.size(); ++i) {
    const IncidentRecord& inc = result.incidents[i];
    const std::string kind = ScoredKind(inc.kind);
    if (inc.severity == "info" && !truth_kinds.contains(kind)) {
      ++score.informational;
      bool during = false;
      if (NegativeLine* n = negative_of(inc, &during)) ++n->informational;
      continue;
    }
    ScoreLine& l = line(kind, "");
    ++l.incidents;
    if (matched[i]) {
      ++l.true_incidents;
    } else {
      ++score.false_incidents;
      ++score.false_by_kind[inc.kind];
      bool during = false;
      if (NegativeLine* n = negative_of(inc, &during)) {
        ++n->false_incidents;
        ++n->false_by_kind[inc.kind];
      }
      if (during) ++score.false_during_episodes;
    }
    if (kind != "contention") continue;
    ScoreLine& c = line(kind, Cause(inc));
    ++c.incidents;
    for (const TruthRow& row : truth) {
      if (row.cause == Cause(inc) && matches(inc, row)) {
        ++c.true_incidents;
        break;
      }
    }
  }
  for (auto& [key, l] : lines) score.lines.push_back(std::move(l));
  for (auto& [key, n] : negatives) score.negatives.push_back(std::move(n));
  return score;
}

}  // namespace gpufleet::detect
