// Finding: what a detector reports about the fleet at one evaluation.
//
// A finding is "active now": the detection engine returns the findings whose
// condition holds at the evaluation time. The incident life cycle
// (detect/incident_lifecycle.h) turns a run of findings with the same `key`
// into one incident (open on first sight, resolve when the key has been
// absent for resolve_after). Plain values; copy freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"

namespace gpufleet::detect {

// One series and the condition it met.
struct Evidence {
  std::string series;     // gpu_memory_bandwidth_utilization_ratio{gpu="3",node="n1"}
  std::string condition;  // "> 0.85 for 2m"
  double threshold = 0;
  double observed = 0;   // the value that met it (latest, or the window mean for averages)
  int64_t since_ns = 0;  // first time of the run of points that met it
};

// One root cause and its part of the estimated slowdown.
struct CauseShare {
  std::string cause;        // "memory_pressure" | "bandwidth_saturation" | "coherency"
  double share = 0;         // of the estimated slowdown, 0-1; shares of a finding sum to <= 1
  std::string explanation;  // "L2-miss-like pressure explains ~15% of the
                            // latency increase"
};

// Finding kinds.
inline constexpr char kKindMemoryContention[] = "memory_contention";
inline constexpr char kKindLatencyBound[] = "latency_bound_contention";
inline constexpr char kKindSustained[] = "sustained_contention";
inline constexpr char kKindCloudSpecific[] = "cloud_specific";
inline constexpr char kKindBaselineDeviation[] = "baseline_deviation";
inline constexpr char kKindVariance[] = "variance";
// The three contention rules' kinds (what root causes and contention
// evidence apply to).
inline bool IsContentionKind(std::string_view kind) {
  return kind == kKindMemoryContention || kind == kKindLatencyBound || kind == kKindSustained;
}
// A contention rule's conditions held but nothing shows contention (no
// neighbour, no slowdown against the workload's own baseline): a job that
// is memory-bound on its own. Informational (severity "info"), no alert.
inline constexpr char kKindMemoryBound[] = "memory_bound";
// Uneven steps whose extra time the GPU spends idle: the steps wait on the
// host (input pipeline, CPU work). Informational, to the workload's team.
inline constexpr char kKindHostBound[] = "host_bound";
// Raw trigger findings of the capture detector; the engine never returns
// them (detect/actionable.h): a trigger rides on the incident it serves, or
// its condition becomes an incident named after the trigger.
inline constexpr char kKindCaptureTrigger[] = "capture_trigger";

struct Finding {
  std::string kind;  // one of the kKind* names above
  std::string rule;  // for memory_bound: the contention rule whose conditions held
  // Stable dedup key: kind + subject (same condition on the same devices =
  // same key), e.g. "memory_contention/n1/3" (kind/node/gpu).
  std::string key;
  Labels subject;                    // node, gpu, gpu_uuid, model, cloud, workload, team when known
  std::vector<std::string> devices;  // "node/gpu" (or the uuid when no node/gpu)
  std::vector<std::string> workloads;
  int64_t window_start_ns = 0;  // when the condition started to hold
  int64_t window_end_ns = 0;    // the evaluation time
  std::vector<Evidence> evidence;
  double estimated_slowdown = 0;   // 0-1 fraction of throughput lost; 0 = unknown
  std::vector<CauseShare> causes;  // largest share first; empty when not classified
  // Contention findings: why the measured slowdown shows a neighbour
  // (detect/root_cause.h); empty when it does not.
  std::string slowdown_evidence;
  // platform (node contention) | cloud-ops (cloud-specific) | the owning team
  // (workload-specific findings)
  std::string team;
  std::string severity;  // warning | critical
  std::string summary;   // one line for humans
  // A capture that serves this finding's incident (detect/actionable.h):
  // the configured trigger name and command to run; empty when none.
  std::string capture_name;
  std::vector<std::string> capture_command;
};

}  // namespace gpufleet::detect
