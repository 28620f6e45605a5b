// Advice on moves (`gpufleet advise`): for each running job, is there free
// capacity elsewhere in the fleet where finishing the job is cheaper or
// faster by more than moving it costs?
//
// For a job now on `gpus` devices of one model, with `remaining_steps` left:
//   now:   measured when the job reports its step times (the median of its
//          gpu_workload_step_duration_seconds reports: 1 / that steps/s, as
//          it runs, contention included); otherwise its throughput on its
//          model (catalog_throughput.h) x (1 - the share of its GPU time it
//          currently loses to contention, from the cost ledger's lost
//          GPU-hours). hours_now = steps / that / 3600; usd_now = hours_now x
//          gpus x its current price per GPU-hour.
//   after: migration (checkpoint write + restore + start-up: image pull,
//          JIT warm-up) takes migration_minutes, during which the job makes
//          no progress and holds `gpus` devices at the dearer of the two
//          prices; then the rest runs uncontended (the target devices are
//          free) at the target's throughput and price. With a measured rate
//          the target's is that rate without the contention loss, times the
//          model's ratio target / current (1 on the same model): the
//          measurement carries the job's own speed, the model only how it
//          changes between GPU models.
// A target whose newest canary run shows regressed benchmarks runs at its
// throughput x the worst of them (value / baseline), a pessimistic bound
// that keeps jobs off a node that fell to a slow path; one that failed a
// pass/fail diagnostic is no target at all.
// A job whose GPU count Gavel's table lacks (it has 1, 2, 4, 8) is judged
// on its 1-GPU figures times its GPUs (the same factor on both sides).
// A move is advised when it finishes no later and costs no more, and is
// strictly better in one of the two (so the saving exceeds the migration
// cost, which both figures include). Per job the move with the largest
// dollar saving wins (then time); targets are taken greedily, biggest
// saving first, so two jobs never get the same free devices.
//
// Thread safety: pure function of its inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "place/gavel_data.h"

namespace gpufleet::place {

// What the node's newest canary run (GET /api/v1/canary/runs) says about
// it: its regressed benchmarks slow whatever runs there by at most the worst
// of them (a job spends at most all its time in the regressed resource).
struct CanaryHealth {
  double factor = 1;  // worst regressed benchmark's value / baseline (latency: inverted); <= 1
  bool failed_diagnostic = false;  // a pass/fail check failed: not a place to move to
  std::string note;                // "gemm.bf16@8192 at 0.62 of its baseline (canary run 12)"
};

struct RunningJob {
  std::string name;                            // the workload label
  std::string node, gpu_model, cloud, region;  // where it runs now
  int gpus = 1;
  double usd_per_gpu_hour = 0;  // what it pays now
  std::string price_source;     // "ledger: last 1h"
  double contention_loss = 0;   // share of its GPU time lost to contention (0..1)
  int open_incidents = 0;       // on its devices
  // From the job file (telemetry cannot know these):
  std::string job_type;  // a job type of Gavel's table (its profile)
  double remaining_steps = 0;     // its own steps when it reports step times
  double checkpoint_minutes = 0;  // write + restore
  double startup_minutes = 0;     // image pull, JIT warm-up on the new place
  // From its step reports (gpu_workload_step_duration_seconds): the median
  // step time over the last minutes (one sample per 15 s grid point, the
  // latest report in it); 0 when it reports none.
  double measured_step_s = 0;
  int64_t step_samples = 0;
  // Its node's canary: told in the advice, not counted (a measured step time
  // already includes it, and the regression only bounds the slowdown, so it
  // is not divided out: a move off a regressed node may gain more than the
  // advice shows, and it says so; an unmeasured one would only be guessed
  // at).
  CanaryHealth canary;
};

struct FreeCapacity {
  std::string node, gpu_model, cloud, region;
  int free_gpus = 0;
  double usd_per_gpu_hour = 0;  // <= 0: unpriced (never a target)
  std::string price_source;
  CanaryHealth canary;  // a target runs at its throughput x canary.factor
};

struct Move {
  std::string job, from_node, from_model, to_node, to_model, to_cloud, to_region;
  double hours_now = 0, hours_after = 0;  // to finish; after includes the migration
  double usd_now = 0, usd_after = 0;      // to finish; after includes the migration
  double migration_minutes = 0, migration_usd = 0;
  double speedup = 0;                 // target throughput / current effective throughput - 1
  bool measured_now = false;          // the current throughput is the job's step reports
  double measured_step_s = 0;         // their median, when measured_now
  int64_t step_samples = 0;
  bool predicted = false;  // a throughput (or the ratio) in the comparison is a prediction
  std::string target_canary;          // the target's canary regression, when counted ("" = none)
  bool scaled_from_one_gpu = false;   // no table entry at the job's GPU count
  double typical_relative_error = 0;  // the larger of the two
  std::string
      sentence;  // "move train-llm from ... to ...: 31% faster, $412 cheaper to finish, ..."
};

struct Advice {
  std::vector<Move> moves;           // biggest dollar saving first
  std::vector<std::string> stays;    // "train-llm: stays (no move saves more than it costs)"
  std::vector<std::string> skipped;  // jobs that could not be judged, with why
};

StatusOr<Advice> AdviseMoves(const GavelThroughputs& table, const std::vector<RunningJob>& jobs,
                             std::vector<FreeCapacity> capacity);

// The advice for a terminal: one sentence per move, then the rest.
std::string AdviceText(const Advice& a);
// {"moves": [{job, from_node, from_model, to_node, to_model, to_cloud,
// to_region, hours_now, hours_after, usd_now, usd_after, migration_minutes,
// migration_usd, speedup, measured_now, measured_step_s (null when not),
// step_samples, predicted, typical_relative_error, target_canary (null when
// none), sentence}],
// "stays": [...], "not_judged": [...]}
std::string AdviceJson(const Advice& a);

}  // namespace gpufleet::place
