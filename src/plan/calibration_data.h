// Readers of the measured latency data the latency model is calibrated on
// (../shared/traces/*, see each folder's README), turning every measured
// configuration into step features (plan/latency_model.h) and a time.
//
//   splitwise   splitwise-sim/perf_model.csv: Llama-2-70B / BLOOM-176B on
//               A100, H100, power-capped H100; prefill and decode, TP 2/4/8
//   vidur       vidur-profiling/compute/<gpu>/<model>/mlp.csv: per-layer
//               token-level operators (no attention), Llama-2-7B/70B, TP 1-8
//   distserve   distserve-profile/profiler-a100-80g.distserve.json: OPT on
//               A100; the published fits evaluated on a grid (derived points)
//   llmcompass  llmcompass-a100-mi210/matmul_*.csv: fp16 GEMMs, A100, MI210
//   dstack      dstack-benchmarks/h100sxm5_vs_mi300x/throughput_comparsion.csv:
//               Llama-3.1-405B FP8 offline runs, 128 in / 2048 out, read as
//               decode steps (elapsed / 2048) on H100 and MI300X
//
// Rows that cannot be read are errors naming file:line and field; rows of
// configurations the model does not cover are counted in `skipped`.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "plan/latency_model.h"

namespace gpufleet::plan {

struct CalPoint {
  std::string dataset;   // "splitwise", "vidur", "distserve", "llmcompass", "dstack"
  std::string gpu_type;  // plan GPU type: "a100-80gb", "h100", "h100-pcap", "mi210", "mi300x"
  std::string phase;     // "prefill", "decode", "linear" (vidur), "gemm" (llmcompass)
  std::string config;    // one configuration, e.g. "llama2-70b tp8 p512 b4"
  StepFeatures features;
  double measured_s = 0;
  bool derived = false;  // evaluated from a published fit, not measured directly
};

struct CalData {
  std::vector<CalPoint> points;
  int skipped = 0;
  std::vector<std::string> missing;  // data sets whose files were not found
};

// Configurations whose weights and KV cache cannot fit in tp x 80 GB (e.g.
// Llama-2-70B on 2 GPUs at batch 64), and prefills faster than the GPUs'
// peak FLOP/s, cannot have been measured as such: skipped, counted.
StatusOr<std::vector<CalPoint>> ParseSplitwise(std::string_view csv, std::string_view origin,
                                               int* skipped);
StatusOr<std::vector<CalPoint>> ParseVidurMlp(std::string_view csv, std::string_view origin,
                                              const std::string& gpu_type,
                                              const std::string& model_key);
StatusOr<std::vector<CalPoint>> ParseDistServe(std::string_view json, std::string_view origin);
StatusOr<std::vector<CalPoint>> ParseLlmCompassMatmul(std::string_view csv, std::string_view origin,
                                                      const std::string& gpu_type);
StatusOr<std::vector<CalPoint>> ParseDstack(std::string_view csv, std::string_view origin,
                                            int* skipped);

// All data sets under `shared_dir` (../shared). A data set whose files are
// absent is listed in `missing`; a file that is present but malformed is an
// error.
StatusOr<CalData> LoadCalibrationData(const std::string& shared_dir);

}  // namespace gpufleet::plan
