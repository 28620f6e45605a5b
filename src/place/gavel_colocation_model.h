// Co-location model: the normalized throughput (co-located / isolated) a job
// type keeps when it shares one GPU with another, measured where Gavel's table
// has the pair and predicted elsewhere.
//
// Prediction: a job type whose pairs are unknown is stood in for by its k
// nearest job types (same scale factor) by profile: log isolated-throughput
// ratios between GPU types (compute- vs memory-boundness) and the log
// throughput on the fastest type (step size). The normalized throughput of
// (a next to b) is the mean over the stand-ins' measured, feasible pairs.
// A pair is predicted infeasible when most stand-in pairs are infeasible.
// Thread safety: const methods are safe to call concurrently.
#pragma once

#include <vector>

#include "place/gavel_data.h"

namespace gpufleet::place {

struct ColocationEstimate {
  double self_norm = 0;   // throughput of a while sharing / its isolated throughput
  double other_norm = 0;  // same for the partner b
  bool feasible = false;  // false: out of memory or nothing known
  bool predicted = false;
};

class ColocationModel {
 public:
  // `table` must outlive the model.
  explicit ColocationModel(const GavelThroughputs* table, int neighbours = 2);

  // Measured when the table has (w, a, b); predicted otherwise.
  ColocationEstimate Estimate(int w, int a, int b) const;
  // Prediction as if job type `unknown` had never been measured in a pair
  // (-1: predict from the table as is, treating only a missing pair as unknown).
  ColocationEstimate Predict(int w, int a, int b, int unknown) const;

 private:
  double Norm(int w, int a, int b) const;  // measured normalized throughput of a; <0 = none
  std::vector<int> Neighbours(int job, int unknown) const;
  const GavelThroughputs* table_;
  int neighbours_;
  std::vector<std::vector<double>> profile_;  // per job type; empty = not profiled
};

struct ColocationValidation {
  std::vector<double> median_abs_error_by_worker;  // normalized throughput
  double median_abs_error = 0;
  double baseline_median_abs_error = 0;  // predicting the mean of all other pairs
  int predictions = 0;        // both sides of each feasible pair, counted once each
  int infeasible_pairs = 0;   // measured infeasible (0): checked for feasibility only
  int feasibility_wrong = 0;  // predicted feasible when infeasible or the reverse
};

// The table with every co-located pair replaced by the model's prediction as
// if the pair had never been measured: the mean of the two predictions with
// each of its job types held out (Predict(w, a, b, a) and (w, a, b, b)); the
// pair is feasible only when both say so. Isolated throughputs are kept. The
// simulator decides packing with it and runs the jobs on the measured table
// (GavelSimOptions::decision_pairs), which measures what prediction errors cost.
GavelThroughputs WithPredictedPairs(const GavelThroughputs& table, const ColocationModel& model);

// Leaves each job type of `scale_factor` out in turn and predicts its pairs.
ColocationValidation ValidateColocationModel(const ColocationModel& model,
                                             const GavelThroughputs& table, int scale_factor);

}  // namespace gpufleet::place
