// Splitwise's headline experiment (ISCA'24) on our simulator: Llama-2-70B on
// DGX-style 8-GPU machines (TP8) of A100, H100 and power-capped H100 at
// equal cost (DGX-H100 = 2.15x DGX-A100, from splitwise-sim's iso-cost
// configurations), and the highest request rate each design sustains within
// the SLO.
//
// Designs: Baseline-A100 and Baseline-H100 (colocated), Splitwise-HA (H100
// prefill, A100 decode) and Splitwise-HHcap (H100 prefill, power-capped H100
// decode), each split tried at every machine ratio the budget allows. The
// rate is the trace's arrivals sped up by a factor, found by bisection.
// Cost at equal rate: every split of either design within the budget,
// cheapest first, simulated at the best baseline's rate until one meets the
// SLO (machines are whole, so this is a search, not a scaling).
//
// Thread safety: pure function; `table` must outlive the call.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "plan/calibration.h"
#include "plan/request_trace.h"
#include "plan/serving_sim.h"

namespace gpufleet::plan {

struct DesignResult {
  std::string name;         // "Baseline-H100", "Splitwise-HA", ...
  int prefill_machines = 0;
  int decode_machines = 0;  // 0 for colocated designs
  double cost = 0;          // in DGX-A100 units
  double rate_factor = 0;   // highest arrival speed-up within SLO (0 = none)
  double tokens_per_s = 0;  // at that rate
};

struct SplitwiseRepro {
  std::vector<DesignResult> designs;  // the best split of each design
  DesignResult best_baseline, best_split;
  double throughput_ratio = 0;   // best split / best baseline at equal cost
  // The cheapest split (either design, any whole numbers of machines within
  // the budget) that sustains the best baseline's rate within the SLO, and
  // its cost / the baseline's; 0 when none does.
  DesignResult cheapest_split_at_baseline_rate;
  double cost_ratio = 0;
  std::string summary;
};

// `budget_h100_machines`: the budget as that many DGX-H100. `batching`: how
// the baselines' machines batch; mixed or chunked also caps the split
// designs' prefill batches at the same token budget (splitwise-sim runs
// every machine with 2,048 tokens per iteration).
StatusOr<SplitwiseRepro> ReproduceSplitwise(const RequestTrace& trace, const LatencyTable& table,
                                            const Slo& slo, int budget_h100_machines,
                                            Batching batching = Batching::kMixed);

}  // namespace gpufleet::plan
