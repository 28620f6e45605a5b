// Calibration of the latency model (plan/latency_model.h) on the measured
// data (plan/calibration_data.h): leave-one-configuration-out errors per
// data set, and the per-GPU-type latency table the planners use.
//
// Leave-one-configuration-out: within each (data set, GPU type, phase)
// group, every configuration is predicted by a fit on all the others of the
// group (other batch sizes, prompt lengths, TP degrees and models).
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "plan/calibration_data.h"
#include "plan/gpu_type.h"
#include "plan/latency_model.h"

namespace gpufleet::plan {

struct LooError {
  std::string dataset;
  std::string gpu_type;  // "" = all GPU types of the data set pooled
  std::string phase;     // "" = all phases pooled
  int points = 0;
  double median_rel_error = 0;
  double p90_rel_error = 0;
  bool derived = false;  // the data set's points are derived from a published fit
};

// One row per (data set, GPU type, phase) group, then one pooled row per
// data set (gpu_type and phase empty), in data set order.
std::vector<LooError> LeaveOneConfigOut(const std::vector<CalPoint>& points);

// The latency of every GPU type in `types`:
//  - fitted on splitwise-sim where it measured the type (prefill, decode);
//  - MI300X: decode fitted on the dstack runs; prefill the H100 fit scaled
//    by the AMD / NVIDIA GEMM efficiency ratio LLMCompass measured (MI210 vs
//    A100), marked as an estimate;
//  - any other type: a roofline estimate (the median coefficients of the
//    measured types), with the expected error of predicting one measured
//    type from the others' coefficients (leave-one-type-out).
// Without data (../shared absent) every type is a roofline estimate with
// unit coefficients, flagged in `note`.
struct LatencyTable {
  std::map<std::string, GpuLatency> by_type;
  double estimate_expected_error = 0;
  PhaseCoeffs estimate_prefill, estimate_decode;  // the roofline estimate's coefficients
  std::string note;
  const GpuLatency* Find(const std::string& type) const {
    auto it = by_type.find(type);
    return it == by_type.end() ? nullptr : &it->second;
  }
};
StatusOr<LatencyTable> BuildLatencyTable(const CalData& data, const std::vector<GpuType>& types);

}  // namespace gpufleet::plan
