// Inference planner: chooses colocated or disaggregated (prefill / decode)
// serving, the GPU type, tensor-parallel degree and instance count of each
// pool, so that a request trace meets its SLO at the lowest cost, and gives
// the best single-type plan beside it.
//
// Search: for every (GPU type, TP) that holds the model, the fewest
// colocated instances that meet the SLO (exponential then binary search on
// the count, each step a simulation, plan/serving_sim.h). For disaggregated
// plans the pools are sized apart -- the fewest prefill instances whose TTFT
// meets the SLO and the fewest decode instances whose TPOT does, each with
// half of the allowed misses -- then the cheapest pairs are simulated
// together and grown one instance at a time on the side that misses until
// the SLO holds. Cost is $/hour of the GPUs; $/Mtoken follows from the
// tokens served over the trace's span.
//
// The serving policy (admission, queue, prompts per prefill iteration) is
// an input; with `search_serving` the whole search runs under each of the
// eight policies the given settings and their alternatives make (the other
// admission, the other queue; one prompt per prefill-only iteration, or
// the default batch when one was given), in parallel, and the cheapest
// plan and the cheapest single-type plan are taken over all of them.
//
// Thread safety: pure function; `table` must outlive the call.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "plan/calibration.h"
#include "plan/gpu_type.h"
#include "plan/request_trace.h"
#include "plan/serving_sim.h"

namespace gpufleet::plan {

struct InferenceRequest {
  ModelSpec model;
  const RequestTrace* trace = nullptr;
  Slo slo;
  std::vector<GpuType> types;
  const LatencyTable* table = nullptr;
  std::vector<int> tps = {1, 2, 4, 8};
  bool allow_disaggregated = true;
  Batching batching = Batching::kChunked;  // colocated instances
  // Tokens per mixed / chunked iteration (vLLM's max_num_batched_tokens):
  // colocated plans are searched at each; the cheapest wins.
  std::vector<int> token_budgets = {1024, 2048, 4096};
  int max_instances = 200;  // per pool
  bool defer_late = false;  // deadline-aware admission (ServingConfig::defer_late)
  bool shared_queue = false;  // one queue per prefill pool (ServingConfig::shared_queue)
  int prefill_batch_tokens = ServingConfig{}.max_batch_tokens;  // prefill-only iterations
  // Also plan under the other serving policies and keep the cheapest.
  bool search_serving = false;
  double kv_link_bytes_per_s = 50e9;
};

struct PlanCandidate {
  ServingConfig config;
  std::string prefill_type, decode_type;  // equal when colocated
  SimResult result;
  std::string Describe() const;
};

// One serving policy's search (search_serving): its plans' $/Mtoken, 0
// when none meets the SLO.
struct ServingTrial {
  bool defer_late = false;
  bool shared_queue = false;
  int prefill_batch_tokens = 0;
  double chosen_usd_per_mtoken = 0;
  double single_type_usd_per_mtoken = 0;
};

struct InferencePlan {
  PlanCandidate chosen;
  PlanCandidate best_single_type;
  bool has_plan = false;
  int simulations = 0;
  std::vector<ServingTrial> trials;  // search_serving only, in search order
  std::vector<std::string> notes;  // estimates and their expected errors
  std::string summary;
};

StatusOr<InferencePlan> PlanInference(const InferenceRequest& req);

}  // namespace gpufleet::plan
