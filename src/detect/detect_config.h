// DetectConfig: thresholds and windows of every detector, parsed from TOML.
// The fleet defaults live in data/detect/default.toml (embedded). A site
// config has the same shape; a table it omits ([baseline], [variance], ...)
// takes the struct defaults below (the same values as default.toml), while
// its [[rule]] and [[capture]] lists are taken as written (none = none).
//
// Durations are written "30s", "2m", "1h" (also "1h30m"). Conditions compare
// the latest value of a canonical metric, joined per device across metrics:
//   { metric = "gpu_sm_occupancy_ratio", op = "<", value = 0.5 }
//   { metric = "gpu_memory_bandwidth_utilization_ratio", op = "drop", value =
//   0.3,
//     reference = "30m" }   # below (1 - value) x its mean over `reference`
//     before the rule window
//
// Errors: InvalidArgument naming source:line and the field. Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/duration.h"
#include "core/status.h"

namespace gpufleet::detect {

struct Condition {
  enum class Op { kGreater, kLess, kDrop };
  std::string metric;
  Op op = Op::kGreater;
  double value = 0;          // threshold (> / <) or the fractional drop (drop)
  int64_t reference_ns = 0;  // drop only: trailing window the drop is measured against
};
std::string_view OpName(Condition::Op op);  // ">", "<", "drop"

// A threshold rule: every condition holds on one device for `for_ns`.
struct RuleConfig {
  std::string name;  // the finding kind, e.g. "memory_contention"
  std::vector<Condition> conditions;
  int64_t for_ns = 0;
  std::string severity = "warning";
  std::string team = "platform";
  std::string summary;  // human description, also the alert's summary
};

// Learned per-(model, cloud, workload) baselines: mean and deviation of each
// metric, updated from samples that are not themselves anomalous.
struct BaselineConfig {
  bool enabled = true;
  std::vector<std::string> metrics;
  double max_sigma = 2;                    // alert beyond this many standard deviations...
  int64_t for_ns = 10LL * 60'000'000'000;  // ...sustained this long
  int64_t min_samples = 360;               // before a baseline may alert (1 h at 10 s)
  double min_stddev_fraction = 0.02;       // floor on stddev, as a fraction of |mean|
};

// Repetition statistics over per-step durations.
struct VarianceConfig {
  bool enabled = true;
  std::string metric = "gpu_workload_step_duration_seconds";
  int64_t window_ns = 10LL * 60'000'000'000;
  size_t min_points = 30;
  double max_cv = 0.05;           // coefficient of variation of a clean workload
  double bimodality_min = 0.555;  // Sarle's bimodality coefficient (uniform = 0.555)
  double tail_ratio_max = 2;      // p99 / p50 above this = heavy tail
  // host_bound instead of variance (variance_detector.h, MeasureHostWait).
  std::string busy_metric = "gpu_utilization_ratio";
  double host_wait_min_r = 0.6;
  size_t host_wait_min_intervals = 10;
};

// Same workload on several clouds.
struct CrossCloudConfig {
  bool enabled = true;
  std::string metric = "gpu_workload_step_duration_seconds";
  int64_t window_ns = 15LL * 60'000'000'000;
  double max_gap = 0.1;    // slowest cloud's median / fastest's - 1
  size_t min_points = 10;  // per cloud
};

// Root-cause classification of contention findings.
struct RootCauseConfig {
  std::string miss_metric = "gpu_l2_miss_ratio";
  // Causes are what rose against the reference (root_cause.h); the levels
  // below count when there is no reference.
  double miss_high = 0.45;            // miss share above = cache-miss-like pressure
  double bandwidth_saturated = 0.85;  // of the device's reach, above = DRAM saturated
  double interconnect_busy = 0.5;     // interconnect/PCIe utilization above = peer traffic
  std::string stall_metric = "gpu_memory_stall_ratio";
  int64_t window_ns = 2LL * 60'000'000'000;      // averaging window of the signals
  int64_t reference_ns = 30LL * 60'000'000'000;  // before the finding: the "normal" level
};

// Conditional deep instrumentation: a cheap signal trips -> run a command.
struct CaptureTriggerConfig {
  std::string name;
  Condition condition;
  int64_t for_ns = 0;
  std::vector<std::string> command;  // argv; {node} {gpu} {gpu_uuid} are substituted
  int64_t cooldown_ns = 60LL * 60'000'000'000;
};

struct DetectConfig {
  int64_t interval_ns = 10'000'000'000;  // expected collection interval
  // A series whose newest point is older than this is stale (Prometheus'
  // lookback delta).
  int64_t lookback_ns = 5LL * 60'000'000'000;
  std::vector<RuleConfig> rules;
  BaselineConfig baseline;
  VarianceConfig variance;
  CrossCloudConfig cross_cloud;
  RootCauseConfig root_cause;
  std::vector<CaptureTriggerConfig> captures;
};

// Parses a TOML config; errors name source_name:line.
StatusOr<DetectConfig> ParseDetectConfig(std::string_view toml, std::string_view source_name);
// The embedded data/detect/default.toml, parsed once. CHECK-fails if the
// embedded file is broken (a test covers it).
const DetectConfig& DefaultDetectConfig();

// Durations live in core (core/duration.h); detect code names them unqualified.
using ::gpufleet::FormatDuration;
using ::gpufleet::ParseDurationNs;

}  // namespace gpufleet::detect
