// The fewest instances that can keep a trace's time to first token (TTFT)
// within its SLO for all but a budget of requests: a lower bound, so no
// serving plan meets the SLO with fewer.
//
// Each request i arrives at t_i and needs w_i seconds of prefill on one
// instance (the latency model's per-token and attention terms; batching
// only adds a fixed cost per iteration). A request that keeps its TTFT
// starts no earlier than its arrival and ends by t_i + TTFT, so for any run
// of consecutive arrivals i..j the kept ones' work fits N instances over
// [t_i, t_j + TTFT]:  sum of kept w  <=  N (t_j - t_i + TTFT).
// The least number of requests a run must give up is the fewest of its
// largest w whose removal makes it fit. Runs that do not overlap give up
// disjoint requests, so over any partition of the arrivals into runs the
// sum is a lower bound on the misses; with N instances the most over all
// partitions (a dynamic programme over run ends, runs of at most
// `max_run` arrivals) must stay within the budget. A request whose w alone
// exceeds the TTFT misses whatever N is (a prompt runs on one instance).
// The bound lets a prompt's work spread over instances and leaves out
// decode work, iteration fixed costs and KV transfer: it is loose, never
// high.
//
// Thread safety: pure functions.
#pragma once

#include <span>

#include "core/status.h"

namespace gpufleet::plan {

struct TtftBoundInput {
  std::span<const double> arrival_s;  // non-decreasing
  std::span<const double> work_s;     // prefill seconds on one instance, same order
  double ttft_s = 0;
  int max_misses = 0;  // requests allowed to miss the TTFT
  int max_run = 512;   // longest run of arrivals the programme considers
  int max_instances = 100000;
};

struct TtftBound {
  int instances = 0;  // the fewest that can keep the TTFT
  int hopeless = 0;   // requests whose own prefill exceeds the TTFT
};

// The most misses N instances must have (stops counting past max_misses).
int ForcedTtftMisses(const TtftBoundInput& in, int instances);

// InvalidArgument on mismatched or unsorted input or a TTFT <= 0;
// FailedPrecondition when more requests are hopeless than the budget
// allows, or no N up to max_instances is enough.
StatusOr<TtftBound> FewestTtftInstances(const TtftBoundInput& in);

}  // namespace gpufleet::plan
