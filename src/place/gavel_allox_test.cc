#include "place/gavel_allox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace gpufleet::place {
namespace {

// Brute force: every way to give each job a type (one GPU per type), each
// GPU running its jobs shortest first (optimal on one machine); the total
// completion time and, per type, the job it runs first (-1: none).
struct Best {
  double total = std::numeric_limits<double>::infinity();
  std::vector<int> first;
};

Best BruteForce(const std::vector<std::vector<double>>& p) {
  const size_t m = p.size(), nt = p[0].size();
  Best best;
  std::vector<size_t> type(m, 0);
  while (true) {
    double total = 0;
    std::vector<int> first(nt, -1);
    for (size_t t = 0; t < nt; ++t) {
      std::vector<std::pair<double, size_t>> on;
      for (size_t i = 0; i < m; ++i) {
        if (type[i] == t) on.push_back({p[i][t], i});
      }
      std::sort(on.begin(), on.end());
      double clock = 0;
      for (const auto& [d, i] : on) total += clock += d;
      if (!on.empty()) first[t] = static_cast<int>(on[0].second);
    }
    if (total < best.total) best = {total, first};
    size_t k = 0;
    while (k < m && ++type[k] == nt) type[k++] = 0;
    if (k == m) return best;
  }
}

GavelActiveJob Job(int64_t id, double steps, std::vector<double> per_s) {
  GavelActiveJob j;
  j.id = id;
  j.steps_remaining = steps;
  j.steps_per_s = std::move(per_s);
  return j;
}

// With every waiting job considered (alpha 1) and one GPU per type, the jobs
// AlloX starts are the first jobs of the schedule with the least total
// completion time, found by trying every assignment (random instances have
// a unique optimum).
TEST(AlloxPolicyTest, StartsTheFirstJobsOfTheLeastTotalCompletionSchedule) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> steps(100, 10000), rate(0.5, 5);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t m = 2 + trial % 5, nt = 2 + trial % 2;
    GavelAllocationInput in;
    in.workers.assign(nt, 1);
    std::vector<std::vector<double>> p(m, std::vector<double>(nt));
    for (size_t i = 0; i < m; ++i) {
      std::vector<double> r(nt);
      for (double& x : r) x = rate(rng);
      in.jobs.push_back(Job(static_cast<int64_t>(i), steps(rng), r));
      for (size_t t = 0; t < nt; ++t) p[i][t] = in.jobs[i].steps_remaining / r[t];
    }
    const Best best = BruteForce(p);
    auto policy = MakeAlloxPolicy(1.0);
    auto x = policy->Allocate(in);
    ASSERT_TRUE(x.ok()) << x.status().ToString();
    for (size_t t = 0; t < nt; ++t) {
      for (size_t i = 0; i < m; ++i) {
        const bool starts = best.first[t] == static_cast<int>(i);
        EXPECT_EQ((*x)[i][t], starts ? 1.0 : 0.0)
            << "trial " << trial << " job " << i << " type " << t;
      }
    }
  }
}

// Gavel's window: max(free GPUs, alpha x waiting) oldest jobs. A job that
// holds a GPU keeps it while it runs, even when a newcomer would suit that
// GPU better.
TEST(AlloxPolicyTest, ConsidersTheOldestAndNeverPreempts) {
  GavelAllocationInput in;
  in.workers = {1};
  // Job 1 is much shorter, but with one free GPU and alpha 0.3 only the
  // oldest waiting job is considered.
  in.jobs = {Job(0, 1000, {1}), Job(1, 10, {1})};
  auto policy = MakeAlloxPolicy(0.3);
  auto x = policy->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0][0], 1.0);
  EXPECT_EQ((*x)[1][0], 0.0);
  // A shorter job arrives: job 0 keeps the GPU.
  in.jobs.push_back(Job(2, 1, {1}));
  x = policy->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0][0], 1.0);
  EXPECT_EQ((*x)[1][0] + (*x)[2][0], 0.0);
  // Job 0 ends: of the two waiting, with alpha 1 the shorter goes first.
  auto all = MakeAlloxPolicy(1.0);
  in.jobs.erase(in.jobs.begin());
  x = all->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0][0], 0.0);
  EXPECT_EQ((*x)[1][0], 1.0);
}

// A job that runs on no type with a free GPU waits; multi-GPU jobs are
// refused (AlloX as Gavel runs it places single-GPU jobs only).
TEST(AlloxPolicyTest, UnplaceableJobsWaitAndMultiGpuJobsAreRefused) {
  GavelAllocationInput in;
  in.workers = {1, 0};
  in.jobs = {Job(0, 100, {0, 2}), Job(1, 100, {1, 1})};
  auto policy = MakeAlloxPolicy(1.0);
  auto x = policy->Allocate(in);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0][0] + (*x)[0][1], 0.0);
  EXPECT_EQ((*x)[1][0], 1.0);
  in.jobs[1].scale_factor = 2;
  auto bad = policy->Allocate(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("single-GPU"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::place
