#include "plan/inference_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <limits>

namespace gpufleet::plan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct PoolChoice {
  std::string type;
  PoolSpec pool;
  double usd_per_hour = kInf;
};

// Cheapest per hour; at equal cost, the one that served the trace for
// less per token (shorter span). Sorts are stable: then the order found.
bool Cheaper(const PlanCandidate& a, const PlanCandidate& b) {
  if (a.result.usd_per_hour != b.result.usd_per_hour)
    return a.result.usd_per_hour < b.result.usd_per_hour;
  return a.result.usd_per_mtoken < b.result.usd_per_mtoken;
}

// The plan in words (the chosen plan, and the best single-type one beside it).
void Summarize(const InferenceRequest& req, InferencePlan& plan) {
  const SimResult& a = plan.chosen.result;
  const SimResult& b = plan.best_single_type.result;
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "Serve %s with %s: %d GPUs, $%.2f/hour, $%.3f per million tokens, %.1f%% of %d "
      "requests within the SLO (TTFT <= %.2f s, TPOT <= %.0f ms; p99 TTFT %.2f s, p99 "
      "TPOT %.0f ms, p99 time between tokens %.0f ms), %.0f tokens/s. Best single-type plan: "
      "%s, $%.3f per million tokens (%.1f%% %s).",
      req.model.name.c_str(), plan.chosen.Describe().c_str(), a.gpus, a.usd_per_hour,
      a.usd_per_mtoken, 100 * a.attainment, a.requests, req.slo.ttft_s, 1000 * req.slo.tpot_s,
      a.ttft_p99_s, 1000 * a.tpot_p99_s, 1000 * a.tbt_p99_s, a.throughput_tokens_per_s,
      plan.best_single_type.Describe().c_str(), b.usd_per_mtoken,
      b.usd_per_mtoken > 0 ? 100 * std::fabs(1 - a.usd_per_mtoken / b.usd_per_mtoken) : 0,
      a.usd_per_mtoken <= b.usd_per_mtoken ? "cheaper per token for the chosen plan" : "dearer");
  plan.summary = buf;
}

class Planner {
 public:
  explicit Planner(const InferenceRequest& req) : req_(req) {}
  StatusOr<InferencePlan> Run();

 private:
  ServingConfig Base() const {
    ServingConfig c;
    c.model = req_.model;
    c.kv_link_bytes_per_s = req_.kv_link_bytes_per_s;
    c.batching = req_.batching;
    c.defer_late = req_.defer_late;
    c.shared_queue = req_.shared_queue;
    c.max_batch_tokens = req_.prefill_batch_tokens;
    return c;
  }
  StatusOr<SimResult> Sim(const ServingConfig& c, const Slo& slo, const RequestTrace& trace) {
    ++sims_;
    return Simulate(trace, c, slo, true);
  }
  // Fewest instances (1..max) for which `make(n)` meets `slo`; 0 if none.
  template <typename Make>
  StatusOr<int> MinCount(Make make, const Slo& slo, const RequestTrace& trace) {
    int lo = 0, hi = 1;  // lo fails (0 = untested), hi to test
    while (true) {
      ASSIGN_OR_RETURN(SimResult r, Sim(make(hi), slo, trace));
      if (r.ok) break;
      if (r.why == "the weights do not fit in the instance's memory") return 0;
      lo = hi;
      if (hi >= req_.max_instances) return 0;
      hi = std::min(req_.max_instances, hi * 2);
    }
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      ASSIGN_OR_RETURN(SimResult r, Sim(make(mid), slo, trace));
      if (r.ok)
        hi = mid;
      else
        lo = mid;
    }
    return hi;
  }

  const InferenceRequest& req_;
  int sims_ = 0;
};

double PoolCost(const PoolSpec& p) { return p.count * p.tp * p.price_usd_per_hour; }

StatusOr<InferencePlan> Planner::Run() {
  const RequestTrace& trace = *req_.trace;
  InferencePlan plan;
  std::vector<PlanCandidate> cands;
  // Sub-SLOs for sizing the pools apart: each may miss half the budget.
  Slo ttft_only = req_.slo, tpot_only = req_.slo;
  ttft_only.attainment = 1 - (1 - req_.slo.attainment) / 2;
  ttft_only.tpot_s = kInf;
  ttft_only.tpot_p50_s = 0;
  ttft_only.tbt_p99_s = 0;
  tpot_only.attainment = ttft_only.attainment;
  tpot_only.ttft_s = kInf;
  tpot_only.ttft_p50_s = 0;
  std::vector<PoolChoice> prefill_pools, decode_pools;

  for (const GpuType& g : req_.types) {
    const GpuLatency* lat = req_.table->Find(g.key);
    if (lat == nullptr)
      return InvalidArgumentError("no latency model for GPU type '" + g.key + "'");
    if (lat->estimate) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s: %s (expected error %.0f%%)", g.key.c_str(),
                    lat->source.c_str(), 100 * lat->expected_error);
      plan.notes.push_back(buf);
    }
    for (int tp : req_.tps) {
      PoolSpec pool{lat, g.price_usd_per_hour, tp, 1};
      if (KvCapacityTokens(req_.model, pool, 0.9) <= 0) continue;
      // Colocated, at each token budget (one when batching prefill-first).
      std::vector<int> budgets = req_.token_budgets;
      if (req_.batching == Batching::kPrefillFirst || budgets.empty()) {
        budgets = {ServingConfig{}.mixed_token_budget};
      }
      for (int budget : budgets) {
        auto colo = [&](int n) {
          ServingConfig c = Base();
          c.mixed_token_budget = budget;
          c.prefill = pool;
          c.prefill.count = n;
          return c;
        };
        ASSIGN_OR_RETURN(int n, MinCount(colo, req_.slo, trace));
        if (n > 0) {
          PlanCandidate pc;
          pc.config = colo(n);
          pc.prefill_type = pc.decode_type = g.key;
          ASSIGN_OR_RETURN(pc.result, Sim(pc.config, req_.slo, trace));
          cands.push_back(pc);
        }
      }
      if (!req_.allow_disaggregated) continue;
      // The prefill pool alone: requests end at their first token.
      auto pre = [&](int n) {
        ServingConfig c = Base();
        c.disaggregated = true;
        c.prefill_only = true;
        c.prefill = pool;
        c.prefill.count = n;
        c.decode = pool;
        return c;
      };
      ASSIGN_OR_RETURN(int np, MinCount(pre, ttft_only, trace));
      if (np > 0) {
        PoolSpec p = pool;
        p.count = np;
        prefill_pools.push_back({g.key, p, PoolCost(p)});
      }
      decode_pools.push_back({g.key, pool, 0});
    }
  }
  // Decode pools, sized against the arrivals the cheapest prefill pool hands over.
  if (req_.allow_disaggregated && !prefill_pools.empty()) {
    std::sort(
        prefill_pools.begin(), prefill_pools.end(),
        [](const PoolChoice& a, const PoolChoice& b) { return a.usd_per_hour < b.usd_per_hour; });
    for (PoolChoice& d : decode_pools) {
      const PoolChoice& p0 = prefill_pools[0];
      auto dec = [&](int n) {
        ServingConfig c = Base();
        c.disaggregated = true;
        c.prefill = p0.pool;
        c.decode = d.pool;
        c.decode.count = n;
        return c;
      };
      ASSIGN_OR_RETURN(int nd, MinCount(dec, tpot_only, trace));
      d.pool.count = nd;
      d.usd_per_hour = nd > 0 ? PoolCost(d.pool) : kInf;
    }
    // Pair every prefill choice with every decode choice; verify the cheapest few.
    struct Pair {
      double cost;
      size_t p, d;
    };
    std::vector<Pair> pairs;
    for (size_t p = 0; p < prefill_pools.size(); ++p) {
      for (size_t d = 0; d < decode_pools.size(); ++d) {
        if (decode_pools[d].usd_per_hour < kInf) {
          pairs.push_back({prefill_pools[p].usd_per_hour + decode_pools[d].usd_per_hour, p, d});
        }
      }
    }
    std::sort(pairs.begin(), pairs.end(),
              [](const Pair& a, const Pair& b) { return a.cost < b.cost; });
    // The cheapest pairs, and the cheapest single-type pair of each type.
    std::vector<Pair> verify;
    for (size_t i = 0; i < pairs.size() && verify.size() < 4; ++i) verify.push_back(pairs[i]);
    for (const GpuType& g : req_.types) {
      for (const Pair& pr : pairs) {
        if (prefill_pools[pr.p].type == g.key && decode_pools[pr.d].type == g.key) {
          verify.push_back(pr);
          break;
        }
      }
    }
    for (const Pair& pr : verify) {
      ServingConfig c = Base();
      c.disaggregated = true;
      c.prefill = prefill_pools[pr.p].pool;
      c.decode = decode_pools[pr.d].pool;
      for (int grow = 0; grow < 6; ++grow) {
        ASSIGN_OR_RETURN(SimResult r, Sim(c, req_.slo, trace));
        if (r.ok) {
          PlanCandidate pc;
          pc.config = c;
          pc.prefill_type = prefill_pools[pr.p].type;
          pc.decode_type = decode_pools[pr.d].type;
          pc.result = r;
          cands.push_back(pc);
          break;
        }
        // Grow the side whose own SLO fails in the combined run.
        Slo s1 = ttft_only;
        s1.attainment = req_.slo.attainment;
        ASSIGN_OR_RETURN(SimResult rt, Simulate(trace, c, s1, false));
        ++sims_;
        if (rt.attainment < req_.slo.attainment)
          ++c.prefill.count;
        else
          ++c.decode.count;
      }
    }
  }
  plan.simulations = sims_;
  if (cands.empty()) {
    plan.summary = "No plan meets the SLO within " + std::to_string(req_.max_instances) +
                   " instances per pool of the given GPU types.";
    return plan;
  }
  std::stable_sort(cands.begin(), cands.end(), Cheaper);
  plan.has_plan = true;
  plan.chosen = cands[0];
  for (const PlanCandidate& c : cands) {
    if (c.prefill_type == c.decode_type) {
      plan.best_single_type = c;
      break;
    }
  }
  Summarize(req_, plan);
  return plan;
}

}  // namespace

std::string PlanCandidate::Describe() const {
  char buf[256];
  const SimResult& r = result;
  if (!config.disaggregated) {
    std::snprintf(buf, sizeof buf,
                  "colocated %d x %s TP%d (%s, KV cache %.0fk tokens per instance)",
                  config.prefill.count, prefill_type.c_str(), config.prefill.tp,
                  config.batching == Batching::kPrefillFirst
                      ? "prefill-first batching"
                      : (std::string(BatchingName(config.batching)) + " batching, " +
                         std::to_string(config.mixed_token_budget) + " tokens per iteration")
                            .c_str(),
                  r.kv_capacity_tokens / 1000);
  } else {
    std::snprintf(buf, sizeof buf,
                  "disaggregated prefill %d x %s TP%d + decode %d x %s TP%d (decode KV cache %.0fk "
                  "tokens per instance, KV transfer %.1f ms mean)",
                  config.prefill.count, prefill_type.c_str(), config.prefill.tp,
                  config.decode.count, decode_type.c_str(), config.decode.tp,
                  r.kv_capacity_tokens / 1000, 1000 * r.kv_transfer_s_mean);
  }
  return buf;
}

StatusOr<InferencePlan> PlanInference(const InferenceRequest& req) {
  if (req.trace == nullptr || req.trace->requests.empty()) {
    return InvalidArgumentError("inference plan: the request trace is empty");
  }
  if (req.table == nullptr || req.types.empty()) {
    return InvalidArgumentError("inference plan: no GPU types");
  }
  if (!(req.slo.ttft_s > 0) || !(req.slo.tpot_s > 0) || !(req.slo.attainment > 0) ||
      req.slo.attainment > 1) {
    return InvalidArgumentError(
        "inference plan: SLO needs TTFT > 0, TPOT > 0, 0 < attainment <= 1");
  }
  if (!req.search_serving) return Planner(req).Run();
  // The given prompt tokens per prefill-only iteration, and one prompt at a
  // time (or, given that, the default batch).
  const std::vector<int> batches = {
      req.prefill_batch_tokens,
      req.prefill_batch_tokens != 1 ? 1 : ServingConfig{}.max_batch_tokens};
  std::vector<InferenceRequest> variants;
  for (bool defer : {req.defer_late, !req.defer_late}) {
    for (bool shared : {req.shared_queue, !req.shared_queue}) {
      for (int batch : batches) {
        InferenceRequest v = req;
        v.search_serving = false;
        v.defer_late = defer;
        v.shared_queue = shared;
        v.prefill_batch_tokens = batch;
        variants.push_back(std::move(v));
      }
    }
  }
  // Every policy's search on a thread of its own; the answers merged in a
  // fixed order, so the plan does not depend on which finishes first (an
  // error returns once all are done: the futures' destructors wait).
  std::vector<std::future<StatusOr<InferencePlan>>> runs;
  for (const InferenceRequest& v : variants) {
    runs.push_back(std::async(std::launch::async, [&v] { return Planner(v).Run(); }));
  }
  InferencePlan best;
  for (size_t i = 0; i < runs.size(); ++i) {
    StatusOr<InferencePlan> r = runs[i].get();
    if (!r.ok()) return r.status();
    ServingTrial t{variants[i].defer_late, variants[i].shared_queue,
                   variants[i].prefill_batch_tokens};
    if (r->has_plan) {
      t.chosen_usd_per_mtoken = r->chosen.result.usd_per_mtoken;
      t.single_type_usd_per_mtoken = r->best_single_type.result.usd_per_mtoken;
      if (!best.has_plan || Cheaper(r->chosen, best.chosen)) best.chosen = r->chosen;
      if (!best.has_plan || Cheaper(r->best_single_type, best.best_single_type))
        best.best_single_type = r->best_single_type;
      best.has_plan = true;
    }
    best.simulations += r->simulations;
    if (i == 0) {
      best.notes = r->notes;
      best.summary = r->summary;  // "no plan meets the SLO" when none does
    }
    best.trials.push_back(t);
  }
  if (best.has_plan) Summarize(req, best);
  return best;
}

}  // namespace gpufleet::plan
