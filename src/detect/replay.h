// Replay: the shipped detectors and the shipped incident life cycle over
// recorded series, in data time (the recording's timestamps, not the wall
// clock), as fast as the CPU allows; and the scoring of the incidents
// against a truth file.
//
// Run: samples from a ReplayReader go into a WindowStore in time order;
// whenever data time crosses the next evaluation tick (every `interval_s` of
// the detect config) the DetectionEngine evaluates at that tick and the
// IncidentLifecycle (in memory, server policy) opens, updates and resolves
// incidents. Old points are pruned every tick, so memory is bounded by the
// detectors' windows. At the end of the input every incident still open is
// reported open (last seen = its last observation).
//
// Truth CSV, header `kind,cause,node,gpu_uuid,start_s,end_s,slowdown`
// (unix seconds; cause only for contention kinds: memory_pressure,
// bandwidth_saturation, coherency; slowdown a fraction, may be empty):
//   memory_contention,bandwidth_saturation,n1,GPU-3f2a...,1733300000,1733301800,0.18
// Matching: an incident matches a truth row when the kinds match (the three
// contention rule kinds and "contention" all count as one kind,
// "contention"), one of its devices is the row's (node and gpu_uuid, or node
// and gpu index when the row's gpu_uuid is a number; for workload-level
// incidents, one of their "node/gpu" devices), and its [first seen,
// last seen] overlaps [start, end + grace] (grace = 2 rule windows). Every
// other incident is false, whoever owns it, except informational ones
// (memory_bound, severity "info", no alert) of a kind the truth never
// names, which are counted apart. Per kind (and per cause for
// contention): precision, recall, median and max detection latency (first
// seen - start) and how many detections came within the first matching
// incident's rule window + 2 collection intervals, recall per slowdown bucket (<5%, 5-10%, 10-20%, >20%),
// MAE of the estimated slowdown over matched incidents that estimate one,
// false incidents per 100 GPU-days (GPU-days = distinct devices x span of
// the recording). Rows of kind "hard_negative" (cause = the negative's
// name, e.g. solo_memory_bound; sim_recording.h) are no episodes: a false
// or informational incident on their device overlapping [start, end +
// grace] is charged to the shortest such window, per negative kind, unless
// it also overlaps a true episode on its device (then it is a real problem
// under the wrong kind: false_during_episodes).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "detect/detect_config.h"
#include "detect/incident_book.h"
#include "detect/replay_reader.h"

namespace gpufleet::detect {

struct ReplayResult {
  std::vector<IncidentRecord> incidents;  // opening order
  ReplayInputStats input;
  uint64_t evaluations = 0;
  uint64_t dropped_out_of_order = 0;  // by the window store
  int64_t first_ns = 0, last_ns = 0;  // span of the data
  size_t devices = 0;                  // distinct devices seen
  size_t peak_series = 0;
  size_t peak_memory_bytes = 0;       // window store estimate
};

// Runs the engine built from `config` over `reader`'s samples.
StatusOr<ReplayResult> RunReplay(const DetectConfig& config, ReplayReader& reader);

// Every sample `reader` holds as Prometheus text with millisecond
// timestamps, oldest first: what the exporter translation reads, for a
// vendor-exporter recording in VictoriaMetrics' export format. A series
// whose metric or label names text cannot hold (VictoriaMetrics takes any)
// is left out, its samples counted in `*skipped` when given.
std::string SamplesAsText(ReplayReader& reader, uint64_t* skipped = nullptr);

struct TruthRow {
  std::string kind, cause, node, gpu_uuid;
  int64_t start_ns = 0, end_ns = 0;
  double slowdown = -1;  // < 0: not given
};

// Parses the truth CSV. Malformed rows are counted in `bad` with messages
// ("file:line: what") in `errors` (first 20); only a missing header is an
// error.
StatusOr<std::vector<TruthRow>> ParseTruthCsv(std::string_view text, std::string_view origin,
                                              uint64_t* bad, std::vector<std::string>* errors);

struct ScoreLine {
  std::string kind;   // "contention", "baseline_deviation", ...
  std::string cause;  // "" for the kind line; a cause for contention lines
  int episodes = 0, detected = 0;
  int incidents = 0, true_incidents = 0;
  std::vector<double> latencies_s;
  int within_bound = 0;  // detected within the firing rule's window + 2 intervals
  int bucket_episodes[4] = {0, 0, 0, 0};  // <5%, 5-10%, 10-20%, >20%
  int bucket_detected[4] = {0, 0, 0, 0};
  double slowdown_abs_error_sum = 0;
  int slowdown_scored = 0;
  double precision() const { return incidents ? double(true_incidents) / incidents : 1; }
  double recall() const { return episodes ? double(detected) / episodes : 1; }
};

// False incidents charged to one kind of hard negative.
struct NegativeLine {
  std::string kind;  // the hard_negative row's cause
  int windows = 0;
  double exposure_gpu_days = 0;  // sum of the windows' lengths
  int false_incidents = 0;
  int informational = 0;  // severity info (memory_bound, lone baseline deviations), no alert
  std::map<std::string, int> false_by_kind;
};

struct ReplayScore {
  std::vector<ScoreLine> lines;
  std::vector<NegativeLine> negatives;
  int false_incidents = 0;
  std::map<std::string, int> false_by_kind;
  int false_during_episodes = 0;  // false ones overlapping a true episode on their device
  int informational = 0;  // severity "info" incidents (memory_bound) of kinds the truth lacks
  double gpu_days = 0;
  double false_per_100_gpu_days() const {
    return gpu_days > 0 ? 100 * false_incidents / gpu_days : 0;
  }
};

// The kind an incident or truth kind is scored under ("contention" for the
// contention rule kinds).
std::string ScoredKind(std::string_view kind);

ReplayScore ScoreReplay(const DetectConfig& config, const ReplayResult& result,
                        const std::vector<TruthRow>& truth);

// Human text: the incidents, the input counts and (with a score) the table.
std::string FormatReplay(const ReplayResult& result, const ReplayScore* score);
// The same as JSON.
std::string ReplayJson(const ReplayResult& result, const ReplayScore* score);

}  // namespace gpufleet::detect
