// Which GPU type for one job, by objective: fastest, cheapest per job, or
// cheapest that meets a deadline, with, per candidate type, the predicted
// duration, dollars per job, cost per effective TFLOP, co-location penalty
// and the reason for the choice. Backed by the throughput and co-location
// models (measured where Gavel's table has the value, predicted elsewhere).
//
// Definitions: duration = steps / throughput; $/job = duration x GPUs x
// price; effective TFLOP/s = peak fp32 x the job's efficiency on that type
// relative to its best type (throughput per peak FLOP / the best such ratio),
// and cost per effective TFLOP = $/hour / (effective TFLOP/s x 3600);
// co-location penalty = 1 - the median normalized throughput the job keeps
// when sharing the GPU with each other job type of its scale factor (-1 when
// nothing is known, e.g. multi-GPU jobs).
// Thread safety: pure function of its inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "place/gavel_colocation_model.h"
#include "place/gavel_throughput_model.h"

namespace gpufleet::place {

enum class GpuObjective { kFastest, kCheapestPerJob, kCheapestMeetingDeadline };
// "fastest", "cheapest-per-job", "cheapest-meeting-deadline".
StatusOr<GpuObjective> ParseGpuObjective(std::string_view text);

struct GpuOptionEstimate {
  std::string worker;
  double steps_per_s = 0;
  ThroughputBasis basis = ThroughputBasis::kUnknown;
  double typical_relative_error = 0;  // of the throughput, from validation
  double duration_hours = 0;
  double usd_per_job = 0;
  double usd_per_effective_tflop = 0;
  double colocation_penalty = -1;
  bool meets_deadline = true;
};

struct GpuChoice {
  std::vector<GpuOptionEstimate> options;  // one per table worker that can run the job
  int chosen = -1;                         // index in options; -1 = none qualifies
  std::string reason;
};

struct GpuChoiceRequest {
  int job_type = 0;            // index in the table
  double total_steps = 0;
  GpuObjective objective = GpuObjective::kFastest;
  double deadline_hours = 0;   // for kCheapestMeetingDeadline
  std::vector<double> price_usd_per_hour;  // per table worker
};

StatusOr<GpuChoice> ChooseGpuType(const GavelThroughputs& table, const ThroughputModel& throughput,
                                  const ColocationModel& colocation,
                                  const std::vector<WorkerPeaks>& peaks,
                                  const GpuChoiceRequest& request);

}  // namespace gpufleet::place
