#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "place/gavel_data.h"
#include "place/gavel_policy.h"
#include "place/gavel_report.h"
#include "place/gavel_sim.h"

namespace gpufleet::place {
namespace {

GavelThroughputs TwoTypeTable() {
  // One job type, 2x faster on "v100" than on "k80", and its multi-GPU forms.
  return GavelThroughputs::FromTable({"k80", "v100"}, {{"J", 1}, {"J", 2}, {"J", 4}, {"J", 8}},
                                     {{1.0, 2.0}, {1.8, 3.6}, {3.2, 6.4}, {6, 12}});
}

TEST(GavelPolicyTest, MaxMinSplitsOneGpuEvenly) {
  auto x = SolveMaxMinLp({{1.0}, {1.0}}, {1, 1}, {1});
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR((*x)[0][0], 0.5, 1e-4);
  EXPECT_NEAR((*x)[1][0], 0.5, 1e-4);
}

TEST(GavelPolicyTest, PerfFormGivesEachJobTheTypeItGainsMostOn) {
  // Job 0 gains 10x on type 1, job 1 gains nothing: one GPU of each type.
  GavelAllocationInput in;
  in.workers = {1, 1};
  in.jobs.resize(2);
  in.jobs[0].id = 0;
  in.jobs[0].steps_per_s = {1.0, 10.0};
  in.jobs[1].id = 1;
  in.jobs[1].steps_per_s = {1.0, 1.0};
  auto p = MakeGavelPolicy("max_min_fairness_perf", 0);
  ASSERT_TRUE(p.ok());
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  // The optimum is degenerate (only the minimum is pinned) and the interior
  // point lands inside it, so compare shares rather than expect a vertex.
  EXPECT_GT((*x)[0][1], (*x)[1][1]);
  EXPECT_GT((*x)[1][0], (*x)[0][0]);
  EXPECT_FALSE(MakeGavelPolicy("nope", 0).ok());
  EXPECT_TRUE(MakeGavelPolicy("gpufleet_cost:0.9", 0).ok());
  EXPECT_FALSE(MakeGavelPolicy("gpufleet_cost:2", 0).ok());
  EXPECT_FALSE(MakeGavelPolicy("gpufleet_cost:x", 0).ok());
}

TEST(GavelPolicyTest, FifoPerfTakesTheFastestTypeInArrivalOrder) {
  GavelAllocationInput in;
  in.workers = {1, 1};
  in.jobs.resize(3);
  for (int i = 0; i < 3; ++i) {
    in.jobs[i].id = 2 - i;  // given in reverse arrival order
    in.jobs[i].steps_per_s = {1.0, 2.0};
  }
  auto p = MakeGavelPolicy("fifo_perf", 0);
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[2][1], 1.0);  // id 0: the faster type
  EXPECT_EQ((*x)[1][0], 1.0);  // id 1: what is left
  EXPECT_EQ((*x)[0][0] + (*x)[0][1], 0.0);  // id 2 waits
}

// Gavel's fifo.py base mode as it runs: the job gets the last type in name
// order among those with free GPUs (not the drawn one, not the fastest),
// even without room for its GPUs; types are kept until the job ends, and an
// ended job's type goes to the head of the queue when it fits.
TEST(GavelPolicyTest, FifoAsCodedGivesTheLastTypeByNameEvenWithoutRoom) {
  GavelAllocationInput in;
  in.workers = {8, 1};                // index 0 "v100", index 1 "k80"
  in.worker_names = {"v100", "k80"};  // name order: k80, v100
  in.jobs.resize(2);
  for (int i = 0; i < 2; ++i) {
    in.jobs[i].id = i;
    in.jobs[i].scale_factor = 4;
    in.jobs[i].steps_per_s = {1.0, 5.0};  // faster on the k80: not looked at
  }
  for (uint64_t seed = 0; seed < 8; ++seed) {  // whatever the draw
    auto p = MakeGavelPolicy("fifo:code", seed);
    ASSERT_TRUE(p.ok());
    auto x = (*p)->Allocate(in);
    ASSERT_TRUE(x.ok());
    // Job 0: the k80 has 1 free GPU (in the list) but no room for 4; the
    // job still gets v100, the last by name. Job 1 too: 8 - 4 = 4 left.
    EXPECT_EQ((*x)[0], (std::vector<double>{1.0, 0.0}));
    EXPECT_EQ((*x)[1], (std::vector<double>{1.0, 0.0}));

    // Job 0 ends; a third job (sf 4) arrives. Job 1 keeps its type, the
    // head takes the ended job's V100s.
    GavelAllocationInput next = in;
    next.jobs[0].id = 2;
    next.jobs[0].steps_per_s = {1.0, 5.0};
    auto y = (*p)->Allocate(next);
    ASSERT_TRUE(y.ok());
    EXPECT_EQ((*y)[0], (std::vector<double>{1.0, 0.0}));
    EXPECT_EQ((*y)[1], (std::vector<double>{1.0, 0.0}));
  }
  // Over-subscribed: with one V100 the 4-GPU job is still given it.
  in.workers = {1, 8};
  auto p = MakeGavelPolicy("fifo:code", 0);
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0], (std::vector<double>{1.0, 0.0}));
}

TEST(GavelSimTest, GeneratorFollowsPublishedDistributions) {
  const GavelThroughputs t = TwoTypeTable();
  GavelTraceOptions o;
  o.jobs_per_hour = 2;
  o.multi_gpu = true;
  o.num_jobs = 20000;
  o.gavel_draws = false;  // the synthetic table is not Gavel's job table
  auto jobs = GenerateGavelJobs(t, o);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  int single = 0;
  double dur = 0;
  for (const GavelSimJob& j : *jobs) {
    single += j.scale_factor == 1;
    dur += j.duration_v100_s;
  }
  // Analytic mean of 60*10^U: 0.8*(10^3-10^1.5)/(1.5 ln10) + 0.2*(10^4-10^3)/ln10 minutes.
  const double mean_min = 0.8 * (1000 - std::pow(10, 1.5)) / (1.5 * std::log(10.0)) +
                          0.2 * 9000 / std::log(10.0);
  EXPECT_NEAR(dur / jobs->size() / 60, mean_min, 0.05 * mean_min);
  const double last_arrival_h = jobs->back().arrival_s / 3600;
  EXPECT_NEAR(last_arrival_h, 20000 / 2.0, 0.05 * 10000);
  EXPECT_NEAR(single / 20000.0, 0.7, 0.02);  // Gavel's Philly-derived 70% single-GPU
}

TEST(GavelSimTest, StaticTraceArrivesAtOnceAndMakespanPolicySharesTheGpu) {
  const GavelThroughputs t = TwoTypeTable();
  GavelTraceOptions o;
  o.jobs_per_hour = 0;  // static
  o.num_jobs = 3;
  o.gavel_draws = false;
  auto jobs = GenerateGavelJobs(t, o);
  ASSERT_TRUE(jobs.ok());
  for (const GavelSimJob& j : *jobs) EXPECT_EQ(j.arrival_s, 0.0);
  // Equal work, one GPU: the makespan-optimal shares are equal.
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs.resize(2);
  for (int i = 0; i < 2; ++i) {
    in.jobs[i].id = i;
    in.jobs[i].steps_per_s = {1.0};
    in.jobs[i].steps_remaining = 100;
  }
  auto p = MakeGavelPolicy("min_total_duration_perf", 0);
  ASSERT_TRUE(p.ok());
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR((*x)[0][0], 0.5, 1e-4);
  EXPECT_NEAR((*x)[1][0], 0.5, 1e-4);
}

// One k80 and one v100 ($1 and $3 an hour), one job measured.
GavelSimOptions OneOfEach() {
  GavelSimOptions o;
  o.workers = {1, 1};
  o.price_usd_per_hour = {1.0, 3.0};
  o.measure_begin = 0;
  o.measure_end = 1;
  return o;
}

TEST(GavelSimTest, OneJobRunsAtItsFastestThroughputUnderFifoPerf) {
  const GavelThroughputs t = TwoTypeTable();
  GavelSimJob job;
  job.id = 0;
  job.job_type = 0;
  job.total_steps = 7200;  // one hour on v100 (2 steps/s)
  auto p = MakeGavelPolicy("fifo_perf", 0);
  GavelSimOptions o = OneOfEach();
  auto r = SimulateGavel(t, {job}, **p, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->completed_measured, 1);
  EXPECT_NEAR(r->avg_jct_hours, 1.0, 1e-6);
  EXPECT_NEAR(r->avg_cost_usd, 3.0, 1e-6);
  o.workers = {1};
  EXPECT_FALSE(SimulateGavel(t, {job}, **p, o).ok());
}

TEST(GavelSimTest, AJobKeptOnItsTypePaysItsStartUpOnce) {
  const GavelThroughputs t = TwoTypeTable();
  GavelSimJob job;
  job.total_steps = 7200;  // one hour on v100 (2 steps/s)
  auto p = MakeGavelPolicy("fifo_perf", 0);
  GavelSimOptions o = OneOfEach();
  o.startup_s = 120;
  auto r = SimulateGavel(t, {job}, **p, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // 480 steps after the start-up in the first round, 720 in each next one:
  // the hour of work plus one start-up, all of it on the v100's bill.
  EXPECT_EQ(r->startups, 1);
  EXPECT_NEAR(r->avg_jct_hours, 1.0 + 120.0 / 3600, 1e-9);
  EXPECT_NEAR(r->avg_cost_usd, 3.0 * (1.0 + 120.0 / 3600), 1e-9);
  o.startup_s = 360;  // a whole round: no job would ever step
  EXPECT_EQ(SimulateGavel(t, {job}, **p, o).status().code(), StatusCode::kInvalidArgument);
  o.startup_s = -1;
  EXPECT_EQ(SimulateGavel(t, {job}, **p, o).status().code(), StatusCode::kInvalidArgument);
}

// Every job an equal share of type 0; whether rounds count start-ups is the
// one difference.
class EvenSharePolicy : public GavelPolicy {
 public:
  explicit EvenSharePolicy(bool aware) : aware_(aware) {}
  const std::string& name() const override { return name_; }
  bool heterogeneity_aware() const override { return true; }
  bool startup_aware() const override { return aware_; }
  StatusOr<GavelAllocation> Allocate(const GavelAllocationInput& in) override {
    GavelAllocation x(in.jobs.size(), std::vector<double>(in.workers.size(), 0.0));
    for (auto& row : x) row[0] = 1.0 / static_cast<double>(in.jobs.size());
    return x;
  }

 private:
  bool aware_;
  std::string name_ = "even";
};

TEST(GavelSimTest, StartUpAwareRoundsSwitchJobsLessOften) {
  const GavelThroughputs t = GavelThroughputs::FromTable({"v100"}, {{"J", 1}}, {{2.0}});
  std::vector<GavelSimJob> jobs(2);
  for (int i = 0; i < 2; ++i) {
    jobs[i].id = i;
    jobs[i].total_steps = 7200;  // an hour each on the one GPU
  }
  GavelSimOptions o;
  o.workers = {1};
  o.price_usd_per_hour = {2.0};
  o.measure_begin = 0;
  o.measure_end = 2;
  o.startup_s = 120;
  GavelSimResult result[2];
  for (bool aware : {false, true}) {
    EvenSharePolicy policy(aware);
    auto r = SimulateGavel(t, jobs, policy, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->completed_measured, 2);
    // The bill is the two hours of work plus every start-up paid.
    EXPECT_NEAR(2 * r->avg_cost_usd, 2.0 * (7200 + 120.0 * r->startups) / 3600, 1e-9) << aware;
    result[aware] = *r;
  }
  // Equal shares alternate the jobs every round (a start-up each); counted,
  // a start-up (a third of a round) keeps the running job on until the
  // waiting one's priority is more than 1.5x its own.
  EXPECT_GT(result[0].startups, 15);
  EXPECT_LT(result[1].startups, result[0].startups / 2);
  EXPECT_LT(result[1].avg_jct_hours, result[0].avg_jct_hours);
}

TEST(GavelDataTest, WithoutRunsTakesAFamilyOffAGpuTypeAloneAndInPairs) {
  GavelThroughputs t = GavelThroughputs::FromTable(
      {"k80", "v100"}, {{"A (batch size 1)", 1}, {"B (batch size 1)", 1}, {"B (batch size 2)", 1}},
      {{1.0, 2.0}, {1.5, 3.0}, {0.0, 4.0}});
  t.SetColocated(0, 0, 1, 0.6, 0.9);
  t.SetColocated(1, 0, 1, 1.2, 1.8);
  auto out = WithoutRuns(t, "B:k80");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Isolated(1, 0), 0.0);
  EXPECT_EQ(out->Isolated(2, 0), 0.0);
  EXPECT_EQ(out->Isolated(1, 1), 3.0);                       // v100 untouched
  EXPECT_EQ(out->Isolated(0, 0), 1.0);                       // family A untouched
  EXPECT_EQ(out->Colocated(0, 0, 1).self_steps_per_s, 0.0);  // the pair with B on the k80
  EXPECT_EQ(out->Colocated(1, 0, 1).self_steps_per_s, 1.2);
  EXPECT_FALSE(out->Colocated(0, 1, 2).measured);  // never measured: stays so

  auto bad = [&](const char* spec, const char* names) {
    auto r = WithoutRuns(t, spec);
    ASSERT_FALSE(r.ok()) << spec;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(names), std::string::npos) << r.status().ToString();
  };
  bad("B", "FAMILY");
  bad("C:k80", "\"C\"");
  bad("A:h100", "\"h100\"");
  bad("B:v100", "B (batch size 2)");  // it runs on nothing else
}

TEST(GavelReportTest, FinishTimeFairnessAgainstAnIsolatedRunAsGavelsNotebookComputesIt) {
  // Where Gavel's figure is compared, each measured job's JCT is divided by
  // its JCT in a run of the `isolated` policy on the same jobs: 1 exactly
  // for `isolated` itself; below 1 for fifo_perf at light load, which keeps
  // each job on the v100 where the isolated share (an agnostic policy: the
  // round visits the types in a shuffled order) runs it about half its time
  // on the k80, 2x slower.
  const GavelThroughputs t = TwoTypeTable();
  GavelCurveOptions o;
  o.gavel_draws = false;
  o.rates_per_hour = {0.1};
  o.sim.workers = {4, 4};
  o.sim.price_usd_per_hour = {1, 2};
  o.sim.measure_begin = 10;
  o.sim.measure_end = 50;
  GavelNotebookJct ftf;
  for (const char* policy : {"isolated", "fifo_perf"}) {
    ftf[{"continuous-single", policy, 0.1}] = 1.0;
    o.policy = policy;
    auto points = RunGavelCurve(t, o, nullptr, &ftf);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 1u);
    const GavelCurvePoint& p = (*points)[0];
    ASSERT_TRUE(p.has_isolated_run_ftf) << policy;
    EXPECT_EQ(p.isolated_run_jobs, 40) << policy;
    if (std::string(policy) == "isolated") {
      EXPECT_DOUBLE_EQ(p.isolated_run_ftf_rho, 1.0);
    } else {
      EXPECT_LT(p.isolated_run_ftf_rho, 0.9);
      EXPECT_GT(p.isolated_run_ftf_rho, 0.5);
    }
    // Not compared, not computed (it costs a second run).
    auto plain = RunGavelCurve(t, o, nullptr, nullptr);
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE((*plain)[0].has_isolated_run_ftf);
  }
}

TEST(GavelReportTest, MultiGpuExecutionFactorSlowsMultiGpuJobsOnly) {
  // The same jobs (steps from the table) run with multi-GPU throughputs
  // halved: single-GPU traces are untouched, multi-GPU ones take longer, and
  // a factor outside (0, 1] is refused.
  const GavelThroughputs t = TwoTypeTable();
  GavelCurveOptions o;
  o.gavel_draws = false;
  o.policy = "fifo_perf";
  o.rates_per_hour = {0.1};
  o.sim.workers = {8, 8};
  o.sim.price_usd_per_hour = {1, 2};
  o.sim.measure_begin = 10;
  o.sim.measure_end = 60;
  for (const char* trace : {"continuous-single", "continuous-multiple"}) {
    o.trace = trace;
    o.multi_gpu_execution_factor = 1;
    auto plain = RunGavelCurve(t, o, nullptr);
    o.multi_gpu_execution_factor = 0.5;
    auto slowed = RunGavelCurve(t, o, nullptr);
    ASSERT_TRUE(plain.ok() && slowed.ok()) << plain.status().ToString();
    if (std::string(trace) == "continuous-single") {
      EXPECT_DOUBLE_EQ((*slowed)[0].result.avg_jct_hours, (*plain)[0].result.avg_jct_hours);
    } else {
      EXPECT_GT((*slowed)[0].result.avg_jct_hours, 1.1 * (*plain)[0].result.avg_jct_hours);
    }
  }
  o.multi_gpu_execution_factor = 0;
  EXPECT_FALSE(RunGavelCurve(t, o, nullptr).ok());
}

TEST(GavelReportTest, ParsesNotebookCsvAndNamesBadLines) {
  auto e = ParseGavelNotebookCsv(
      "trace,metric,input_job_rate_per_hour_or_jobs,policy,value\n"
      "continuous-single (Fig.8),avg_JCT_hours,0.40,fifo,17.58\n"
      "continuous-single (Fig.8),avg_FTF_rho_vs_isolated,0.40,fifo,1.0\n",
      "n.csv");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->size(), 1u);
  EXPECT_DOUBLE_EQ(e->begin()->second, 17.58);
  GavelNotebookJct ftf;
  e = ParseGavelNotebookCsv(
      "continuous-single (Fig.8),avg_FTF_rho_vs_isolated,0.40,max_min_fairness_perf,0.84\n",
      "n.csv", &ftf);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE(e->empty());
  ASSERT_EQ(ftf.size(), 1u);
  EXPECT_DOUBLE_EQ((ftf[{"continuous-single", "max_min_fairness_perf", 0.4}]), 0.84);
  auto bad = ParseGavelNotebookCsv("a,avg_JCT_hours,x,fifo,1\n", "n.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("n.csv:1"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::place
