#include "trace/trace_diff.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "trace/analysis_testing.h"

namespace gpufleet::trace {
namespace {

using testing::HandTrace;

struct Injected {
  int64_t gemm_growth_ns = 0;  // kernel duration growth
  int64_t copy_growth_ns = 0;  // same bytes, slower copy
  int64_t relu_delay_ns = 10;  // launch overhead of relu (10 in the baseline)
  int64_t barrier_ns = 100;    // host waits on a peer while its device is idle
};

// One rank, one queue; the host enqueues three ops ahead, waits for the
// device, waits on a barrier, then launches a tail kernel. Every op starts
// 10 ns after it is ready unless said otherwise.
void BuildStep(HandTrace& h, const Injected& x) {
  int64_t gemm_end = 20 + 1000 + x.gemm_growth_ns;
  h.Launch(0, 7, "gemm", EventKind::kKernel, 0, 10, 20, 1000 + x.gemm_growth_ns);
  int64_t copy_start = gemm_end + 10;
  int64_t copy_end = copy_start + 1000 + x.copy_growth_ns;
  h.Launch(0, 7, "Memcpy HtoD", EventKind::kMemcpy, 20, 10, copy_start, 1000 + x.copy_growth_ns,
           1'000'000);
  int64_t relu_start = copy_end + x.relu_delay_ns;
  int64_t relu_end = relu_start + 500;
  h.Launch(0, 7, "relu", EventKind::kKernel, 40, 10, relu_start, 500);
  int64_t sync_end = relu_end + 5;
  h.Op(h.Thread(0), "cudaDeviceSynchronize", EventKind::kSync, 50, sync_end - 50);
  h.Op(h.Thread(0), "cudaEventSynchronize", EventKind::kSync, sync_end, x.barrier_ns);
  int64_t tail_rt = sync_end + x.barrier_ns;
  h.Launch(0, 7, "tail", EventKind::kKernel, tail_rt, 10, tail_rt + 20, 100);
}

const DiffComponent& Component(const TraceDiffReport& d, const std::string& name) {
  for (const DiffComponent& c : d.components) {
    if (c.name == name) return c;
  }
  static DiffComponent none;
  ADD_FAILURE() << "no component " << name;
  return none;
}

TEST(TraceDiffTest, RecoversInjectedDelaysPerCategory) {
  HandTrace base, cont;
  BuildStep(base, {});
  BuildStep(cont,
            {.gemm_growth_ns = 200, .copy_growth_ns = 500, .relu_delay_ns = 60, .barrier_ns = 400});
  TraceDiffReport d = DiffTraces(base.Finish(), cont.Finish(), {});
  EXPECT_EQ(d.base_wall_ns, 2765);
  EXPECT_EQ(d.delta_wall_ns, 1050);
  // On one serial queue the attribution is exact; the stated tolerance is 1%.
  EXPECT_NEAR(Component(d, "duration").attributed_ns, 200, 10.5);
  EXPECT_NEAR(Component(d, "copy").attributed_ns, 500, 10.5);
  EXPECT_NEAR(Component(d, "start_delay").attributed_ns, 50, 10.5);
  EXPECT_NEAR(Component(d, "sync_wait").attributed_ns, 300, 10.5);
  EXPECT_NEAR(Component(d, "unexplained").attributed_ns, 0, 10.5);
  double shares = 0;
  for (const DiffComponent& c : d.components) shares += c.share;
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(d.scale, 1);
  EXPECT_EQ(d.matched_ops, 4u);
  EXPECT_NEAR(d.base_copy_bytes_per_s, 1e12, 1);
  EXPECT_NEAR(d.contended_copy_bytes_per_s, 1e12 / 1.5, 1);
  ASSERT_FALSE(d.kernels.empty());
  EXPECT_EQ(d.kernels[0].name, "Memcpy HtoD");
  EXPECT_EQ(d.kernels[0].growth_ns, 500);
}

TEST(TraceDiffTest, UnmodelledSlowdownIsUnexplained) {
  HandTrace base, cont;
  BuildStep(base, {});
  BuildStep(cont, {});
  // The contended host starts 1 us late: nothing in the four categories.
  cont.Op(cont.Thread(0), "python", EventKind::kCpuOp, 3765, 1000);
  base.Op(base.Thread(0), "python", EventKind::kCpuOp, 2765, 0);
  TraceDiffReport d = DiffTraces(base.Finish(), cont.Finish(), {});
  EXPECT_EQ(d.delta_wall_ns, 2000);
  EXPECT_NEAR(Component(d, "unexplained").attributed_ns, 2000, 1e-9);
  EXPECT_NEAR(Component(d, "unexplained").share, 1.0, 1e-9);
}

TEST(TraceDiffTest, ConcurrentGrowthIsScaledToWallTime) {
  HandTrace base, cont;
  for (int q = 0; q < 2; ++q) {  // two queues running side by side
    base.Op(base.Stream(0, q), "gemm", EventKind::kKernel, 0, 1000);
    cont.Op(cont.Stream(0, q), "gemm", EventKind::kKernel, 0, 1400);
  }
  TraceDiffReport d = DiffTraces(base.Finish(), cont.Finish(), {});
  EXPECT_EQ(d.delta_wall_ns, 400);
  EXPECT_EQ(Component(d, "duration").raw_ns, 800);
  EXPECT_NEAR(d.scale, 0.5, 1e-12);
  EXPECT_NEAR(Component(d, "duration").attributed_ns, 400, 1e-9);
  EXPECT_NEAR(Component(d, "unexplained").attributed_ns, 0, 1e-9);
  EXPECT_FALSE(d.notes.empty());
}

TEST(TraceDiffTest, UnmatchedOpsAreCountedAndWritersAgree) {
  HandTrace base, cont;
  base.Op(base.Stream(0, 7), "gemm", EventKind::kKernel, 0, 100);
  cont.Op(cont.Stream(0, 7), "gemm", EventKind::kKernel, 0, 150);
  cont.Op(cont.Stream(0, 7), "extra|kernel", EventKind::kKernel, 200, 10);
  TraceDiffReport d = DiffTraces(base.Finish(), cont.Finish(), {});
  EXPECT_EQ(d.matched_ops, 1u);
  EXPECT_EQ(d.unmatched_contended_ops, 1u);
  std::string text = FormatDiffText(d);
  EXPECT_NE(text.find("kernel duration growth"), std::string::npos);
  EXPECT_NE(text.find("+50 ns"), std::string::npos);
  auto j = nlohmann::json::parse(DiffJson(d));
  EXPECT_EQ(j["delta_wall_ns"], 110);
  EXPECT_EQ(j["components"].size(), 5u);
  EXPECT_EQ(j["components"][1]["name"], "duration");
  EXPECT_EQ(j["components"][1]["raw_ns"], 50);
  EXPECT_EQ(j["unmatched_contended_ops"], 1);
  std::string md = DiffMarkdown(d);
  EXPECT_NE(md.find("| kernel duration growth | +50 ns |"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::trace
