// Space sharing (`max_min_fairness_packed`) and finish-time fairness
// (`finish_time_fairness[_perf|_packed]`) on small hand-worked cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "place/gavel_data.h"
#include "place/gavel_lp.h"
#include "place/gavel_policy.h"
#include "place/gavel_sim.h"

namespace gpufleet::place {
namespace {

GavelActiveJob Job(int64_t id, std::vector<double> steps_per_s, double steps_remaining = 1000) {
  GavelActiveJob j;
  j.id = id;
  j.steps_per_s = std::move(steps_per_s);
  j.steps_remaining = steps_remaining;
  return j;
}

GavelPairThroughput Pair(size_t a, size_t b, std::vector<double> ta, std::vector<double> tb) {
  GavelPairThroughput p;
  p.a = a, p.b = b;
  p.a_steps_per_s = std::move(ta), p.b_steps_per_s = std::move(tb);
  return p;
}

StatusOr<GavelAllocation> AllocateWith(const std::string& policy, const GavelAllocationInput& in) {
  auto p = MakeGavelPolicy(policy, 0);
  if (!p.ok()) return p.status();
  return (*p)->Allocate(in);
}

// Each job's time over its rows (alone and in pairs) <= 1, each type's GPUs
// <= its count, every share in [0, 1].
void ExpectFeasible(const GavelAllocationInput& in, const GavelAllocation& x, bool packed) {
  const size_t m = in.jobs.size(), nt = in.workers.size();
  ASSERT_EQ(x.size(), m + (packed ? in.pairs.size() : 0));
  std::vector<double> job_time(m, 0.0), gpus(nt, 0.0);
  for (size_t k = 0; k < x.size(); ++k) {
    ASSERT_EQ(x[k].size(), nt);
    for (size_t t = 0; t < nt; ++t) {
      EXPECT_GE(x[k][t], 0.0);
      EXPECT_LE(x[k][t], 1.0);
      if (k < m) {
        job_time[k] += x[k][t];
        gpus[t] += in.jobs[k].scale_factor * x[k][t];
      } else {
        const GavelPairThroughput& p = in.pairs[k - m];
        job_time[p.a] += x[k][t];
        job_time[p.b] += x[k][t];
        gpus[t] += in.jobs[p.a].scale_factor * x[k][t];
      }
    }
  }
  for (size_t i = 0; i < m; ++i) EXPECT_LE(job_time[i], 1 + 1e-6) << "job " << i;
  for (size_t t = 0; t < nt; ++t) EXPECT_LE(gpus[t], in.workers[t] + 1e-6) << "type " << t;
}

TEST(GavelPackedTest, PacksTwoJobsWhosePairBeatsTimeSlicing) {
  // One GPU; together each keeps 80% of its speed (1.6 > 1): sharing gives
  // each 0.8 steps/s, time-slicing 0.5.
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.pairs = {Pair(0, 1, {0.8}, {0.8})};
  auto x = AllocateWith("max_min_fairness_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_NEAR((*x)[2][0], 1.0, 1e-3);
  EXPECT_NEAR((*x)[0][0] + (*x)[1][0], 0.0, 1e-3);
  // The unpacked form cannot do better than half the GPU each.
  auto perf = AllocateWith("max_min_fairness_perf", in);
  ASSERT_TRUE(perf.ok());
  ASSERT_EQ(perf->size(), 2u);
  EXPECT_NEAR((*perf)[0][0], 0.5, 1e-3);
}

TEST(GavelPackedTest, NeverPacksAPairWorseThanTimeSlicing) {
  // Together they keep 40% and 50% (0.9 < 1): time-slicing is better, and
  // the optimum is unique (any share of the pair lowers the minimum), so
  // both the LP with every pair and the pruned one leave it at 0.
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {2.0})};
  in.pairs = {Pair(0, 1, {0.4}, {1.0})};
  for (const std::string policy : {"max_min_fairness_packed", "max_min_fairness_packed:pruned"}) {
    auto x = AllocateWith(policy, in);
    ASSERT_TRUE(x.ok()) << x.status().ToString();
    ExpectFeasible(in, *x, true);
    EXPECT_NEAR((*x)[2][0], 0.0, 1e-5) << policy;
    EXPECT_NEAR((*x)[0][0], 0.5, 1e-3) << policy;
    EXPECT_NEAR((*x)[1][0], 0.5, 1e-3) << policy;
  }
  // The LP on its own, simplex vertex.
  GavelPairCoeff c;
  c.a = 0, c.b = 1, c.a_coeff = {0.4}, c.b_coeff = {0.5};
  double value = 0;
  auto lp = SolveMaxMinPackedLp({{1.0}, {1.0}}, {c}, {1, 1}, {1}, /*interior=*/false, &value);
  ASSERT_TRUE(lp.ok()) << lp.status().ToString();
  EXPECT_NEAR((*lp)[2][0], 0.0, 1e-6);
  EXPECT_NEAR(value, 0.5, 1e-6);
}

TEST(GavelPackedTest, DominatedPairsGetTimeOnlyInsideADegenerateOptimumAndNotWhenPruned) {
  // B and C run at 1 step/s anywhere and pin the minimum at their isolated
  // share; A and D are 10x faster on type 0 and have slack. Their pair keeps
  // 45% each (0.9 < 1, dominated by time-slicing) but still leaves them above
  // the minimum when mixed with time alone, so the optimal face contains it:
  // Gavel's LP (every pair kept, interior point) gives it some time, the
  // pruned form none, at the same optimum.
  GavelAllocationInput in;
  in.workers = {2, 2};
  in.jobs = {Job(0, {10.0, 1.0}), Job(1, {1.0, 1.0}), Job(2, {1.0, 1.0}), Job(3, {10.0, 1.0})};
  in.pairs = {Pair(0, 3, {4.5, 0.45}, {4.5, 0.45})};
  auto x = AllocateWith("max_min_fairness_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_GT((*x)[4][0], 1e-3);
  auto pruned = AllocateWith("max_min_fairness_packed:pruned", in);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  ExpectFeasible(in, *pruned, true);
  EXPECT_EQ((*pruned)[4][0], 0.0);
  EXPECT_EQ((*pruned)[4][1], 0.0);
  // B and C keep all their time either way.
  for (const GavelAllocation* a : {&*x, &*pruned}) {
    EXPECT_NEAR((*a)[1][0] + (*a)[1][1], 1.0, 1e-3);
    EXPECT_NEAR((*a)[2][0] + (*a)[2][1], 1.0, 1e-3);
  }
}

TEST(GavelPackedTest, PacksAnUnevenPairOnlyPartly) {
  // 0.95 + 0.1 > 1 but lopsided: the max-min optimum shares the GPU for
  // 1/1.85 of the time and gives the rest to job 1 alone (both get 0.95/1.85).
  GavelPairCoeff c;
  c.a = 0, c.b = 1, c.a_coeff = {0.95}, c.b_coeff = {0.1};
  double value = 0;
  auto x = SolveMaxMinPackedLp({{1.0}, {1.0}}, {c}, {1, 1}, {1}, /*interior=*/false, &value);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR(value, 0.95 / 1.85, 1e-6);
  EXPECT_NEAR((*x)[2][0], 1 / 1.85, 1e-6);
  EXPECT_NEAR((*x)[0][0], 0.0, 1e-6);
  EXPECT_NEAR((*x)[1][0], 1 - 1 / 1.85, 1e-6);
  c.b = 0;
  EXPECT_FALSE(SolveMaxMinPackedLp({{1.0}, {1.0}}, {c}, {1, 1}, {1}, false).ok());
}

GavelAllocationInput RandomCluster(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.2, 5.0), share(0.3, 0.9);
  GavelAllocationInput in;
  in.workers = {2, 3};
  for (int i = 0; i < 9; ++i) {
    GavelActiveJob j = Job(i, {u(rng), u(rng)}, 500 * u(rng));
    j.seconds_since_arrival = 100 * i;
    j.isolated_seconds = 30 * i;
    in.jobs.push_back(j);
  }
  for (size_t a = 0; a < in.jobs.size(); ++a) {
    for (size_t b = a + 1; b < in.jobs.size(); ++b) {
      in.pairs.push_back(Pair(
          a, b, {in.jobs[a].steps_per_s[0] * share(rng), in.jobs[a].steps_per_s[1] * share(rng)},
          {in.jobs[b].steps_per_s[0] * share(rng), in.jobs[b].steps_per_s[1] * share(rng)}));
    }
  }
  return in;
}

TEST(GavelPackedTest, AllocationsRespectJobTimeAndGpuCounts) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const GavelAllocationInput in = RandomCluster(seed);
    for (const std::string policy : {"max_min_fairness_packed", "finish_time_fairness_packed"}) {
      auto x = AllocateWith(policy, in);
      ASSERT_TRUE(x.ok()) << policy << ": " << x.status().ToString();
      ExpectFeasible(in, *x, true);
      double packed = 0;
      for (size_t k = in.jobs.size(); k < x->size(); ++k) packed += (*x)[k][0] + (*x)[k][1];
      EXPECT_GT(packed, 0.5) << policy << " seed " << seed;  // 9 jobs on 5 GPUs: worth sharing
    }
    for (const std::string policy : {"finish_time_fairness", "finish_time_fairness_perf"}) {
      auto x = AllocateWith(policy, in);
      ASSERT_TRUE(x.ok()) << policy << ": " << x.status().ToString();
      ExpectFeasible(in, *x, false);
    }
  }
}

TEST(GavelPackedTest, LpOverJobClassesHasThePerJobOptimum) {
  // 7 jobs of 3 types on 2 + 1 GPUs; pair throughputs depend on the types
  // only. The class LP (3 classes, 6 class pairs) must reach the per-job
  // LP's max-min value (7 jobs, 21 pairs), and its shares, given back per
  // job and per job pair, must be feasible and reach it too.
  const std::vector<std::vector<double>> type_tput = {{1.0, 3.0}, {2.0, 2.5}, {0.5, 4.0}};
  const double share[3][3] = {
      {0.6, 0.7, 0.55}, {0.5, 0.9, 0.45}, {0.65, 0.6, 0.52}};  // [self][other]
  const std::vector<int> types = {0, 0, 1, 2, 2, 2, 1};
  GavelAllocationInput in;
  in.workers = {2, 1};
  for (size_t i = 0; i < types.size(); ++i) {
    in.jobs.push_back(Job(static_cast<int64_t>(i), type_tput[types[i]]));
    in.jobs.back().job_type = types[i];
  }
  std::vector<std::vector<double>> coeff;
  std::vector<GavelPairCoeff> job_pairs;
  for (size_t i = 0; i < types.size(); ++i) coeff.push_back(type_tput[types[i]]);
  for (size_t a = 0; a < types.size(); ++a) {
    for (size_t b = a + 1; b < types.size(); ++b) {
      const int ta = types[a], tb = types[b];
      std::vector<double> sa, sb;
      for (int t = 0; t < 2; ++t) {
        sa.push_back(type_tput[ta][t] * share[ta][tb] * (t == 0 ? 1.0 : 0.9));
        sb.push_back(type_tput[tb][t] * share[tb][ta] * (t == 0 ? 1.0 : 0.9));
      }
      in.pairs.push_back(Pair(a, b, sa, sb));
      job_pairs.push_back({a, b, sa, sb});
    }
  }
  std::vector<GavelJobClass> classes(3);
  std::vector<GavelClassPair> class_pairs;
  for (int c = 0; c < 3; ++c) {
    classes[c].count = static_cast<int>(std::count(types.begin(), types.end(), c));
    classes[c].coeff = type_tput[c];
    for (int d = c; d < 3; ++d) {
      GavelClassPair p{static_cast<size_t>(c), static_cast<size_t>(d), {}, {}};
      for (int t = 0; t < 2; ++t) {
        p.c_coeff.push_back(type_tput[c][t] * share[c][d] * (t == 0 ? 1.0 : 0.9));
        p.d_coeff.push_back(type_tput[d][t] * share[d][c] * (t == 0 ? 1.0 : 0.9));
      }
      class_pairs.push_back(p);
    }
  }
  double per_job = 0, per_class = 0;
  ASSERT_TRUE(
      SolveMaxMinPackedLp(coeff, job_pairs, std::vector<int>(7, 1), in.workers, false, &per_job)
          .ok());
  ASSERT_TRUE(SolveMaxMinClassLp(classes, class_pairs, in.workers, false, &per_class).ok());
  EXPECT_GT(per_job, 0.3);
  EXPECT_NEAR(per_class, per_job, 1e-6);
  // Through the policy (which normalizes throughputs, so compare feasibility
  // and that jobs of one type get one share).
  auto x = AllocateWith("max_min_fairness_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_EQ((*x)[3], (*x)[4]);
  double packed = 0;
  for (size_t k = in.jobs.size(); k < x->size(); ++k) packed += (*x)[k][0] + (*x)[k][1];
  EXPECT_GT(packed, 0.1);
}

double Rho(const GavelActiveJob& j, double tput, const std::vector<int>& workers, size_t n) {
  const double iso = GavelIsolatedSteps(j, workers, n);
  return (j.seconds_since_arrival + j.steps_remaining / tput) /
         (j.isolated_seconds + j.steps_remaining / iso);
}

TEST(GavelFinishTimeFairnessTest, IsolatedShareIsOneNthOfTheCluster) {
  GavelActiveJob j = Job(0, {1.0, 3.0});
  EXPECT_DOUBLE_EQ(GavelIsolatedSteps(j, {1, 1}, 1),
                   2.0);  // a whole GPU, half the time on each type
  EXPECT_DOUBLE_EQ(GavelIsolatedSteps(j, {1, 1}, 4), 1.0);  // half a GPU
  j.scale_factor = 2;
  EXPECT_DOUBLE_EQ(GavelIsolatedSteps(j, {1, 1}, 1), 2.0);
  EXPECT_DOUBLE_EQ(GavelIsolatedSteps(j, {1, 1}, 2), 1.0);
}

TEST(GavelFinishTimeFairnessTest, IsolatedPolicyGivesEachJobItsEqualShareScaledToOneRow) {
  // Two GPUs of each of three types. A 1-GPU and a 2-GPU job: the cluster
  // split over 2 jobs is 1 GPU of each type for the first (row sum 3) and
  // half of that for the second; the largest row is scaled to 1.
  GavelAllocationInput in;
  in.workers = {2, 2, 2};
  in.jobs = {Job(0, {1, 2, 3}), Job(1, {1, 2, 3})};
  in.jobs[1].scale_factor = 2;
  auto x = AllocateWith("isolated", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  for (size_t t = 0; t < 3; ++t) {
    EXPECT_DOUBLE_EQ((*x)[0][t], 1.0 / 3);
    EXPECT_DOUBLE_EQ((*x)[1][t], 1.0 / 6);
  }
  // Twelve 1-GPU jobs on six GPUs: 1/6 of each type each (rows of 1/2), and
  // Gavel scales up as well: 1/3 each, rows of 1, more than the GPUs hold
  // (the round mechanism time-shares them by priority).
  in.jobs.clear();
  for (int i = 0; i < 12; ++i) in.jobs.push_back(Job(i, {1, 2, 3}));
  x = AllocateWith("isolated", in);
  ASSERT_TRUE(x.ok());
  for (const std::vector<double>& row : *x) {
    for (double v : row) EXPECT_DOUBLE_EQ(v, 1.0 / 3);
  }
}

TEST(GavelFinishTimeFairnessTest, JobThatWaitedLongerGetsMoreOfTheGpu) {
  // One GPU, two jobs of 1000 steps at 1 step/s, isolated share 0.5 step/s.
  // A just arrived: rho_A = (1000 / x_A) / 2000. B has waited 3000 s and
  // done steps worth 1000 s on its share: rho_B = (3000 + 1000 / x_B) / 3000.
  // Equal at x_B = 2/3 (3y^2 - y/2 - 1 = 0), rho = 1.5.
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.jobs[1].seconds_since_arrival = 3000;
  in.jobs[1].isolated_seconds = 1000;
  auto x = AllocateWith("finish_time_fairness_perf", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, false);
  EXPECT_NEAR((*x)[0][0], 1.0 / 3, 3e-3);
  EXPECT_NEAR((*x)[1][0], 2.0 / 3, 3e-3);
  EXPECT_NEAR(std::max(Rho(in.jobs[0], (*x)[0][0], in.workers, 2),
                       Rho(in.jobs[1], (*x)[1][0], in.workers, 2)),
              1.5, 5e-3);
  // Max-min fairness ignores the history: half each.
  auto mmf = AllocateWith("max_min_fairness_perf", in);
  ASSERT_TRUE(mmf.ok());
  EXPECT_NEAR((*mmf)[1][0], 0.5, 1e-3);
}

TEST(GavelFinishTimeFairnessTest, PerfFormUsesTheFasterTypeTheAgnosticOneDoesNot) {
  // Job 0 is 4x faster on type 1, job 1 on type 0: each on its fast type
  // gives both rho = 2.5 / 4; the agnostic form cannot tell the types apart.
  GavelAllocationInput in;
  in.workers = {1, 1};
  in.jobs = {Job(0, {1.0, 4.0}), Job(1, {4.0, 1.0})};
  auto perf = AllocateWith("finish_time_fairness_perf", in);
  ASSERT_TRUE(perf.ok()) << perf.status().ToString();
  ExpectFeasible(in, *perf, false);
  EXPECT_GT((*perf)[0][1], 0.99);
  EXPECT_GT((*perf)[1][0], 0.99);
  auto agnostic = AllocateWith("finish_time_fairness", in);
  ASSERT_TRUE(agnostic.ok()) << agnostic.status().ToString();
  ExpectFeasible(in, *agnostic, false);
  EXPECT_LT((*agnostic)[0][1], 0.75);
}

TEST(GavelFinishTimeFairnessTest, PackedFormSharesWhenSharingFinishesEveryoneSooner) {
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.pairs = {Pair(0, 1, {0.8}, {0.8})};
  auto x = AllocateWith("finish_time_fairness_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_NEAR((*x)[2][0], 1.0, 3e-3);  // rho 0.5 / 0.8 instead of 1
  in.pairs = {Pair(0, 1, {0.45}, {0.45})};
  x = AllocateWith("finish_time_fairness_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR((*x)[2][0], 0.0, 1e-6);
}

// Makespan with space sharing: two jobs whose pair runs each at 0.8 finish
// sooner together (1000 / 0.8 s) than time-sliced (2000 s); a pair that
// time-slicing dominates is not used. With more jobs than a job keeps
// partners (16) and every pair alike, the partners are spread so that the
// optimum over the kept pairs is within 5% of the one over all pairs: all
// 10 GPUs shared all the time, each job at 14 x its steps left / their sum.
TEST(GavelMinTotalDurationPackedTest, SharesWhenSharingEndsTheLastJobSooner) {
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.pairs = {Pair(0, 1, {0.8}, {0.8})};
  auto x = AllocateWith("min_total_duration_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_NEAR((*x)[2][0], 1.0, 3e-3);
  in.pairs = {Pair(0, 1, {0.45}, {0.45})};
  x = AllocateWith("min_total_duration_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR((*x)[2][0], 0.0, 1e-6);
  // Forty jobs, twenty GPUs, every pair worth sharing.
  in.workers = {20};
  in.jobs.clear();
  in.pairs.clear();
  double left_sum = 0;
  for (int i = 0; i < 40; ++i) {
    in.jobs.push_back(Job(i, {1.0}, 1000 + 10 * i));
    left_sum += 1000 + 10 * i;
  }
  for (size_t a = 0; a < 40; ++a) {
    for (size_t b = a + 1; b < 40; ++b) in.pairs.push_back(Pair(a, b, {0.7}, {0.7}));
  }
  x = AllocateWith("min_total_duration_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  for (size_t i = 0; i < 40; ++i) {
    double tput = (*x)[i][0];
    for (size_t p = 0; p < in.pairs.size(); ++p) {
      if (in.pairs[p].a == i || in.pairs[p].b == i) tput += 0.7 * (*x)[40 + p][0];
    }
    const double best = 20 * 1.4 * in.jobs[i].steps_remaining / left_sum;
    EXPECT_GT(tput, 0.95 * best) << "job " << i;  // time-slicing alone: 0.5
  }
}

TEST(GavelFifoPackedTest, WaitingJobJoinsARunningOneOnlyAboveTheThreshold) {
  // One GPU, job 0 runs; job 1 waits. Together they keep 80% each (1.6 >
  // 1.5): packed. At 70% each (1.4) it is not worth it: job 1 waits.
  GavelAllocationInput in;
  in.workers = {1};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.pairs = {Pair(0, 1, {0.8}, {0.8})};
  auto p = MakeGavelPolicy("fifo_packed", 0);
  ASSERT_TRUE(p.ok());
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_EQ((*x)[2][0], 1.0);
  EXPECT_EQ((*x)[0][0] + (*x)[1][0], 0.0);
  // The pair holds while both run; when job 0 ends, job 1 runs alone.
  x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[2][0], 1.0);
  GavelAllocationInput rest;
  rest.workers = {1};
  rest.jobs = {Job(1, {1.0})};
  x = (*p)->Allocate(rest);
  ASSERT_TRUE(x.ok());
  ASSERT_EQ(x->size(), 1u);
  EXPECT_EQ((*x)[0][0], 1.0);

  auto q = MakeGavelPolicy("fifo_packed", 0);
  in.pairs = {Pair(0, 1, {0.7}, {0.7})};
  x = (*q)->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0][0], 1.0);
  EXPECT_EQ((*x)[1][0], 0.0);
  EXPECT_EQ((*x)[2][0], 0.0);
}

TEST(GavelGandivaTest, PairsAtRandomOnlyWhenJobsOutnumberGpus) {
  // Two GPUs of two types (1 + 1). Two jobs: each alone, equal shares of
  // each type. Four jobs: all pairable ones are paired (two pairs, one GPU
  // each), pair quality not considered, equal shares per pair; the pairs
  // hold on the next allocation.
  GavelAllocationInput in;
  in.workers = {1, 1};
  in.jobs = {Job(0, {1.0, 2.0}), Job(1, {1.0, 2.0})};
  in.pairs = {Pair(0, 1, {0.1, 0.1}, {0.1, 0.1})};  // a bad pair
  auto p = MakeGavelPolicy("gandiva", 7);
  ASSERT_TRUE(p.ok());
  auto x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_EQ((*x)[0], (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ((*x)[2], (std::vector<double>{0.0, 0.0}));
  for (int64_t id : {2, 3}) in.jobs.push_back(Job(id, {1.0, 2.0}));
  in.pairs.clear();
  for (size_t a = 0; a < 4; ++a) {
    for (size_t b = a + 1; b < 4; ++b) in.pairs.push_back(Pair(a, b, {0.1, 0.1}, {0.1, 0.1}));
  }
  x = (*p)->Allocate(in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  std::vector<size_t> used;
  for (size_t k = 0; k < x->size(); ++k) {
    if ((*x)[k][0] > 0) used.push_back(k);
  }
  ExpectFeasible(in, *x, true);
  ASSERT_EQ(used.size(), 2u);  // two pair rows, no job alone
  EXPECT_GE(used[0], 4u);
  const GavelPairThroughput &p0 = in.pairs[used[0] - 4], &p1 = in.pairs[used[1] - 4];
  EXPECT_EQ(std::set<size_t>({p0.a, p0.b, p1.a, p1.b}).size(), 4u);  // every job in one pair
  auto again = (*p)->Allocate(in);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *x);
}

TEST(GavelCostPackedTest, SharesAGpuOnlyWhenThatKeepsTheKeptPace) {
  // Two jobs, two GPUs at $1/h; together on one GPU each keeps 0.6 of its pace.
  GavelAllocationInput in;
  in.workers = {2};
  in.price_usd_per_hour = {1.0};
  in.jobs = {Job(0, {1.0}), Job(1, {1.0})};
  in.pairs = {Pair(0, 1, {0.6}, {0.6})};
  // Keeping the whole fair pace (each alone on a GPU) leaves nothing to share.
  auto x = AllocateWith("gpufleet_cost_packed", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_NEAR((*x)[0][0], 1.0, 1e-4);
  EXPECT_NEAR((*x)[1][0], 1.0, 1e-4);
  EXPECT_NEAR((*x)[2][0], 0.0, 1e-4);
  // Keeping 0.6: sharing one GPU ($1/h) beats each alone 60% of the time ($1.2/h).
  x = AllocateWith("gpufleet_cost_packed:0.6", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  ExpectFeasible(in, *x, true);
  EXPECT_NEAR((*x)[2][0], 1.0, 1e-4);
  EXPECT_NEAR((*x)[0][0], 0.0, 1e-4);
  EXPECT_NEAR((*x)[1][0], 0.0, 1e-4);
  // The unpacked form cannot share: it runs each for 60% of the time.
  x = AllocateWith("gpufleet_cost:0.6", in);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_NEAR((*x)[0][0], 0.6, 1e-4);
  EXPECT_FALSE(AllocateWith("gpufleet_cost_packed:1.5", in).ok());
}

// Two 3600-step jobs, both measured.
std::vector<GavelSimJob> TwoJobs() {
  std::vector<GavelSimJob> jobs(2);
  for (int i = 0; i < 2; ++i) jobs[i].id = i, jobs[i].total_steps = 3600;
  return jobs;
}

GavelSimOptions OneGpuAtTwoDollars() {
  GavelSimOptions o;
  o.workers = {1};
  o.price_usd_per_hour = {2.0};
  o.measure_begin = 0;
  o.measure_end = 2;
  return o;
}

TEST(GavelPackedSimTest, PairedJobsRunTogetherAndSplitTheGpu) {
  // Two 3600-step jobs on one GPU at 1 step/s alone, 0.8 each together:
  // packed, both finish at 4500 s; each pays half the GPU. On its isolated
  // share (half the GPU) each would take 7200 s: rho = 0.625.
  GavelThroughputs t = GavelThroughputs::FromTable({"v100"}, {{"J", 1}}, {{1.0}});
  t.SetColocated(0, 0, 0, 0.8, 0.8);
  const std::vector<GavelSimJob> jobs = TwoJobs();
  GavelSimOptions o = OneGpuAtTwoDollars();
  auto p = MakeGavelPolicy("max_min_fairness_packed", 0);
  ASSERT_TRUE(p.ok());
  auto r = SimulateGavel(t, jobs, **p, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->completed_measured, 2);
  EXPECT_NEAR(r->avg_jct_hours, 1.25, 1e-6);
  EXPECT_NEAR(r->avg_cost_usd, 1.25 * 2.0 / 2, 1e-6);
  EXPECT_NEAR(r->avg_ftf_rho, 0.625, 1e-6);
  EXPECT_GT(r->pair_rounds, 0);
  // Without sharing they take turns: 2 h of GPU time for both, so the
  // average JCT is well above the packed one.
  auto perf = MakeGavelPolicy("max_min_fairness_perf", 0);
  auto r2 = SimulateGavel(t, jobs, **perf, o);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_GT(r2->avg_jct_hours, 1.5);
  EXPECT_EQ(r2->pair_rounds, 0);
}

TEST(GavelPackedSimTest, APairWronglyDecidedFeasibleCostsARoundAndIsLearnt) {
  // Measured: the pair is out of memory. The decision table believes 0.8
  // each. The pair is tried once (a round without progress, paid for), then
  // known infeasible; the jobs then take turns as with the measured table.
  GavelThroughputs measured = GavelThroughputs::FromTable({"v100"}, {{"J", 1}}, {{1.0}});
  measured.SetColocated(0, 0, 0, 0, 0);
  GavelThroughputs believed = measured;
  believed.SetColocated(0, 0, 0, 0.8, 0.8);
  const std::vector<GavelSimJob> jobs = TwoJobs();
  GavelSimOptions o = OneGpuAtTwoDollars();
  auto p = MakeGavelPolicy("max_min_fairness_packed", 0);
  ASSERT_TRUE(p.ok());
  auto truth = SimulateGavel(measured, jobs, **p, o);
  ASSERT_TRUE(truth.ok()) << truth.status().ToString();
  EXPECT_EQ(truth->pair_rounds, 0);
  o.decision_pairs = &believed;
  auto wrong = SimulateGavel(measured, jobs, **p, o);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_EQ(wrong->completed_measured, 2);
  EXPECT_EQ(wrong->pair_oom_rounds, 1);
  EXPECT_EQ(wrong->pair_rounds, 1);
  // The lost round delays both jobs and costs its GPU time (0.1 h at $2/h, shared).
  EXPECT_NEAR(wrong->avg_jct_hours - truth->avg_jct_hours, 0.1, 1e-6);
  EXPECT_NEAR(wrong->avg_cost_usd - truth->avg_cost_usd, 0.1, 1e-6);
  GavelThroughputs other_shape = GavelThroughputs::FromTable({"v100", "k80"}, {{"J", 1}}, {{1.0, 1.0}});
  o.decision_pairs = &other_shape;
  EXPECT_FALSE(SimulateGavel(measured, jobs, **p, o).ok());
}

}  // namespace
}  // namespace gpufleet::place
