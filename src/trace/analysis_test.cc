#include "trace/analysis.h"

#include <gtest/gtest.h>

#include "trace/analysis_testing.h"

namespace gpufleet::trace {
namespace {

using testing::HandTrace;

TEST(AnalysisTest, TemporalBreakdownUsesIntervalUnions) {
  HandTrace h;
  h.Op(h.Stream(0, 7), "gemm", EventKind::kKernel, 0, 100);
  h.Op(h.Stream(0, 8), "ncclAllReduce", EventKind::kCommKernel, 50, 150);  // 50 ns under gemm
  h.Op(h.Stream(0, 9), "Memcpy HtoD", EventKind::kMemcpy, 250, 50);
  h.Op(h.Stream(0, 7), "gemm", EventKind::kKernel, 400, 100);
  h.Op(h.Stream(0, 9), "Memcpy HtoD", EventKind::kMemcpy, 420, 20);  // hidden under gemm
  AnalysisReport r = Analyze(h.Finish(), {});
  ASSERT_EQ(r.temporal.size(), 1u);
  const TemporalBreakdown& b = r.temporal[0];
  EXPECT_EQ(b.rank, 0);
  EXPECT_EQ(b.span_ns, 500);
  EXPECT_EQ(b.compute_ns, 200);
  EXPECT_EQ(b.communication_ns, 100);
  EXPECT_EQ(b.memory_ns, 50);
  EXPECT_EQ(b.idle_ns, 150);
  EXPECT_EQ(b.compute_ns + b.communication_ns + b.memory_ns + b.idle_ns, b.span_ns);

  ASSERT_EQ(r.overlap.size(), 1u);
  EXPECT_EQ(r.overlap[0].communication_ns, 150);
  EXPECT_EQ(r.overlap[0].overlapped_ns, 50);
  EXPECT_NEAR(r.overlap[0].ratio, 1.0 / 3, 1e-12);
  EXPECT_FALSE(r.partial);
}

TEST(AnalysisTest, IdleTimeSplitsHostWaitKernelWaitOther) {
  HandTrace h;
  h.Launch(0, 7, "k1", EventKind::kKernel, 0, 10, 20, 100);    // [20,120)
  h.Launch(0, 7, "k2", EventKind::kKernel, 30, 10, 125, 100);  // gap 5, queued -> kernel wait
  h.Launch(0, 7, "k3", EventKind::kKernel, 50, 10, 300, 100);  // gap 75, queued -> other
  h.Launch(0, 7, "k4", EventKind::kKernel, 450, 10, 470, 30);  // launched after k3 end -> host
  h.Op(h.Stream(0, 7), "k5", EventKind::kKernel, 510, 10);     // unlinked, gap 10 -> kernel wait
  h.Op(h.Stream(0, 8), "other_stream", EventKind::kKernel, 0, 5);
  AnalysisReport r = Analyze(h.Finish(), {});
  ASSERT_EQ(r.idle.size(), 2u);
  const IdleBreakdown& s = r.idle[0].queue == 7 ? r.idle[0] : r.idle[1];
  EXPECT_EQ(s.queue, 7);
  EXPECT_EQ(s.host_wait_ns, 70);
  EXPECT_EQ(s.kernel_wait_ns, 15);
  EXPECT_EQ(s.other_ns, 75);
  EXPECT_EQ(s.gaps, 4u);
  EXPECT_EQ(s.unlinked, 1u);
}

TEST(AnalysisTest, KernelWaitThresholdIsConfigurable) {
  HandTrace h;
  h.Launch(0, 7, "k1", EventKind::kKernel, 0, 10, 20, 100);
  h.Launch(0, 7, "k2", EventKind::kKernel, 30, 10, 125, 100);  // gap 5
  AnalysisOptions o;
  o.kernel_wait_threshold_ns = 5;  // strictly below the threshold counts (HTA)
  AnalysisReport r = Analyze(h.Finish(), o);
  ASSERT_EQ(r.idle.size(), 1u);
  EXPECT_EQ(r.idle[0].kernel_wait_ns, 0);
  EXPECT_EQ(r.idle[0].other_ns, 5);
}

TEST(AnalysisTest, LaunchDelayIsClippedAndOutliersCounted) {
  HandTrace h;
  h.Launch(0, 7, "k1", EventKind::kKernel, 0, 10, 20, 100);         // 10
  h.Launch(0, 7, "k2", EventKind::kKernel, 30, 10, 125, 100);       // 85
  h.Launch(0, 7, "k3", EventKind::kKernel, 50, 10, 300, 100);       // 240
  h.Launch(0, 7, "k4", EventKind::kKernel, 600, 100, 650, 10);      // starts before return -> 0
  h.Launch(0, 7, "k5", EventKind::kKernel, 1000, 10, 201'010, 10);  // 200 us -> outlier
  h.Op(h.Stream(0, 7), "unlinked", EventKind::kKernel, 300'000, 10);
  AnalysisReport r = Analyze(h.Finish(), {});
  EXPECT_EQ(r.launch.delay_ns.count, 5u);
  EXPECT_DOUBLE_EQ(r.launch.delay_ns.min, 0);
  EXPECT_DOUBLE_EQ(r.launch.delay_ns.p50, 85);
  EXPECT_DOUBLE_EQ(r.launch.delay_ns.max, 200'000);
  EXPECT_EQ(r.launch.outliers, 1u);
  EXPECT_EQ(r.launch.unmatched_device_ops, 1u);
  EXPECT_FALSE(r.launch.histogram.empty());
}

TEST(AnalysisTest, LaunchDelayCorrelatesWithConcurrentCopies) {
  HandTrace h;
  // A long copy on queue 9 in [1000, 5000); kernels waiting during it start late.
  h.Launch(0, 9, "Memcpy HtoD", EventKind::kMemcpy, 990, 5, 1000, 4000, 1 << 20);
  for (int i = 0; i < 4; ++i) {  // waiting while the copy runs: delay 1000
    int64_t rt = 1100 + i * 10;
    h.Launch(0, 7, "k_during", EventKind::kKernel, rt, 10, rt + 10 + 1000, 5);
  }
  for (int i = 0; i < 4; ++i) {  // no copy in flight: delay 10
    int64_t rt = 10'000 + i * 100;
    h.Launch(0, 7, "k_quiet", EventKind::kKernel, rt, 10, rt + 20, 5);
  }
  AnalysisReport r = Analyze(h.Finish(), {});
  EXPECT_EQ(r.launch.with_concurrent_copy, 4u);  // the copy itself does not count
  EXPECT_DOUBLE_EQ(r.launch.mean_delay_with_copy_ns, 1000);
  // The copy's own delay (5) and the four quiet kernels (10): mean 9.
  EXPECT_DOUBLE_EQ(r.launch.mean_delay_without_copy_ns, 9);
  EXPECT_GT(r.launch.copy_correlation, 0.9);
}

TEST(AnalysisTest, KernelStatsRankByTotalAndFlagShapes) {
  HandTrace h;
  uint32_t s = h.Stream(0, 7);
  int64_t t = 0;
  for (int i = 0; i < 30; ++i) {  // bimodal: 15 x 100 ns, 15 x 1000 ns
    int64_t d = i % 2 ? 1000 : 100;
    h.Op(s, "gemm", EventKind::kKernel, t, d);
    t += d + 10;
  }
  for (int i = 0; i < 100; ++i) {  // heavy tail: 98 x 100 ns, 2 x 10 us
    int64_t d = i < 98 ? 100 : 10'000;
    h.Op(s, "relu", EventKind::kKernel, t, d);
    t += d + 10;
  }
  for (int i = 0; i < 25; ++i) {
    h.Op(s, "tiny", EventKind::kKernel, t, 10);
    t += 20;
  }
  AnalysisOptions o;
  o.top_kernels = 2;
  AnalysisReport r = Analyze(h.Finish(), o);
  EXPECT_EQ(r.distinct_kernels, 3u);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "relu");  // 29800 ns total
  EXPECT_EQ(r.kernels[1].name, "gemm");  // 16500 ns total
  EXPECT_EQ(r.kernels[0].duration_ns.count, 100u);
  EXPECT_DOUBLE_EQ(r.kernels[0].duration_ns.sum, 29'800);
  EXPECT_TRUE(r.kernels[0].duration_ns.heavy_tail);
  EXPECT_TRUE(r.kernels[1].duration_ns.bimodal);
  EXPECT_FALSE(r.kernels[1].duration_ns.heavy_tail);
  EXPECT_NEAR(r.kernels[1].duration_ns.cv, 450 * 1.01709 / 550, 1e-3);
  uint64_t in_hist = 0;
  for (const auto& b : r.kernel_duration_histogram) in_hist += b.count;
  EXPECT_EQ(in_hist, 155u);
}

// Four ranks, two ProfilerSteps; rank 3 starts its all-reduce late in both,
// rank 2 slightly late; the collective ends together at 900 ns into the step.
void AddStragglerRanks(HandTrace& h, bool with_steps) {
  for (int rank = 0; rank < 4; ++rank) {
    for (int step = 0; step < 2; ++step) {
      int64_t base = step * 1000;
      if (with_steps) {
        h.Op(h.Thread(rank), "ProfilerStep#" + std::to_string(step + 1), EventKind::kAnnotation,
             base, 1000);
      }
      h.Op(h.Stream(rank, 7), "gemm", EventKind::kKernel, base, 600);
      int64_t start = rank == 3 ? 850 : rank == 2 ? 720 : 700;
      h.Op(h.Stream(rank, 20), "ncclDevKernel_AllReduce", EventKind::kCommKernel, base + start,
           900 - start);
    }
  }
}

TEST(AnalysisTest, StragglersFromProfilerSteps) {
  HandTrace h;
  AddStragglerRanks(h, true);
  AnalysisOptions o;
  o.straggler_candidates = 1;
  AnalysisReport r = Analyze(h.Finish(), o);
  const StragglerReport& s = r.stragglers;
  ASSERT_TRUE(s.computed);
  EXPECT_EQ(s.method, "profiler_steps");
  EXPECT_EQ(s.iterations, 2);
  EXPECT_DOUBLE_EQ(s.mean_iteration_ns, 1000);
  EXPECT_EQ(s.kernel, "ncclDevKernel_AllReduce");
  EXPECT_EQ(s.queue, 20);
  ASSERT_EQ(s.ranks.size(), 4u);
  EXPECT_EQ(s.ranks[3].rank, 3);
  EXPECT_EQ(s.ranks[3].times_straggler, 2);
  EXPECT_EQ(s.ranks[2].times_straggler, 0);
  EXPECT_EQ(s.ranks[0].times_straggler, 0);
  // Normalized starts (ts - t_min) / 1000, averaged over steps 0.85 and 1.85.
  EXPECT_NEAR(s.ranks[3].mean_normalized_start, 1.35, 1e-9);
}

TEST(AnalysisTest, StragglersFallBackToCollectiveOrder) {
  HandTrace h;
  AddStragglerRanks(h, false);
  AnalysisReport r = Analyze(h.Finish(), {});  // two candidates per iteration
  const StragglerReport& s = r.stragglers;
  ASSERT_TRUE(s.computed);
  EXPECT_EQ(s.method, "collective_order");
  EXPECT_EQ(s.iterations, 2);
  ASSERT_EQ(s.ranks.size(), 4u);
  EXPECT_EQ(s.ranks[3].times_straggler, 2);
  EXPECT_EQ(s.ranks[2].times_straggler, 2);
  EXPECT_EQ(s.ranks[1].times_straggler, 0);
}

TEST(AnalysisTest, SingleRankHasNoStragglersAndSaysWhy) {
  HandTrace h;
  h.Op(h.Stream(0, 20), "ncclDevKernel_AllReduce", EventKind::kCommKernel, 0, 10);
  AnalysisReport r = Analyze(h.Finish(), {});
  EXPECT_FALSE(r.stragglers.computed);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("two ranks"), std::string::npos);
}

TEST(AnalysisTest, PartialInputIsReported) {
  HandTrace h;
  h.Launch(0, 7, "k1", EventKind::kKernel, 0, 10, 20, 100);
  h.timeline().files[0].partial = true;
  AnalysisReport r = Analyze(h.Finish(), {});
  EXPECT_TRUE(r.partial);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("partially"), std::string::npos);
}

TEST(AnalysisTest, NegativeDurationDoesNotShrinkBusyTime) {
  HandTrace h;
  h.Op(h.Stream(0, 7), "gemm", EventKind::kKernel, 0, 100);
  h.Op(h.Stream(0, 7), "broken", EventKind::kKernel, 50, -40);  // damaged record
  AnalysisReport r = Analyze(h.Finish(), {});
  ASSERT_EQ(r.temporal.size(), 1u);
  EXPECT_EQ(r.temporal[0].compute_ns, 100);
  EXPECT_EQ(r.temporal[0].idle_ns, 0);
}

TEST(AnalysisTest, OverlappingOpsOnOneQueueAreNotedNotDoubleCounted) {
  HandTrace h;
  h.Op(h.Stream(0, 7), "gemm", EventKind::kKernel, 0, 100);
  h.Op(h.Stream(0, 7), "gemm", EventKind::kKernel, 70, 100);  // 30 ns early
  AnalysisReport r = Analyze(h.Finish(), {});
  EXPECT_FALSE(r.partial);
  ASSERT_EQ(r.temporal.size(), 1u);
  EXPECT_EQ(r.temporal[0].compute_ns, 170);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("1 device ops start before the previous op"), std::string::npos);
  EXPECT_NE(r.notes[0].find("up to 30 ns"), std::string::npos);
  EXPECT_EQ(h.timeline().files[0].out_of_order, 0u);
}

TEST(AnalysisTest, EmptyTimelineIsPartialNotACrash) {
  Timeline t;
  AnalysisReport r = Analyze(t, {});
  EXPECT_TRUE(r.partial);
  EXPECT_TRUE(r.temporal.empty());
  EXPECT_EQ(r.launch.delay_ns.count, 0u);
}

}  // namespace
}  // namespace gpufleet::trace
