#include "plan/ttft_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace gpufleet::plan {
namespace {

StatusOr<TtftBound> Fewest(const std::vector<double>& t, const std::vector<double>& w, double ttft,
                           int misses) {
  TtftBoundInput in{t, w, ttft};
  in.max_misses = misses;
  return FewestTtftInstances(in);
}

TEST(TtftBoundTest, ABurstNeedsItsWorkOverTheTtft) {
  // Three 1 s prompts at once, TTFT 1 s: three instances, or two if one may miss.
  auto b = Fewest({0, 0, 0}, {1, 1, 1}, 1, 0);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->instances, 3);
  EXPECT_EQ(Fewest({0, 0, 0}, {1, 1, 1}, 1, 1)->instances, 2);
  // Spread out, one instance keeps every TTFT.
  EXPECT_EQ(Fewest({0, 10, 20}, {1, 1, 1}, 1, 0)->instances, 1);
  // Four 1 s prompts over 1 s with a 2 s TTFT: 4 <= N (1 + 2), N = 2.
  EXPECT_EQ(Fewest({0, 0.5, 0.5, 1}, {1, 1, 1, 1}, 2, 0)->instances, 2);
}

TEST(TtftBoundTest, TheMissBudgetIsSharedByEveryBurst) {
  // Two bursts of four 1 s prompts, 100 s apart, TTFT 1 s, 2 misses in all.
  // Each burst alone could give up two (two instances); together they can
  // give up one each, so three instances.
  const std::vector<double> t = {0, 0, 0, 0, 100, 100, 100, 100};
  const std::vector<double> w(8, 1.0);
  EXPECT_EQ(Fewest(t, w, 1, 2)->instances, 3);
  EXPECT_EQ(Fewest(t, w, 1, 4)->instances, 2);
  TtftBoundInput in{t, w, 1};
  in.max_misses = 2;
  EXPECT_EQ(ForcedTtftMisses(in, 2), 3);  // stops counting past the budget
  EXPECT_EQ(ForcedTtftMisses(in, 3), 2);
  EXPECT_EQ(ForcedTtftMisses(in, 4), 0);
}

TEST(TtftBoundTest, TheLargestPromptsMissFirst) {
  // One 3 s and three 0.5 s prompts at once, TTFT 3 s, one miss: give up the
  // 3 s prompt and one instance keeps the rest (1.5 s <= 3 s).
  EXPECT_EQ(Fewest({0, 0, 0, 0}, {3, 0.5, 0.5, 0.5}, 3, 1)->instances, 1);
  EXPECT_EQ(Fewest({0, 0, 0, 0}, {3, 0.5, 0.5, 0.5}, 3, 0)->instances, 2);
}

TEST(TtftBoundTest, APromptLongerThanTheTtftAlwaysMisses) {
  auto b = Fewest({0, 5}, {3, 1}, 2, 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->hopeless, 1);
  EXPECT_EQ(b->instances, 1);
  EXPECT_EQ(Fewest({0, 5}, {3, 1}, 2, 0).status().code(), StatusCode::kFailedPrecondition);
}

// Misses when `n` instances serve prompts first come, first served, each
// on the instance free first (a real schedule: no prompt split).
int FcfsMisses(const std::vector<double>& t, const std::vector<double>& w, double ttft, int n) {
  std::vector<double> free_at(static_cast<size_t>(n), 0.0);
  int misses = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    auto it = std::min_element(free_at.begin(), free_at.end());
    const double done = std::max(*it, t[i]) + w[i];
    *it = done;
    misses += done - t[i] > ttft + 1e-12 ? 1 : 0;
  }
  return misses;
}

// Random bursty arrivals: a share of them at the same instant as the one
// before, the rest after exponential gaps; lognormal works, capped.
struct BurstyTraces {
  BurstyTraces(unsigned seed, double rate, double mu, double sigma, double burst_share)
      : rng(seed), gap(rate), work(mu, sigma), burst(burst_share) {}
  void Draw(int n, double start, double cap, std::vector<double>& t, std::vector<double>& w) {
    t.clear();
    w.clear();
    double now = start;
    for (int i = 0; i < n; ++i) {
      now += burst(rng) ? 0.0 : gap(rng);
      t.push_back(now);
      w.push_back(std::min(work(rng), cap));
    }
  }
  std::mt19937 rng;
  std::exponential_distribution<double> gap;
  std::lognormal_distribution<double> work;
  std::bernoulli_distribution burst;
};

TEST(TtftBoundTest, NoRealScheduleNeedsFewerInstances) {
  // Random bursty traces: the fewest instances first-come-first-served
  // needs to keep the budget is never below the bound, and the bound is
  // not vacuous (it is often above 1 and sometimes equal).
  BurstyTraces traces(11, 2.0, -1.0, 0.8, 0.2);
  int equal = 0, above_one = 0;
  std::vector<double> t, w;
  for (int trial = 0; trial < 200; ++trial) {
    traces.Draw(60, 0, 1.5, t, w);
    const int misses = trial % 3;  // 0, 1 or 2 may miss
    auto b = Fewest(t, w, 1.5, misses);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    int fcfs = 1;
    while (FcfsMisses(t, w, 1.5, fcfs) > misses) ++fcfs;
    EXPECT_LE(b->instances, fcfs) << "trial " << trial;
    equal += b->instances == fcfs ? 1 : 0;
    above_one += b->instances > 1 ? 1 : 0;
  }
  EXPECT_GT(above_one, 20);
  EXPECT_GT(equal, 20);
}

// The programme written plainly: every run of every start, its works
// sorted in full, no stop at the budget.
int PlainForcedMisses(const TtftBoundInput& in, int instances) {
  const size_t n = in.work_s.size();
  int hopeless = 0;
  std::vector<double> w(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    if (in.work_s[i] > in.ttft_s) {
      ++hopeless;
    } else {
      w[i] = in.work_s[i];
    }
  }
  std::vector<int> best(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    best[i + 1] = std::max(best[i + 1], best[i]);
    for (size_t j = i; j < std::min(n, i + static_cast<size_t>(in.max_run)); ++j) {
      double excess = -instances * (in.arrival_s[j] - in.arrival_s[i] + in.ttft_s);
      for (size_t x = i; x <= j; ++x) excess += w[x];
      if (excess <= 0) continue;  // the run fits: nobody need miss
      std::vector<double> run(w.begin() + static_cast<long>(i),
                              w.begin() + static_cast<long>(j + 1));
      std::sort(run.begin(), run.end(), std::greater<>());
      int k = 0;
      for (; excess > 0; ++k) excess -= run[static_cast<size_t>(k)];
      best[j + 1] = std::max(best[j + 1], best[i] + k);
    }
  }
  return hopeless + best[n];
}

TEST(TtftBoundTest, TheFastProgrammeCountsAsThePlainOne) {
  // ForcedTtftMisses skips the starts whose runs all fit and keeps only the
  // works its count can reach; on random bursty traces, over the instance
  // counts a search visits, it must count as the plain programme does up
  // to the budget, and say "over" exactly when the plain one is.
  BurstyTraces traces(5, 1.0, -1.2, 0.6, 0.3);
  int counted = 0, over = 0;
  std::vector<double> t, w;
  for (int trial = 0; trial < 30; ++trial) {
    // Arrivals far from zero, as in a real trace; works up to 3x the TTFT.
    traces.Draw(200, 1000.0 * trial, 6.0, t, w);
    TtftBoundInput in{t, w, 2.0};
    in.max_misses = trial % 7;
    in.max_run = 48;
    for (int instances = 1; instances <= 6; ++instances) {
      const int fast = ForcedTtftMisses(in, instances);
      const int plain = PlainForcedMisses(in, instances);
      ASSERT_EQ(fast <= in.max_misses, plain <= in.max_misses)
          << "trial " << trial << ", " << instances << " instances: " << fast << " vs " << plain;
      if (plain <= in.max_misses) {
        EXPECT_EQ(fast, plain) << "trial " << trial << ", " << instances << " instances";
        ++counted;
      } else {
        ++over;
      }
    }
  }
  EXPECT_GT(counted, 40);
  EXPECT_GT(over, 20);
}

TEST(TtftBoundTest, RejectsBadInput) {
  EXPECT_EQ(Fewest({0, 1}, {1}, 1, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Fewest({1, 0}, {1, 1}, 1, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Fewest({0}, {-1}, 1, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Fewest({0}, {1}, 0, 0).status().code(), StatusCode::kInvalidArgument);
  TtftBoundInput in;
  std::vector<double> t(50, 0.0), w(50, 1.0);
  in.arrival_s = t;
  in.work_s = w;
  in.ttft_s = 1;
  in.max_instances = 10;
  EXPECT_EQ(FewestTtftInstances(in).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace gpufleet::plan
