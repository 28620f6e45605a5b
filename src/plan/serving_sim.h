// Discrete-event simulation of a request trace through planned inference
// pools: colocated (every instance runs prefill and decode) or disaggregated
// (a prefill pool hands the KV cache over a link to a decode pool, as in
// Splitwise and DistServe).
//
// An instance is `tp` GPUs of one type running one copy of the model.
// Colocated instances batch in one of three ways (`Batching`):
//  - prefill first (vLLM without chunked prefill): a prefill batch of
//    waiting requests (FIFO, up to max_batch_tokens and the KV capacity),
//    else one decode step of every running request;
//  - mixed (ORCA / splitwise-sim's baseline): every iteration carries one
//    token of every running request and whole prompts, FIFO, while the
//    iteration's tokens stay within mixed_token_budget (the first prompt of
//    an iteration always goes in);
//  - chunked (Sarathi-Serve, vLLM's chunked prefill): as mixed, but a prompt
//    that does not fit the budget left is cut, and its next chunk goes first
//    in the next iteration; its first token comes with its last chunk.
// A mixed iteration of P prompt tokens and D decoding requests holding C
// context tokens takes the prefill time of P + D tokens plus the part of a
// D-request decode step that reads the C context tokens (the weights are
// read once; every token pays the dense compute). Disaggregated prefill
// instances run prefill batches as above; decode instances run decode steps.
// Step times come from the calibrated latency model. KV
// capacity per instance = (tp * memory * memory_util - weights) / KV bytes
// per token; a request reserves prompt + output tokens when admitted. New
// requests go to the instance with the fewest waiting and running requests.
//
// TTFT = first token (end of its prefill) - arrival; TPOT = (finish - first
// token) / (output - 1). A request meets the SLO when TTFT <= ttft_s and
// TPOT <= tpot_s. Requests that fit no instance are counted as failed.
// TBT (time between tokens, vLLM's inter-token latency) is every gap
// between two successive tokens of a request, over all tokens of all
// requests: a prefill that stalls the running requests shows in its tail
// even where their mean TPOT hides it. Optional p99 goal (tbt_p99_s).
//
// Thread safety: pure function of its inputs; the latency pointers must
// outlive the call.
#pragma once

#include <string>

#include "core/status.h"
#include "plan/latency_model.h"
#include "plan/model_spec.h"
#include "plan/request_trace.h"

namespace gpufleet::plan {

struct PoolSpec {
  const GpuLatency* latency = nullptr;
  double price_usd_per_hour = 0;  // per GPU
  int tp = 1;
  int count = 0;  // instances
};

enum class Batching { kPrefillFirst, kMixed, kChunked };
// "prefill-first", "mixed", "chunked"; ParseBatching: InvalidArgument naming
// the accepted values.
const char* BatchingName(Batching b);
StatusOr<Batching> ParseBatching(const std::string& s);

struct ServingConfig {
  ModelSpec model;
  bool disaggregated = false;
  Batching batching = Batching::kPrefillFirst;  // colocated instances only
  int mixed_token_budget = 2048;                // tokens per mixed / chunked iteration
  PoolSpec prefill;  // colocated: the only pool
  PoolSpec decode;   // disaggregated only
  int max_batch_tokens = 8192;
  int max_batch_requests = 256;
  double memory_util = 0.9;
  double kv_link_bytes_per_s = 50e9;  // per instance, prefill -> decode (InfiniBand 400 Gb/s)
  // Disaggregated only: requests end at their first token (sizes the prefill
  // pool on its own; TPOT is then 0).
  bool prefill_only = false;
  // Deadline-aware admission: an instance starts the prompts that can still
  // keep the TTFT (arrival + TTFT >= now + the prompt's own prefill time)
  // before those that cannot; the late ones are served when none is
  // waiting. First come, first served among each. Off: first come, first
  // served (vLLM's default).
  bool defer_late = false;
  // One queue for the prefill (or colocated) pool, each instance taking the
  // next prompts when it starts an iteration (a central scheduler with
  // exact knowledge). Off: each arrival joins the instance with the
  // fewest requests and waits there.
  bool shared_queue = false;
};

struct Slo {
  double ttft_s = 2.0;       // per request
  double tpot_s = 0.1;       // per request
  double attainment = 0.99;  // share of requests within both
  double ttft_p50_s = 0;     // 0 = no p50 goal
  double tpot_p50_s = 0;
  double tbt_p99_s = 0;  // 0 = no goal; over all token gaps
};

struct SimResult {
  bool ok = false;       // the trace ran and the SLO held
  bool aborted = false;  // stopped early: too many requests missed the SLO
  std::string why;       // when not ok
  int requests = 0;
  int completed = 0;
  int failed = 0;  // did not fit any instance
  double attainment = 0;
  double ttft_p50_s = 0, ttft_p99_s = 0, tpot_p50_s = 0, tpot_p99_s = 0;
  // Over every gap between two tokens of a request; at most 1% high (bins).
  double tbt_p50_s = 0, tbt_p99_s = 0;
  double span_s = 0;  // first arrival to last completion
  double tokens = 0;  // prompt + output tokens served
  double throughput_tokens_per_s = 0;
  double kv_capacity_tokens = 0;  // per instance (decode pool when disaggregated)
  double kv_transfer_s_mean = 0;
  int gpus = 0;
  double usd_per_hour = 0;
  double usd_per_mtoken = 0;
};

// Instances of one pool hold a copy of the model each: InvalidArgument when
// the weights do not fit in tp GPUs.
double KvCapacityTokens(const ModelSpec& m, const PoolSpec& p, double memory_util);

StatusOr<SimResult> Simulate(const RequestTrace& trace, const ServingConfig& cfg, const Slo& slo,
                             bool abort_early = true);

}  // namespace gpufleet::plan
