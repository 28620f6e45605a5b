// Throughput of a job type on a GPU type: measured where Gavel's table has it,
// predicted elsewhere.
//
// Prediction (held-out (job, gpu)): the job's profile is the vector of its log
// throughput ratios between the GPU types where it *was* measured (how much it
// gains from a faster part says how compute- or memory-bound it is). The k
// job types of the same scale factor whose profiles are nearest, and that
// were measured on the target GPU, give the median log ratio target/reference;
// the reference is the measured GPU type whose catalog fp32 peak is nearest
// the target's. With no neighbour measured on the target, a roofline from the
// catalog peaks is used: step time a/peak_flops + b/bandwidth fitted (a, b >= 0)
// to the measured GPU types.
//
// Every prediction says it is one, and carries the median relative error its
// kind showed in leave-one-out validation on Gavel's table.
// Thread safety: const methods are safe to call concurrently.
#pragma once

#include <string>
#include <vector>

#include "place/gavel_data.h"

namespace gpufleet::place {

// Per worker of the table: published peaks (from the hardware catalog).
struct WorkerPeaks {
  double peak_fp32_flops = 0;
  double memory_bandwidth_bytes_per_s = 0;
};

// Peaks of Gavel's workers k80 / p100 / v100 from the default hardware
// catalog ("k80", "p100-pcie", "v100-sxm-16gb"); error when one is missing.
StatusOr<std::vector<WorkerPeaks>> GavelWorkerPeaks(const GavelThroughputs& table);

enum class ThroughputBasis { kMeasured, kNeighbours, kRoofline, kUnknown };
const char* ThroughputBasisName(ThroughputBasis b);

struct ThroughputEstimate {
  double steps_per_s = 0;
  ThroughputBasis basis = ThroughputBasis::kUnknown;
  // Median relative error of this basis in validation; 0 for measured values.
  double typical_relative_error = 0;
};

class ThroughputModel {
 public:
  // `table` must outlive the model. `peaks` has one entry per table worker.
  ThroughputModel(const GavelThroughputs* table, std::vector<WorkerPeaks> peaks, int neighbours = 5);

  // Measured value when present (> 0), else a prediction.
  ThroughputEstimate Estimate(int job, int worker) const;
  // Prediction that ignores the measured value of (job, worker) and every
  // other job's value is used as measured. 0 steps/s when nothing is known.
  ThroughputEstimate PredictHeldOut(int job, int worker) const;
  ThroughputEstimate Roofline(int job, int worker) const;

  // Sets the typical errors reported with predictions (from validation).
  void SetTypicalErrors(double neighbours, double roofline) {
    neighbours_error_ = neighbours;
    roofline_error_ = roofline;
  }

 private:
  const GavelThroughputs* table_;
  std::vector<WorkerPeaks> peaks_;
  int neighbours_;
  double neighbours_error_ = 0;
  double roofline_error_ = 0;
};

struct ThroughputValidation {
  int scale_factor = 1;
  // Per worker: median relative error of the neighbour and roofline
  // predictions over the job types measured on every worker.
  std::vector<double> neighbours_median_by_worker;
  std::vector<double> roofline_median_by_worker;
  double neighbours_median = 0;
  double roofline_median = 0;
  int predictions = 0;
};

// Leave-one-out over every (job of `scale_factor`, worker) measured on all workers.
ThroughputValidation ValidateThroughputModel(const ThroughputModel& model,
                                             const GavelThroughputs& table, int scale_factor);

double Median(std::vector<double> v);

}  // namespace gpufleet::place
