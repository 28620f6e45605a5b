// AlloX (Le et al., EuroSys'20) as Gavel runs it (`scheduler/policies/
// allox.py`): non-preemptive, heterogeneity-aware, single-GPU jobs only.
//
// When the allocation is recomputed, jobs that already hold a GPU keep it
// until they end. Of the jobs still waiting, oldest first, the first
// m = max(free GPUs, floor(alpha x waiting)) (at most all of them) are
// matched to the free GPUs to minimise the sum of their completion times:
// a job run k-th from the end of a GPU's queue delays k jobs (itself
// included) by its processing time there, steps left / steps per second on
// that GPU's type, so the cost of placing job i at position k of a GPU of
// type t is k x p_it (the classic assignment form of minimising the total
// completion time on unrelated machines). Gavel solves it with the
// Hungarian method over every (GPU, position) column; GPUs of one type are
// interchangeable, so here it is a min-cost flow (LEMON's network simplex)
// from jobs to (type, position) slots of capacity = the type's free GPUs.
// The job at the top position of each GPU starts; the rest wait for the
// next recomputation (Gavel keeps only the first job of each GPU). Jobs at
// one position on different GPUs cost the same, so which of them starts is
// a tie, broken oldest first. Gavel also adds each job's waiting time to
// every column of its row, which changes no assignment (each row is
// assigned once); it is left out.
//
// Thread safety: a policy object is used by one simulation at a time.
#pragma once

#include <memory>

#include "place/gavel_policy.h"

namespace gpufleet::place {

// alpha: the share of waiting jobs considered at once (Gavel: 0.3).
std::unique_ptr<GavelPolicy> MakeAlloxPolicy(double alpha = 0.3);

}  // namespace gpufleet::place
