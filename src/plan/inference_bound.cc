#include "plan/inference_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plan/ttft_bound.h"

namespace gpufleet::plan {
namespace {

// What the trace asks of each phase, summed over its requests.
struct TraceWork {
  double prompt_tokens = 0;
  double prompt_sq = 0;       // sum of squared prompt lengths (attention)
  double decode_tokens = 0;   // output tokens after the first
  double decode_context = 0;  // context read by those tokens: P+1 .. P+O-1
  double tokens = 0;          // prompt + output
  // The decode tokens of the `attainment` share of requests with the
  // fewest: no fewer are within the SLO.
  double sat_decode_tokens = 0;
};

TraceWork Measure(const RequestTrace& trace, double attainment) {
  TraceWork w;
  std::vector<double> decode;  // per request: its output tokens after the first
  decode.reserve(trace.requests.size());
  for (const Request& q : trace.requests) {
    decode.push_back(std::max(0, q.output_tokens - 1));
    const double p = q.prompt_tokens, o = q.output_tokens;
    w.prompt_tokens += p;
    w.prompt_sq += p * p;
    w.tokens += p + o;
    if (o >= 2) {
      w.decode_tokens += o - 1;
      w.decode_context += (o - 1) * p + (o - 1) * o / 2;
    }
  }
  const size_t n = decode.size();
  const size_t within =
      std::min(n, static_cast<size_t>(
                      std::ceil(std::clamp(attainment, 0.0, 1.0) * static_cast<double>(n) - 1e-9)));
  std::sort(decode.begin(), decode.end());
  for (size_t i = 0; i < within; ++i) w.sat_decode_tokens += decode[i];
  return w;
}

// A prefill step's terms on (type, tp): each step time is affine in its
// arguments, so differences give them.
struct PrefillTerms {
  double fixed = 0;      // per iteration
  double per_token = 0;  // per prompt token
  double per_sq = 0;     // per squared prompt length (attention)
};

PrefillTerms PrefillTermsOf(const ModelSpec& m, const GpuLatency& lat, int tp) {
  PrefillTerms t;
  t.fixed = lat.PrefillS(m, tp, 0, 0);
  t.per_token = lat.PrefillS(m, tp, 1, 0) - t.fixed;
  t.per_sq = lat.PrefillS(m, tp, 0, 1) - t.fixed;
  return t;
}

PhaseCostOption Bound(const ModelSpec& m, const GpuLatency& lat, const PrefillTerms& prefill,
                      double price_usd_per_hour, int tp, double kv_capacity, const TraceWork& w,
                      double tpot_s) {
  const ServingConfig defaults;
  const double decode_fixed = lat.DecodeS(m, tp, 0, 0);
  const double decode_context = lat.DecodeS(m, tp, 0, 1) - decode_fixed;
  // A mixture of experts reads more experts' weights as the batch grows:
  // leave that (non-negative, not linear) term out of the per-token one.
  StepFeatures one = DecodeFeatures(m, lat.peaks, tp, 1, 0);
  const StepFeatures none = DecodeFeatures(m, lat.peaks, tp, 0, 0);
  one.memory_s = none.memory_s;
  const double decode_token = lat.decode.Predict(one) - lat.decode.Predict(none);
  const double iterations =
      std::max(w.decode_tokens / defaults.max_batch_requests, w.decode_context / kv_capacity);
  // Every iteration, colocated or not, takes at least fixed + per_token x
  // its decode tokens.
  const double fixed = std::min(prefill.fixed, decode_fixed);
  const double per_token = std::min(prefill.per_token, decode_token);
  const double usd_per_s = tp * price_usd_per_hour / 3600.0;
  PhaseCostOption o;
  o.tp = tp;
  o.prefill_usd = usd_per_s * (prefill.per_token * w.prompt_tokens + prefill.per_sq * w.prompt_sq);
  const double tokens_usd =
      usd_per_s * (per_token * w.decode_tokens + decode_context * w.decode_context);
  o.decode_usd = tokens_usd + usd_per_s * fixed * iterations;
  // The TPOT: a request within it spent at most tpot x its decode tokens in
  // the iterations that carried it, so over the requests within it (D
  // decode tokens, b_i of them in iteration i, each iteration at least
  // fixed + per_token x b_i): fixed x D + per_token x sum b_i^2 <= tpot x D,
  // and sum b_i^2 >= D^2 / iterations, so iterations >= per_token x D /
  // (tpot - fixed). D is at least the decode tokens of the fewest requests
  // the attainment asks for.
  if (w.sat_decode_tokens > 0 && !(tpot_s > fixed)) {
    o.meets_tpot = false;
    o.decode_slo_usd = 0;
  } else {
    const double tpot_iterations =
        w.sat_decode_tokens > 0 ? per_token * w.sat_decode_tokens / (tpot_s - fixed) : 0;
    o.decode_slo_usd = tokens_usd + usd_per_s * fixed * std::max(iterations, tpot_iterations);
  }
  return o;
}

// The fewest instances of (type, tp) that keep the TTFT (0 when none can).
StatusOr<int> TtftInstances(const InferenceRequest& req, const PrefillTerms& prefill) {
  const RequestTrace& trace = *req.trace;
  std::vector<double> arrival, work;
  arrival.reserve(trace.requests.size());
  work.reserve(trace.requests.size());
  for (const Request& q : trace.requests) {
    const double p = q.prompt_tokens;
    arrival.push_back(q.arrival_s);
    work.push_back(prefill.per_token * p + prefill.per_sq * p * p);
  }
  const int n = static_cast<int>(work.size());
  TtftBoundInput in{arrival, work, req.slo.ttft_s};
  in.max_misses = n - static_cast<int>(std::ceil(req.slo.attainment * n - 1e-9));
  in.max_instances = req.max_instances;
  StatusOr<TtftBound> b = FewestTtftInstances(in);
  if (b.status().code() == StatusCode::kFailedPrecondition) return 0;
  RETURN_IF_ERROR(b.status());
  return b->instances;
}

// The SLO-aware bounds from the options' fluid costs and TTFT instances.
void AddSloBounds(InferenceCostBound& b, const std::vector<GpuType>& types) {
  auto per_s = [&](const PhaseCostOption& o) {
    for (const GpuType& g : types) {
      if (g.key == o.gpu_type) return o.tp * g.price_usd_per_hour / 3600.0;
    }
    return 0.0;
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double single = kInf, any = kInf;
  for (const PhaseCostOption& p : b.options) {
    if (p.ttft_instances <= 0) continue;
    const double held = p.ttft_instances * b.span_s * per_s(p);
    if (p.meets_tpot) {
      const double colocated = std::max(held, p.prefill_usd + p.decode_slo_usd);
      if (colocated < any) b.slo_any = OptionName(p);
      any = std::min(any, colocated);
      single = std::min(single, colocated);
    }
    for (const PhaseCostOption& d : b.options) {
      if (!d.meets_tpot) continue;
      const double split =
          std::max(held, p.prefill_usd) + std::max(b.span_s * per_s(d), d.decode_slo_usd);
      if (split < any) b.slo_any = OptionName(p) + " / " + OptionName(d);
      any = std::min(any, split);
      if (d.gpu_type == p.gpu_type) single = std::min(single, split);
    }
  }
  b.slo_single_type_usd = single < kInf ? single : 0;
  b.slo_any_usd = any < kInf ? any : 0;
}

}  // namespace

StatusOr<InferenceCostBound> BoundInferenceCost(const InferenceRequest& req) {
  if (req.trace == nullptr || req.trace->requests.empty())
    return FailedPreconditionError("cost bound: the trace has no requests");
  if (req.table == nullptr) return InvalidArgumentError("cost bound: no latency table");
  const TraceWork w = Measure(*req.trace, req.slo.attainment);
  InferenceCostBound b;
  b.tokens = w.tokens;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  b.any_usd = b.single_type_usd = kInf;
  PhaseCostOption best_prefill, best_decode;
  best_prefill.prefill_usd = best_decode.decode_usd = kInf;
  for (const GpuType& g : req.types) {
    const GpuLatency* lat = req.table->Find(g.key);
    if (lat == nullptr)
      return InvalidArgumentError("cost bound: no latency model for GPU type '" + g.key + "'");
    double type_prefill = kInf, type_decode = kInf;
    for (int tp : req.tps) {
      const double kv = KvCapacityTokens(req.model, PoolSpec{lat, g.price_usd_per_hour, tp, 1},
                                         ServingConfig{}.memory_util);
      if (kv <= 0) continue;  // the model does not fit
      const PrefillTerms prefill = PrefillTermsOf(req.model, *lat, tp);
      PhaseCostOption o =
          Bound(req.model, *lat, prefill, g.price_usd_per_hour, tp, kv, w, req.slo.tpot_s);
      o.gpu_type = g.key;
      ASSIGN_OR_RETURN(o.ttft_instances, TtftInstances(req, prefill));
      type_prefill = std::min(type_prefill, o.prefill_usd);
      type_decode = std::min(type_decode, o.decode_usd);
      if (o.prefill_usd < best_prefill.prefill_usd) best_prefill = o;
      if (o.decode_usd < best_decode.decode_usd) best_decode = o;
      b.options.push_back(o);
    }
    if (type_prefill + type_decode < b.single_type_usd) {
      b.single_type_usd = type_prefill + type_decode;
      b.single_type = g.key;
    }
  }
  if (b.options.empty())
    return FailedPreconditionError("cost bound: no GPU type and TP degree holds " + req.model.name);
  b.any_prefill = best_prefill;
  b.any_decode = best_decode;
  b.any_usd = best_prefill.prefill_usd + best_decode.decode_usd;
  b.span_s = req.trace->requests.back().arrival_s - req.trace->requests.front().arrival_s;
  AddSloBounds(b, req.types);
  return b;
}

std::string OptionName(const PhaseCostOption& o) {
  return o.gpu_type + " TP" + std::to_string(o.tp);
}

double PlanBoundUsd(const InferenceCostBound& b, const PlanCandidate& plan) {
  const PoolSpec& decode = plan.config.disaggregated ? plan.config.decode : plan.config.prefill;
  auto find = [&](const std::string& type, int tp) -> const PhaseCostOption* {
    for (const PhaseCostOption& o : b.options) {
      if (o.gpu_type == type && o.tp == tp) return &o;
    }
    return nullptr;
  };
  const PhaseCostOption* p = find(plan.prefill_type, plan.config.prefill.tp);
  const PhaseCostOption* d = find(plan.decode_type, decode.tp);
  return p && d ? p->prefill_usd + d->decode_usd : 0;
}

}  // namespace gpufleet::plan
