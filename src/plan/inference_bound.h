// The least any serving plan can pay for a request trace under the latency
// model (plan/latency_model.h), per GPU type and TP degree and per phase.
//
// A fluid bound: every GPU busy every second and no SLO, so no plan of the
// search (colocated, or prefill / decode split, any batching the simulator
// has) pays less for the same requests. Every step time of the simulator is
// an affine function of its tokens and context with non-negative
// coefficients; the bound charges each request its own terms:
//   prefill: the per-token and quadratic attention terms of its prompt;
//   decode:  per output token after the first, the cheaper of the decode
//            and the prefill per-token term (a colocated iteration charges
//            a decode token at the prefill rate), plus its context's term;
//   per iteration: the fixed cost (overhead, weight reads, all-reduce
//            latency; the cheaper phase's), times the fewest iterations
//            that can carry the decode tokens (a batch of at most
//            max_batch_requests and a context of at most the KV capacity).
// Left out, so it stays a lower bound: idle GPUs, prefill iterations' fixed
// cost, KV transfer, queueing, SLO. Prices are per GPU hour, as the plans'.
// A second bound adds the SLO: the prefill instances a plan must hold
// through the trace to keep the TTFT (plan/ttft_bound.h), and the decode
// iterations the TPOT leaves: an iteration of b decode tokens takes at least
// fixed + per_token x b, so the requests within the TPOT (at least the
// attainment's share, with at least the decode tokens of that many of the
// shortest) need at least per_token x their decode tokens / (TPOT - fixed)
// iterations (Cauchy-Schwarz over the iterations' batches).
//
// Its use: the best single-type bound against the best mixed one says how
// much splitting phases over GPU types can save at these prices before
// utilisation, and a plan's cost over its bound how far it is from full use.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "plan/inference_planner.h"

namespace gpufleet::plan {

// One (GPU type, TP) that holds the model: what the whole trace's phases
// cost at least on it.
struct PhaseCostOption {
  std::string gpu_type;
  int tp = 1;
  double prefill_usd = 0;
  double decode_usd = 0;
  // The fewest instances that keep the TTFT SLO for the share of requests
  // it asks (plan/ttft_bound.h); 0 when no number is (prompts too long).
  int ttft_instances = 0;
  // decode_usd with the TPOT SLO's least iterations (never less); false
  // (and 0) when even a batch of one is slower than the TPOT.
  double decode_slo_usd = 0;
  bool meets_tpot = true;
};

// "h100 TP2".
std::string OptionName(const PhaseCostOption& o);

struct InferenceCostBound {
  double tokens = 0;  // prompt + output tokens of the whole trace
  std::vector<PhaseCostOption> options;
  // The least over plans on one GPU type (colocated, or split over two TP
  // degrees of it), and over any plan.
  double single_type_usd = 0;
  std::string single_type;
  double any_usd = 0;
  PhaseCostOption any_prefill, any_decode;  // the options the least plan uses
  // With the SLO too: a plan's prefill instances (the colocated pool, or
  // the prefill pool of a split) are at least ttft_instances over the
  // trace's arrivals (`span_s`), and each pool pays at least its fluid work
  // with the TPOT's iterations (decode_slo_usd). The least on one type and
  // over any plan; 0 when no option keeps both.
  double span_s = 0;
  double slo_single_type_usd = 0;
  double slo_any_usd = 0;
  std::string slo_any;  // the least plan: "h100 TP2" or "h100 TP2 / mi300x TP4"
  double PerMtoken(double usd) const { return tokens > 0 ? usd / tokens * 1e6 : 0; }
  // How much less than the single-type bound the mixed one is (0.05 = 5%).
  double SplitRoom() const { return single_type_usd > 0 ? 1 - any_usd / single_type_usd : 0; }
};

// InvalidArgument when a type has no latency model, FailedPrecondition when
// no (type, TP) holds the model or the trace is empty.
StatusOr<InferenceCostBound> BoundInferenceCost(const InferenceRequest& req);

// The bound of one plan's own pools (its GPU types and TP degrees): prefill
// on its prefill pool, decode on its decode pool (both on the one pool when
// colocated). 0 when `b` has no such option.
double PlanBoundUsd(const InferenceCostBound& b, const PlanCandidate& plan);

}  // namespace gpufleet::plan
