// One call per planner, from inputs as the CLI and the server receive them
// (option structs or TOML text) to a plain-language answer or JSON. Loads
// the calibration data and the Azure traces from `shared_dir` (../shared);
// when they are absent, says so in the answer (latency falls back to
// uncalibrated roofline estimates; a named trace is an error).
//
// Thread safety: each call is independent.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "plan/plan_input.h"
#include "plan/serving_sim.h"

namespace gpufleet::plan {

struct InferenceOptions {
  std::string model = "llama2-70b";
  // "conv" / "code" (Azure LLM traces under shared_dir), a CSV path in the
  // Azure format, or "synthetic" (Poisson: rate, duration, prompt, output).
  std::string trace = "conv";
  double rate_per_s = 1;
  double duration_s = 600;
  int prompt_tokens = 1024;
  int output_tokens = 128;
  double rate_scale = 1;  // arrivals sped up by this factor
  int max_requests = 0;   // first N requests only (0 = all)
  std::vector<std::string> gpu_types = {"a100-80gb", "h100", "mi300x"};
  std::vector<int> tps = {1, 2, 4, 8};
  Slo slo;
  bool colocated_only = false;
  std::string batching = "chunked";  // colocated instances (plan/serving_sim.h)
  // Tokens per mixed / chunked iteration: colocated plans are searched at each.
  std::vector<int> token_budgets = {1024, 2048, 4096};
  // "fcfs" or "deadline" (ServingConfig::defer_late).
  std::string admission = "fcfs";
  // "instance" (each arrival joins the shortest instance queue) or "shared"
  // (one queue per prefill pool; ServingConfig::shared_queue).
  std::string queue = "instance";
  // Prompt tokens per prefill-only iteration (prefill pools, prefill-first
  // batching); a first prompt always goes, so 1 = one prompt at a time.
  int prefill_batch_tokens = 8192;
  // Also plan with the other admission, the other queue and one prompt per
  // prefill-only iteration (or the default batch, given one): 8 policies,
  // keeping the cheapest plan.
  bool search_serving = false;
  std::string shared_dir = "../shared";
};

// Reads inference options from TOML (the server's request body): keys as
// the struct's fields, SLO as ttft_ms, tpot_ms, attainment, ttft_p50_ms,
// tpot_p50_ms, tbt_p99_ms; batching, token_budgets, admission, queue,
// prefill_batch_tokens, search_serving.
StatusOr<InferenceOptions> ParseInferenceOptions(std::string_view toml, std::string_view origin,
                                                 const std::string& shared_dir);

StatusOr<std::string> RunInferencePlan(const InferenceOptions& o, bool json);
// `lookup` (the server's): measured steps of the ranks' measured_workload.
StatusOr<std::string> RunTrainingPlan(std::string_view toml, std::string_view origin,
                                      const std::string& shared_dir, bool json,
                                      const StepLookup* lookup = nullptr);
StatusOr<std::string> RunRingPlan(std::string_view toml, std::string_view origin, bool json);
// The calibration table: leave-one-configuration-out errors per data set,
// and each GPU type's latency source.
StatusOr<std::string> RunCalibrationReport(const std::string& shared_dir, bool json);

// Splitwise's headline on the Azure trace `trace` ("conv" / "code"): equal
// cost, highest rate within SLO per design (plan/splitwise_repro.h).
StatusOr<std::string> RunSplitwiseRepro(const std::string& trace, const std::string& shared_dir,
                                        int max_requests, int budget_h100_machines, const Slo& slo,
                                        Batching batching, bool json);

// The server's POST /api/v1/plan/<kind> (kind: inference, training, ring),
// body as TOML (the CLI's files; inference: ParseInferenceOptions). Returns
// (HTTP status, JSON): 200 with the plan, 400 on bad input, 404 for an
// unknown kind or a trace that is absent, 500 otherwise. `lookup`: the
// steps the agents reported, for training ranks with measured_workload.
std::pair<int, std::string> HandlePlanRequest(std::string_view kind, std::string_view body,
                                              const std::string& shared_dir,
                                              const StepLookup* lookup = nullptr);

}  // namespace gpufleet::plan
