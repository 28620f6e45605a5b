// `gpufleet advise`: reads a running server's APIs and advises moves
// (place/advise.h has the rule).
//
// What it reads:
//   GET /api/v1/fleet                     where each job runs (the devices
//       whose workload labels name it: node, model, cloud, region), its
//       devices' open incidents, and the free capacity: devices that are up,
//       not stale and hold no workload, counted per node (partitions, MIG
//       or tiles, are not counted: the throughput model knows whole GPUs);
//   GET /api/v1/cost?from=-1h&by=workload  what each job pays per GPU-hour
//       (allocation $ / GPU-hours) and the share of its GPU time lost to
//       contention (lost GPU-hours / GPU-hours); for a job that reports step
//       times the loss comes from the last 15 minutes instead
//       (from=-15m), the window its measured step time covers;
//   GET /api/v1/cost?from=-1h&by=node      each node's price per GPU-hour
//       ((allocation + idle $) / (GPU-hours + idle GPU-hours)): the server's
//       price book as the ledger applied it, with energy on premises;
//   GET /api/v1/series?metric=gpu_workload_step_duration_seconds&from=-15m
//       each job's step reports (its workload_name or workload_pod label):
//       their median over the 15 s grid of the last 15 minutes is its
//       measured step time (none reported: the throughput model alone);
//   GET /api/v1/canary/runs?latest=node&limit=1000  each node's newest
//       canary run, however old (up to 1,000 nodes): a
//       target whose benchmarks regressed runs at its throughput x the
//       worst of them (value / baseline; latency inverted), one that failed
//       a pass/fail diagnostic (or a benchmark that could not run) is no
//       target; a job's own node's regression is told, not counted.
// What telemetry cannot know comes from a jobs file:
//
//   # advise.toml
//   [[job]]
//   name = "llm-pretrain"                    # a workload label of the fleet
//   job_type = "Transformer (batch size 64)" # its profile: a job type of Gavel's table
//   remaining_steps = 500000                 # its own steps (those it reports)
//   checkpoint_minutes = 6                   # write + restore; default 5
//   startup_minutes = 3                      # image pull, JIT; default 3
//
// Errors name the file, line and field; a job the fleet does not show is
// listed as not judged, never dropped silently. A malformed server answer
// is an error naming the endpoint.
//
// Thread safety: stateless functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "net/http_client.h"
#include "place/advise.h"
#include "place/gavel_data.h"

namespace gpufleet {

struct AdviseJobSpec {
  std::string name, job_type;
  double remaining_steps = 0;
  double checkpoint_minutes = 5;
  double startup_minutes = 3;
  std::string where;  // "advise.toml:3"
};

StatusOr<std::vector<AdviseJobSpec>> ParseAdviseJobs(std::string_view toml,
                                                     std::string_view origin);

struct AdviseSnapshot {
  std::vector<place::RunningJob> jobs;
  std::vector<place::FreeCapacity> capacity;
  std::vector<std::string> not_found;  // jobs of the file the fleet does not show
};

// The server's answers the advice is built from (JSON bodies as it sends
// them).
struct AdviseAnswers {
  std::string_view fleet;             // GET /api/v1/fleet
  std::string_view cost_by_workload;  // GET /api/v1/cost?from=-1h&by=workload
  std::string_view cost_by_node;      // GET /api/v1/cost?from=-1h&by=node
  // GET /api/v1/cost?from=-15m&by=workload: the contention loss over the
  // window the step reports' median covers (a job that reports steps).
  std::string_view cost_by_workload_recent;
  std::string_view step_series;  // GET /api/v1/series?metric=gpu_workload_step_duration_seconds
  std::string_view canary_runs;  // GET /api/v1/canary/runs
};

// The advisor's input from the answers and the jobs file.
StatusOr<AdviseSnapshot> SnapshotFromApis(const AdviseAnswers& answers,
                                          const std::vector<AdviseJobSpec>& jobs);

// Fetches the answers from `server_url` (with `token` when not empty)
// and builds the snapshot.
StatusOr<AdviseSnapshot> FetchAdviseSnapshot(HttpClient& client, const std::string& server_url,
                                             const std::string& token,
                                             const std::vector<AdviseJobSpec>& jobs);

}  // namespace gpufleet
