#include "plan/inference_bound.h"

#include <gtest/gtest.h>

#include <random>

namespace gpufleet::plan {
namespace {

// Hand-set coefficients with every term of the model non-zero, so each one
// the bound derives is exercised (no ../shared needed).
LatencyTable Table(const std::vector<GpuType>& types) {
  LatencyTable t;
  for (const GpuType& g : types) {
    GpuLatency l;
    l.gpu_type = g.key;
    l.peaks = g.peaks;
    l.prefill = {0.02, 1.5, 2.0, 1.0, 1.2, 2e-5};
    l.decode = {0.01, 1.1, 1.0, 1.3, 1.0, 1e-5};
    t.by_type[g.key] = l;
  }
  return t;
}

// Every request waiting at time 0 (so a simulated span is busy time), of
// mixed prompt and output lengths.
RequestTrace Backlog(int n) {
  RequestTrace trace;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> prompt(50, 3000), output(1, 400);
  for (int i = 0; i < n; ++i) trace.requests.push_back({0.0, prompt(rng), output(rng)});
  return trace;
}

struct Fixture {
  std::vector<GpuType> types = {ResolveGpuType("a100-80gb").value(),
                                ResolveGpuType("h100").value()};
  LatencyTable table = Table(types);
  RequestTrace trace = Backlog(600);
  InferenceRequest req;
  Fixture() {
    req.model = FindModel("llama2-70b").value();
    req.trace = &trace;
    req.types = types;
    req.table = &table;
    req.tps = {4, 8};
  }
  PoolSpec Pool(int type, int tp) const {
    return {table.Find(types[type].key), types[type].price_usd_per_hour, tp, 1};
  }
};

// What a simulated plan paid for the trace: its GPUs over its span.
double SimulatedUsd(const RequestTrace& trace, const ServingConfig& c) {
  auto r = Simulate(trace, c, Slo{1e9, 1e9, 0}, false);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->completed, static_cast<int>(trace.requests.size()));
  return r->usd_per_hour * r->span_s / 3600.0;
}

TEST(InferenceBoundTest, NoSimulatedPlanPaysLessThanItsBound) {
  Fixture f;
  auto b = BoundInferenceCost(f.req);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->options.size(), 4u);
  ServingConfig base;
  base.model = f.req.model;
  struct Case {
    const char* what;
    ServingConfig c;
    std::string prefill_type, decode_type;
    double tight;  // the bound is at least this share of the simulated cost
  };
  std::vector<Case> cases;
  for (Batching batching : {Batching::kChunked, Batching::kMixed, Batching::kPrefillFirst}) {
    ServingConfig c = base;
    c.batching = batching;
    c.prefill = f.Pool(0, 4);
    // A backlog keeps a colocated instance busy: the bound leaves out only
    // prefill iterations' fixed cost and batches below the largest.
    cases.push_back({BatchingName(batching), c, "a100-80gb", "a100-80gb", 0.8});
  }
  ServingConfig split = base;
  split.disaggregated = true;
  split.prefill = f.Pool(1, 4);
  split.decode = f.Pool(0, 8);
  // The decode pool idles while the first prompts are prefilled.
  cases.push_back({"split", split, "h100", "a100-80gb", 0.4});
  for (const Case& k : cases) {
    PlanCandidate plan;
    plan.config = k.c;
    plan.prefill_type = k.prefill_type;
    plan.decode_type = k.decode_type;
    const double bound = PlanBoundUsd(*b, plan);
    const double paid = SimulatedUsd(f.trace, k.c);
    ASSERT_GT(bound, 0) << k.what;
    EXPECT_LE(bound, paid) << k.what;
    EXPECT_GE(bound, k.tight * paid) << k.what << ": bound " << bound << ", paid " << paid;
    // And no plan of any form pays less than the least bound.
    EXPECT_LE(b->any_usd, paid) << k.what;
  }
}

TEST(InferenceBoundTest, MixedBoundPicksTheCheapestOptionPerPhase) {
  Fixture f;
  auto b = BoundInferenceCost(f.req);
  ASSERT_TRUE(b.ok());
  double prefill = 1e300, decode = 1e300;
  for (const PhaseCostOption& o : b->options) {
    EXPECT_GT(o.prefill_usd, 0);
    EXPECT_GT(o.decode_usd, 0);
    prefill = std::min(prefill, o.prefill_usd);
    decode = std::min(decode, o.decode_usd);
  }
  EXPECT_DOUBLE_EQ(b->any_usd, prefill + decode);
  EXPECT_DOUBLE_EQ(b->any_prefill.prefill_usd, prefill);
  EXPECT_DOUBLE_EQ(b->any_decode.decode_usd, decode);
  EXPECT_LE(b->any_usd, b->single_type_usd);
  EXPECT_GE(b->SplitRoom(), 0);
  double tokens = 0;
  for (const Request& q : f.trace.requests) tokens += q.prompt_tokens + q.output_tokens;
  EXPECT_DOUBLE_EQ(b->tokens, tokens);

  // One GPU type: nothing to gain from splitting phases over types.
  f.req.types = {f.types[1]};
  auto one = BoundInferenceCost(f.req);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->single_type, "h100");
  EXPECT_DOUBLE_EQ(one->SplitRoom(), 0);

  // Doubling a type's price doubles its bounds.
  f.req.types[0].price_usd_per_hour *= 2;
  auto dear = BoundInferenceCost(f.req);
  ASSERT_TRUE(dear.ok());
  EXPECT_NEAR(dear->single_type_usd, 2 * one->single_type_usd, 1e-9 * one->single_type_usd);
}

TEST(InferenceBoundTest, LongerOutputsCostMoreDecode) {
  Fixture f;
  auto b = BoundInferenceCost(f.req);
  ASSERT_TRUE(b.ok());
  for (Request& q : f.trace.requests) q.output_tokens *= 2;
  auto longer = BoundInferenceCost(f.req);
  ASSERT_TRUE(longer.ok());
  for (size_t i = 0; i < b->options.size(); ++i) {
    EXPECT_DOUBLE_EQ(longer->options[i].prefill_usd, b->options[i].prefill_usd);
    EXPECT_GT(longer->options[i].decode_usd, 2 * b->options[i].decode_usd);  // context grows too
  }
}

TEST(InferenceBoundTest, TpotAsksForMoreIterationsAndNoPlanWithinItPaysLess) {
  Fixture f;
  // Short prompts and long outputs, served one request at a time: the
  // shortest TPOT this latency model allows (each token one decode step of
  // batch 1), far below what batches of 256 would give.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> prompt(10, 50), output(200, 400);
  for (Request& q : f.trace.requests) q = {0.0, prompt(rng), output(rng)};
  ServingConfig one;
  one.model = f.req.model;
  one.prefill = f.Pool(0, 4);
  one.max_batch_requests = 1;
  auto run = Simulate(f.trace, one, Slo{1e9, 1e9, 0}, false);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const double paid = run->usd_per_hour * run->span_s / 3600.0;

  // A TPOT no plan notices: the same as without it.
  f.req.slo = Slo{1e9, 1e9, 0.98};
  auto loose = BoundInferenceCost(f.req);
  ASSERT_TRUE(loose.ok()) << loose.status().ToString();
  for (const PhaseCostOption& o : loose->options) {
    EXPECT_TRUE(o.meets_tpot);
    EXPECT_DOUBLE_EQ(o.decode_slo_usd, o.decode_usd) << OptionName(o);
  }
  // The TPOT that plan kept for 99% of its requests: its pool must run
  // more iterations than batches of 256 would, and the plan still pays at
  // least that bound.
  f.req.slo = Slo{1e9, run->tpot_p99_s, 0.98};
  auto tight = BoundInferenceCost(f.req);
  ASSERT_TRUE(tight.ok()) << tight.status().ToString();
  const PhaseCostOption* own = nullptr;
  for (const PhaseCostOption& o : tight->options) {
    if (o.gpu_type == "a100-80gb" && o.tp == 4) own = &o;
  }
  ASSERT_TRUE(own != nullptr);
  ASSERT_TRUE(own->meets_tpot);
  EXPECT_GT(own->decode_slo_usd, 1.2 * own->decode_usd);
  EXPECT_LE(own->prefill_usd + own->decode_slo_usd, paid);
  EXPECT_GE(tight->slo_any_usd, loose->slo_any_usd);
  EXPECT_LE(tight->slo_any_usd, paid);

  // A TPOT below one iteration's fixed cost: no option keeps it.
  f.req.slo = Slo{1e9, 1e-6, 0.98};
  auto none = BoundInferenceCost(f.req);
  ASSERT_TRUE(none.ok());
  for (const PhaseCostOption& o : none->options) EXPECT_FALSE(o.meets_tpot) << OptionName(o);
  EXPECT_EQ(none->slo_any_usd, 0);
}

TEST(InferenceBoundTest, RejectsWhatItCannotBound) {
  Fixture f;
  RequestTrace empty;
  f.req.trace = &empty;
  EXPECT_EQ(BoundInferenceCost(f.req).status().code(), StatusCode::kFailedPrecondition);
  f.req.trace = &f.trace;
  LatencyTable none;
  f.req.table = &none;
  auto s = BoundInferenceCost(f.req).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("a100-80gb"), std::string::npos) << s.ToString();
  f.req.table = &f.table;
  f.req.tps = {1};  // 70B in 16-bit does not fit one 80 GB GPU
  EXPECT_EQ(BoundInferenceCost(f.req).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace gpufleet::plan
