#include "plan/serving_sim.h"

#include <gtest/gtest.h>

#include "plan/gpu_type.h"

namespace gpufleet::plan {
namespace {

// Unit coefficients: step time = overhead + compute + memory at peak.
GpuLatency Roofline(const char* hw, double overhead_s) {
  GpuLatency l;
  l.gpu_type = hw;
  l.peaks = PeaksOf(hw).value();
  l.prefill.overhead_s = overhead_s;
  l.decode.overhead_s = overhead_s;
  return l;
}

ServingConfig Colocated(const GpuLatency* lat, int tp, int count) {
  ServingConfig c;
  c.model = FindModel("llama2-70b").value();
  c.prefill = PoolSpec{lat, 2.0, tp, count};
  return c;
}

TEST(ServingSimTest, OneRequestAloneTakesItsStepTimes) {
  GpuLatency h100 = Roofline("h100-sxm", 0.005);
  ServingConfig c = Colocated(&h100, 8, 1);
  RequestTrace t;
  t.requests.push_back({0, 1000, 11});
  auto r = Simulate(t, c, Slo{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  double pre = h100.PrefillS(c.model, 8, 1000, 1e6);
  EXPECT_NEAR(r->ttft_p50_s, pre, 1e-12);
  // Ten decode steps with context 1001 .. 1010.
  double dec = 0;
  for (int k = 0; k < 10; ++k) dec += h100.DecodeS(c.model, 8, 1, 1001 + k);
  EXPECT_NEAR(r->tpot_p50_s, dec / 10, 1e-12);
  // Ten gaps between tokens: the decode steps themselves (quantiles are the
  // upper edges of bins at most 1.6% wide).
  const double p99 = h100.DecodeS(c.model, 8, 1, 1010), p50 = h100.DecodeS(c.model, 8, 1, 1005);
  EXPECT_GE(r->tbt_p99_s, p99);
  EXPECT_LE(r->tbt_p99_s, p99 * 1.016);
  EXPECT_GE(r->tbt_p50_s, p50);
  EXPECT_LE(r->tbt_p50_s, p50 * 1.016);
  EXPECT_EQ(r->completed, 1);
  EXPECT_EQ(r->gpus, 8);
  EXPECT_DOUBLE_EQ(r->usd_per_hour, 16.0);
  EXPECT_TRUE(r->ok);
}

TEST(ServingSimTest, MoreInstancesNeverServeWorse) {
  GpuLatency a100 = Roofline("a100-sxm-80gb", 0.01);
  RequestTrace t = SyntheticTrace(8, 120, 1500, 200, 5);
  double last_p99 = 1e300;
  for (int n : {1, 2, 4, 8}) {
    auto r = Simulate(t, Colocated(&a100, 8, n), Slo{}, false);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->completed, static_cast<int>(t.requests.size()));
    EXPECT_LE(r->ttft_p99_s, last_p99 * 1.0001) << n;
    last_p99 = r->ttft_p99_s;
  }
}

TEST(ServingSimTest, KvCapacityLimitsTheBatch) {
  GpuLatency a100 = Roofline("a100-sxm-80gb", 0.01);
  ServingConfig c = Colocated(&a100, 2, 1);
  double cap = KvCapacityTokens(c.model, c.prefill, c.memory_util);
  // (2 x 80 GiB x 0.9 - 137.9 GB of 16-bit weights) / 320 KiB per token.
  EXPECT_NEAR(cap, (2 * 80 * 1073741824.0 * 0.9 - 137.95e9) / 327680, 200);
  RequestTrace t;
  t.requests.push_back({0, static_cast<int>(cap) + 10, 5});  // fits no instance
  t.requests.push_back({0.1, 100, 5});
  auto r = Simulate(t, c, Slo{}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
  EXPECT_EQ(r->completed, 1);
  EXPECT_EQ(KvCapacityTokens(c.model, PoolSpec{&a100, 1, 1, 1}, 0.9), 0);  // 70B on one A100
}

TEST(ServingSimTest, DisaggregatedMovesKvAndKeepsDecodeFreeOfPrefill) {
  GpuLatency h100 = Roofline("h100-sxm", 0.005);
  GpuLatency a100 = Roofline("a100-sxm-80gb", 0.005);
  RequestTrace t = SyntheticTrace(4, 60, 2000, 100, 9);
  ServingConfig d;
  d.model = FindModel("llama2-70b").value();
  d.disaggregated = true;
  d.prefill = PoolSpec{&h100, 4.0, 8, 1};
  d.decode = PoolSpec{&a100, 2.8, 8, 2};
  auto r = Simulate(t, d, Slo{}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->completed, static_cast<int>(t.requests.size()));
  // 2000 tokens x 320 KiB over 50 GB/s.
  EXPECT_NEAR(r->kv_transfer_s_mean, 2000 * d.model.KvBytesPerToken() / 50e9, 1e-9);
  EXPECT_EQ(r->gpus, 24);
  // Colocated on the same decode GPUs, prefills interrupt decoding: TPOT p99 is worse.
  auto c = Simulate(t, Colocated(&a100, 8, 2), Slo{}, false);
  ASSERT_TRUE(c.ok());
  EXPECT_GT(c->tpot_p99_s, r->tpot_p99_s);
}

// A prompt longer than the token budget goes in chunks; each chunk pays the
// attention of its rows against the whole prefix before it, so the chunks'
// attention adds up to the whole prompt's, and the first token comes with
// the last chunk.
TEST(ServingSimTest, ChunkedPrefillCutsALongPromptAtTheBudget) {
  GpuLatency h100 = Roofline("h100-sxm", 0.005);
  ServingConfig c = Colocated(&h100, 8, 1);
  c.batching = Batching::kChunked;
  c.mixed_token_budget = 2048;
  RequestTrace t;
  t.requests.push_back({0, 5000, 3});
  auto r = Simulate(t, c, Slo{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto pre = [&](double n, double done) {
    return h100.PrefillS(c.model, 8, n, n * (2 * done + n));
  };
  EXPECT_NEAR(r->ttft_p50_s, pre(2048, 0) + pre(2048, 2048) + pre(904, 4096), 1e-12);
  // Three step overheads and weight passes instead of one.
  EXPECT_GT(r->ttft_p50_s, h100.PrefillS(c.model, 8, 5000, 5000.0 * 5000) + 2 * 0.005);
  // Whole prompts (mixed): the first prompt of an iteration goes in even
  // above the budget, so a long prompt is not starved.
  c.batching = Batching::kMixed;
  auto m = Simulate(t, c, Slo{});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->completed, 1);
  EXPECT_NEAR(m->ttft_p50_s, h100.PrefillS(c.model, 8, 5000, 5000.0 * 5000), 1e-12);
}

// A decoding request beside a queue of long prompts: prefill-first stops
// its decoding for every whole prefill, mixed and chunked iterations carry
// its token each time, so it finishes sooner. Chunked and mixed give it the
// same mean here: each extra chunk pays one more pass over the weights (the
// price of a decode step) and carries one more of its tokens; the prompts
// pay for the cutting in TTFT. What chunking buys is the longest gap
// between two tokens: a budget-sized iteration, not a whole prompt.
TEST(ServingSimTest, MixedBatchesKeepDecodingThroughPrefills) {
  GpuLatency a100 = Roofline("a100-sxm-80gb", 0.01);
  RequestTrace t;
  t.requests.push_back({0, 200, 400});  // the decoding request
  for (int k = 0; k < 40; ++k) t.requests.push_back({0.5 + 0.25 * k, 6000, 1});
  double tpot[3], ttft[3], tbt[3];
  const Batching modes[] = {Batching::kPrefillFirst, Batching::kMixed, Batching::kChunked};
  for (int k = 0; k < 3; ++k) {
    ServingConfig c = Colocated(&a100, 8, 1);
    c.batching = modes[k];
    auto r = Simulate(t, c, Slo{}, false);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->completed, static_cast<int>(t.requests.size())) << BatchingName(modes[k]);
    tpot[k] = r->tpot_p99_s;  // the decoding request has the only TPOT above 0
    ttft[k] = r->ttft_p99_s;
    tbt[k] = r->tbt_p99_s;
  }
  const ModelSpec m = FindModel("llama2-70b").value();
  // A whole 6,000-token prompt rides in each mixed iteration; chunks of
  // 2,048 tokens at most. (Prefill-first runs the queued prompts back to
  // back: one stall of the whole queue, 1 gap in 399, below the p99; its
  // mean TPOT shows it.)
  const double whole = a100.PrefillS(m, 8, 6000, 36e6);
  EXPECT_LT(tbt[0], whole);
  EXPECT_GT(tpot[0] * 399, 18.0);
  EXPECT_GT(tbt[1], whole);
  EXPECT_LT(tbt[2], a100.PrefillS(m, 8, 2048, 2048.0 * 6000) + a100.DecodeS(m, 8, 1, 600));
  EXPECT_LT(tpot[1], tpot[0] * 0.99);
  EXPECT_NEAR(tpot[2], tpot[1], 1e-6 * tpot[1]);
  EXPECT_GT(ttft[2], ttft[1] * 1.1);
}

// Prompts alone on one prefill-first instance, one prompt per iteration:
// a long one runs, a doomed one (its own prefill exceeds the TTFT) and three
// short ones wait. First come, first served runs the doomed one next and
// the short ones miss behind it; deadline-aware admission runs the short
// ones first and the doomed one last. Every request is served either way.
TEST(ServingSimTest, DeadlineAdmissionRunsWhatCanStillKeepTheTtft) {
  GpuLatency h100 = Roofline("h100-sxm", 0.005);
  ServingConfig c = Colocated(&h100, 8, 1);
  c.max_batch_tokens = 1;
  auto alone = [&](double p) { return h100.PrefillS(c.model, 8, p, p * p); };
  Slo slo;
  slo.ttft_s = 1.5 * alone(4000);
  ASSERT_GT(alone(12000), slo.ttft_s);                       // doomed from the start
  ASSERT_LT(alone(4000) + 3 * alone(200), slo.ttft_s);       // the short ones can make it
  ASSERT_GT(alone(4000) + alone(12000) - 0.01, slo.ttft_s);  // but not behind it
  RequestTrace t;
  t.requests = {{0, 4000, 1}, {0.01, 12000, 1}, {0.02, 200, 1}, {0.03, 200, 1}, {0.04, 200, 1}};
  auto fcfs = Simulate(t, c, slo, false);
  ASSERT_TRUE(fcfs.ok()) << fcfs.status().ToString();
  c.defer_late = true;
  auto deadline = Simulate(t, c, slo, false);
  ASSERT_TRUE(deadline.ok());
  EXPECT_EQ(fcfs->completed, 5);
  EXPECT_EQ(deadline->completed, 5);
  EXPECT_DOUBLE_EQ(fcfs->attainment, 0.2);      // only the first
  EXPECT_DOUBLE_EQ(deadline->attainment, 0.8);  // all but the doomed one
  // The doomed prompt waits for the short ones: the slowest TTFT is its.
  EXPECT_NEAR(deadline->ttft_p99_s, alone(4000) + 3 * alone(200) + alone(12000) - 0.01, 1e-9);
}

// Two instances, one prompt per iteration: a long prompt on the first, a
// short one on the second, then another short one. Joining the shortest
// queue (by count) puts it behind the long prompt; one shared queue lets
// the second instance take it when its short prompt ends.
TEST(ServingSimTest, ASharedQueueFeedsWhicheverInstanceIsFree) {
  GpuLatency h100 = Roofline("h100-sxm", 0.005);
  ServingConfig c = Colocated(&h100, 8, 2);
  c.max_batch_tokens = 1;
  auto alone = [&](double p) { return h100.PrefillS(c.model, 8, p, p * p); };
  RequestTrace t;
  t.requests = {{0, 8000, 1}, {0.001, 300, 1}, {0.002, 300, 1}};
  ASSERT_LT(0.001 + 2 * alone(300), alone(8000));
  auto own = Simulate(t, c, Slo{}, false);
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  c.shared_queue = true;
  auto shared = Simulate(t, c, Slo{}, false);
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(own->completed, 3);
  EXPECT_EQ(shared->completed, 3);
  EXPECT_NEAR(own->ttft_p99_s, alone(8000) + alone(300) - 0.002, 1e-9);
  EXPECT_NEAR(shared->ttft_p99_s, alone(8000), 1e-9);  // the long prompt's own
}

TEST(ServingSimTest, BatchingNamesRoundTrip) {
  for (Batching b : {Batching::kPrefillFirst, Batching::kMixed, Batching::kChunked}) {
    auto p = ParseBatching(BatchingName(b));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, b);
  }
  auto bad = ParseBatching("orca");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("prefill-first, mixed or chunked"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::plan
