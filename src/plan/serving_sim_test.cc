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

}  // namespace
}  // namespace gpufleet::plan
