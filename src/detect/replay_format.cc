// Text and JSON output of a replay (declared in detect/replay.h).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/duration.h"
#include "core/format.h"
#include "detect/replay.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr const char* kBuckets[] = {"<5%", "5-10%", "10-20%", ">20%"};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Device(const IncidentRecord& r) {
  std::string d(r.subject.Get("node"));
  std::string_view id = r.subject.Get("gpu");
  if (id.empty()) id = r.subject.Get("gpu_uuid");
  if (!id.empty()) d += "/" + std::string(id);
  return d.empty() && !r.devices.empty() ? r.devices.front() : d;
}

}  // namespace

std::string FormatReplay(const ReplayResult& result, const ReplayScore* score) {
  std::string out;
  const ReplayInputStats& in = result.input;
  out += "replayed " + std::to_string(in.samples) + " samples from " + std::to_string(in.files) +
         " file(s), " + std::to_string(result.devices) + " device(s), " +
         FormatDurationHuman(result.last_ns - result.first_ns) + " of data, " +
         std::to_string(result.evaluations) + " evaluations\n";
  out += "skipped: " + std::to_string(in.malformed) + " malformed, " +
         std::to_string(in.no_timestamp) + " without timestamp, " + std::to_string(in.nan) +
         " NaN, " + std::to_string(in.late) + " late (older than their series' previous sample), " +
         std::to_string(result.dropped_out_of_order) + " out of order; " +
         std::to_string(in.backwards) + " backwards timestamps\n";
  for (const std::string& e : in.errors) out += "  " + e + "\n";
  out += "\n" + std::to_string(result.incidents.size()) + " incident(s)\n";
  for (const IncidentRecord& r : result.incidents) {
    out += "  " + std::string(IncidentStatusName(r.status)) + "  " + r.kind + "  " + Device(r) +
           "  at " + std::to_string(r.first_seen_ns / kS) + " for " +
           FormatDurationHuman(r.last_seen_ns - r.first_seen_ns);
    if (r.estimated_slowdown > 0) out += "  slowdown " + FormatFixed(r.estimated_slowdown, 2);
    if (!r.causes.empty()) out += "  cause " + r.causes.front().name;
    out += "\n";
  }
  if (score == nullptr) return out;
  out += "\n| kind | cause | episodes | detected | recall | incidents | precision | "
         "median latency s | max latency s | within window + 2 intervals | recall <5% | 5-10% | "
         "10-20% | >20% | slowdown MAE |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ScoreLine& l : score->lines) {
    out += "| " + l.kind + " | " + (l.cause.empty() ? "all" : l.cause) + " | " +
           std::to_string(l.episodes) + " | " + std::to_string(l.detected) + " | " +
           FormatFixed(l.recall(), 2) + " | " + std::to_string(l.incidents) + " | " +
           FormatFixed(l.precision(), 2) + " | " + FormatFixed(Median(l.latencies_s), 0) + " | " +
           (l.latencies_s.empty()
                ? std::string("-")
                : FormatFixed(*std::max_element(l.latencies_s.begin(), l.latencies_s.end()), 0)) +
           " | " + std::to_string(l.within_bound) + "/" + std::to_string(l.detected) + " | ";
    for (int b = 0; b < 4; ++b) {
      out += l.bucket_episodes[b] ? std::to_string(l.bucket_detected[b]) + "/" +
                                        std::to_string(l.bucket_episodes[b])
                                  : std::string("-");
      out += " | ";
    }
    out += l.slowdown_scored
               ? FormatFixed(100 * l.slowdown_abs_error_sum / l.slowdown_scored, 1) + " pts"
               : std::string("-");
    out += " |\n";
  }
  out += "\nfalse incidents: " + std::to_string(score->false_incidents) + " (" +
         FormatFixed(score->false_per_100_gpu_days(), 2) + " per 100 GPU-days over " +
         FormatFixed(score->gpu_days, 2) + " GPU-days)";
  for (const auto& [kind, n] : score->false_by_kind) out += "; " + kind + " " + std::to_string(n);
  out += "\nof which during a true episode on the device (wrong kind): " +
         std::to_string(score->false_during_episodes);
  out +=
      "\ninformational (severity info: memory_bound, host_bound, lone baseline deviations; no "
      "alert): " +
      std::to_string(score->informational) + "\n";
  if (score->negatives.empty()) return out;
  out += "\n| hard negative | windows | exposure GPU-days | false incidents | per 100 GPU-days "
         "| informational | false by kind |\n|---|---|---|---|---|---|---|\n";
  for (const NegativeLine& n : score->negatives) {
    std::string kinds;
    for (const auto& [kind, c] : n.false_by_kind) {
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(c);
    }
    out += "| " + n.kind + " | " + std::to_string(n.windows) + " | " +
           FormatFixed(n.exposure_gpu_days, 2) + " | " + std::to_string(n.false_incidents) + " | " +
           FormatFixed(score->gpu_days > 0 ? 100 * n.false_incidents / score->gpu_days : 0, 1) +
           " | " + std::to_string(n.informational) + " | " + (kinds.empty() ? "-" : kinds) + " |\n";
  }
  return out;
}

std::string ReplayJson(const ReplayResult& result, const ReplayScore* score) {
  nlohmann::json j;
  const ReplayInputStats& in = result.input;
  j["input"] = {{"files", in.files},
                {"runs", in.runs},
                {"samples", in.samples},
                {"malformed", in.malformed},
                {"no_timestamp", in.no_timestamp},
                {"nan", in.nan},
                {"backwards", in.backwards},
                {"late", in.late},
                {"out_of_order", result.dropped_out_of_order},
                {"errors", in.errors}};
  j["evaluations"] = result.evaluations;
  j["devices"] = result.devices;
  j["first_s"] = result.first_ns / kS;
  j["last_s"] = result.last_ns / kS;
  j["peak_series"] = result.peak_series;
  j["peak_memory_bytes"] = result.peak_memory_bytes;
  nlohmann::json incidents = nlohmann::json::array();
  for (const IncidentRecord& r : result.incidents) {
    nlohmann::json cause = nlohmann::json::array();
    for (const IncidentCause& c : r.causes) cause.push_back({{"cause", c.name}, {"share", c.share}});
    // A workload-level incident on one device names it like a device's own.
    std::string node(r.subject.Get("node")), gpu(r.subject.Get("gpu"));
    if (node.empty() && r.devices.size() == 1) {
      const size_t slash = r.devices[0].find('/');
      if (slash != std::string::npos) {
        node = r.devices[0].substr(0, slash);
        gpu = r.devices[0].substr(slash + 1);
      }
    }
    incidents.push_back({{"kind", r.kind},
                         {"status", IncidentStatusName(r.status)},
                         {"node", node},
                         {"gpu", gpu},
                         {"gpu_uuid", r.subject.Get("gpu_uuid")},
                         {"devices", r.devices},
                         {"severity", r.severity},
                         {"first_seen_s", r.first_seen_ns / kS},
                         {"last_seen_s", r.last_seen_ns / kS},
                         {"estimated_slowdown", r.estimated_slowdown},
                         {"causes", cause},
                         {"summary", r.summary}});
  }
  j["incidents"] = incidents;
  if (score != nullptr) {
    nlohmann::json lines = nlohmann::json::array();
    for (const ScoreLine& l : score->lines) {
      nlohmann::json buckets = nlohmann::json::object();
      for (int b = 0; b < 4; ++b) {
        buckets[kBuckets[b]] = {{"episodes", l.bucket_episodes[b]},
                                {"detected", l.bucket_detected[b]}};
      }
      lines.push_back({{"kind", l.kind},
                       {"cause", l.cause},
                       {"episodes", l.episodes},
                       {"detected", l.detected},
                       {"recall", l.recall()},
                       {"incidents", l.incidents},
                       {"true_incidents", l.true_incidents},
                       {"precision", l.precision()},
                       {"median_latency_s", Median(l.latencies_s)},
                       {"within_bound", l.within_bound},
                       {"recall_by_slowdown", buckets},
                       {"slowdown_mae", l.slowdown_scored
                                            ? nlohmann::json(l.slowdown_abs_error_sum /
                                                             l.slowdown_scored)
                                            : nlohmann::json(nullptr)}});
    }
    nlohmann::json negatives = nlohmann::json::array();
    for (const NegativeLine& n : score->negatives) {
      negatives.push_back({{"kind", n.kind},
                           {"windows", n.windows},
                           {"exposure_gpu_days", n.exposure_gpu_days},
                           {"false_incidents", n.false_incidents},
                           {"informational", n.informational},
                           {"false_by_kind", n.false_by_kind}});
    }
    j["score"] = {{"lines", lines},
                  {"hard_negatives", negatives},
                  {"false_incidents", score->false_incidents},
                  {"false_by_kind", score->false_by_kind},
                  {"false_during_episodes", score->false_during_episodes},
                  {"informational", score->informational},
                  {"gpu_days", score->gpu_days},
                  {"false_per_100_gpu_days", score->false_per_100_gpu_days()}};
  }
  return j.dump(2) + "\n";
}

}  // namespace gpufleet::detect
