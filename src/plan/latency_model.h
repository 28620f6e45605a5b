// A small physically-motivated latency model for one transformer step on
// one tensor-parallel group of GPUs, with coefficients fitted per GPU type
// and phase on measured data (plan/calibration.h).
//
//   step_s = overhead_s + compute_scale * compute_s + attention_scale * attention_s
//          + memory_scale * memory_s + comm_scale * comm_s + comm_latency_s * all_reduces
//
// where compute_s is the step's dense FLOPs at the GPU's peak (per GPU of
// the group), attention_s the prefill's quadratic attention FLOPs at peak
// (kernels without flash attention pay far more than their FLOPs), memory_s its bytes (weights, KV
// cache) at peak HBM bandwidth, comm_s the tensor-parallel all-reduce bytes at peak link bandwidth,
// and all_reduces their count. A scale of 2 means "half the peak is achieved". Prefill and decode
// have coefficients of their own: prefill is compute-bound, decode bandwidth-bound.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "plan/model_spec.h"

namespace gpufleet::plan {

// Peaks of one GPU (from the hardware catalog).
struct GpuPeaks {
  double flops_per_s = 0;         // dense bf16/fp16
  double memory_bytes_per_s = 0;  // HBM
  double memory_bytes = 0;
  double link_bytes_per_s = 0;  // intra-node interconnect, one direction
};

// The features of one step, each a time in seconds at peak.
struct StepFeatures {
  double compute_s = 0;
  double attention_s = 0;  // prefill: the quadratic attention FLOPs at peak
  double memory_s = 0;
  double comm_s = 0;
  double all_reduces = 0;
};

// The sizes of a model that a step's features read, worked out once
// (ModelSpec derives them from its shape on every call).
struct ModelSizes {
  explicit ModelSizes(const ModelSpec& m);
  double layers, hidden, experts, active_experts, weight_bytes_per_param;
  double flops_per_token, weight_bytes, kv_bytes_per_token, mlp_params_per_expert;
};

// A prefill of `tokens` prompt tokens in total whose squares sum to
// `sum_sq_tokens` (attention is quadratic per request).
StepFeatures PrefillFeatures(const ModelSizes& m, const GpuPeaks& g, int tp, double tokens,
                             double sum_sq_tokens);
StepFeatures PrefillFeatures(const ModelSpec& m, const GpuPeaks& g, int tp, double tokens,
                             double sum_sq_tokens);
// One decode iteration of `batch` requests holding `context_tokens` in total.
StepFeatures DecodeFeatures(const ModelSizes& m, const GpuPeaks& g, int tp, double batch,
                            double context_tokens);
StepFeatures DecodeFeatures(const ModelSpec& m, const GpuPeaks& g, int tp, double batch,
                            double context_tokens);

struct PhaseCoeffs {
  double overhead_s = 0;
  double compute_scale = 1;
  double attention_scale = 1;
  double memory_scale = 1;
  double comm_scale = 1;
  double comm_latency_s = 0;
  double Predict(const StepFeatures& f) const {
    return overhead_s + compute_scale * f.compute_s + attention_scale * f.attention_s +
           memory_scale * f.memory_s + comm_scale * f.comm_s + comm_latency_s * f.all_reduces;
  }
};

// Least squares on relative error (each row weighted by 1/measured), all
// coefficients kept >= 0 (a feature whose coefficient comes out negative is
// dropped and the rest refitted). Features that never vary are not fitted
// (their coefficient stays at `prior`'s value). InvalidArgument when there
// are no rows or a measured time is not positive.
// `fit_mask` selects the fitted coefficients (bits of FitTerm); the others
// keep `prior`'s value.
enum FitTerm : unsigned {
  kFitOverhead = 1,
  kFitCompute = 2,
  kFitMemory = 4,
  kFitComm = 8,
  kFitCommLatency = 16,
  kFitAttention = 32,
  kFitAll = 63,
};
// Prefill: overhead, dense compute, attention and all-reduce count; weights
// are read once at peak (memory scale 1), link bytes at peak.
constexpr unsigned kPrefillFit = kFitOverhead | kFitCompute | kFitAttention | kFitMemory;
// Decode: overhead, memory (weights + KV), compute and all-reduce count.
constexpr unsigned kDecodeFit = kFitOverhead | kFitMemory | kFitCompute | kFitCommLatency;
StatusOr<PhaseCoeffs> FitPhase(const std::vector<StepFeatures>& rows,
                               const std::vector<double>& measured_s,
                               const PhaseCoeffs& prior = PhaseCoeffs{},
                               unsigned fit_mask = kFitAll);

// Latency coefficients of one GPU type.
struct GpuLatency {
  std::string gpu_type;  // "h100", "mi300x"
  GpuPeaks peaks;
  PhaseCoeffs prefill;
  PhaseCoeffs decode;
  bool estimate = false;      // roofline estimate, not fitted on this type
  double expected_error = 0;  // median relative error expected (0.12 = 12%)
  std::string source;         // where the coefficients come from

  double PrefillS(const ModelSpec& m, int tp, double tokens, double sum_sq) const {
    return prefill.Predict(PrefillFeatures(m, peaks, tp, tokens, sum_sq));
  }
  double DecodeS(const ModelSpec& m, int tp, double batch, double context) const {
    return decode.Predict(DecodeFeatures(m, peaks, tp, batch, context));
  }
};

// One GPU type's step times for one model at one TP degree, the model's
// sizes worked out once: a serving simulation asks for millions of steps.
// The same values as GpuLatency::PrefillS / DecodeS, bit for bit.
class StepCost {
 public:
  StepCost(const GpuLatency& lat, const ModelSpec& m, int tp) : lat_(&lat), sizes_(m), tp_(tp) {}
  double PrefillS(double tokens, double sum_sq) const {
    return lat_->prefill.Predict(PrefillFeatures(sizes_, lat_->peaks, tp_, tokens, sum_sq));
  }
  double DecodeS(double batch, double context) const {
    return lat_->decode.Predict(DecodeFeatures(sizes_, lat_->peaks, tp_, batch, context));
  }

 private:
  const GpuLatency* lat_;
  ModelSizes sizes_;
  int tp_;
};

}  // namespace gpufleet::plan
