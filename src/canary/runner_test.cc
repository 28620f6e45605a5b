#include "canary/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "canary/fake_gpu_test_util.h"
#include "canary/gate.h"
#include "canary/magnitude.h"
#include "canary/run_format.h"
#include "canary/stats.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {
namespace {

// Small sizes: the fakes do no work, and figures do not depend on size.
RunOptions SmallRun() {
  RunOptions o;
  o.repetitions = 5;
  o.iters = 4;
  o.warmup = 1;
  o.gemm_n = 1024;
  o.stream_bytes = size_t{64} << 20;
  o.transfer_bytes = size_t{16} << 20;
  o.alloc_bytes = {size_t{1} << 20};
  o.alloc_samples = 3;
  o.allreduce_bytes = {size_t{8} << 20};
  return o;
}

const BenchmarkResult* Find(const RunReport& r, const std::string& id) {
  for (const BenchmarkResult& b : r.results) {
    if (b.benchmark_id == id) return &b;
  }
  return nullptr;
}

const SkippedBenchmark* FindSkipped(const RunReport& r, const std::string& id) {
  for (const SkippedBenchmark& s : r.skipped) {
    if (s.benchmark == id) return &s;
  }
  return nullptr;
}

double MedianOf(const BenchmarkResult& r) {
  std::vector<double> v = r.values;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void ExpectFigure(const RunReport& r, const std::string& id, double expected, size_t reps) {
  const BenchmarkResult* b = Find(r, id);
  ASSERT_NE(b, nullptr) << id << " missing";
  EXPECT_EQ(b->values.size(), reps) << id;
  // Jitter 0.002 in the fake; the figure itself must be exact otherwise.
  EXPECT_NEAR(MedianOf(*b), expected, expected * 0.005) << id;
}

constexpr char kScript[] =
    "device_count = 4\n"
    "memory_gbps = 3000\n"
    "h2d_gbps = 40\n"
    "d2h_gbps = 30\n"
    "gemm_tflops.bf16 = 600\n"
    "gemm_tflops.fp16 = 500\n"
    "gemm_tflops.fp32 = 45\n"
    "gemm_tflops.fp8 = 1400\n"
    "stream_kernel_gbps = 3300\n"
    "allreduce_busbw_gbps = 200\n";

void ExpectScriptedFigures(GpuVendor v) {
  ScriptFakeGpu(v, kScript);
  std::unique_ptr<GpuRuntime> rt = LoadFake(v);
  ASSERT_NE(rt, nullptr);
  RunOptions o = SmallRun();
  o.target_overrides.image = "registry/train:1.2";
  StatusOr<RunReport> r = RunBenchmarks(*rt, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFigure(*r, "gemm.bf16@1024", 600e12, 5);
  ExpectFigure(*r, "gemm.fp16@1024", 500e12, 5);
  ExpectFigure(*r, "gemm.fp32@1024", 45e12, 5);
  ExpectFigure(*r, "stream.memcpy@67108864", 3000e9, 5);
  ExpectFigure(*r, "stream.axpy_triad@67108864", 3000e9, 5);
  ExpectFigure(*r, "copy.h2d_pinned@16777216", 40e9, 5);
  ExpectFigure(*r, "copy.d2h_pinned@16777216", 30e9, 5);
  ExpectFigure(*r, "nccl.all_reduce.busbw@8388608", 200e9, 5);
  ASSERT_NE(Find(*r, "alloc.latency_p50@1048576"), nullptr);
  ASSERT_NE(Find(*r, "alloc.latency_p99@1048576"), nullptr);
  ExpectFigure(*r, "gemm.fp8@1024", 1400e12, 5);
  ExpectFigure(*r, "stream.copy@67108864", 3300e9, 5);
  ExpectFigure(*r, "stream.triad@67108864", 3300e9, 5);
  for (const SkippedBenchmark& s : r->skipped) ADD_FAILURE() << s.benchmark << ": " << s.reason;
  // The catalog key, so magnitude checks and baselines line up with
  // ingested results of the same model.
  EXPECT_EQ(r->target.model, v == GpuVendor::kAmd ? "mi300x" : "h200-sxm");
  EXPECT_EQ(r->target.image, "registry/train:1.2");
  for (const BenchmarkResult& b : r->results) {
    EXPECT_EQ(b.target.Key(), r->target.Key()) << b.benchmark_id;
    std::string unit = b.benchmark_id.rfind("alloc.", 0) == 0  ? "seconds"
                       : b.benchmark_id.rfind("gemm.", 0) == 0 ? "flop_per_second"
                                                               : "bytes_per_second";
    EXPECT_EQ(b.unit, unit) << b.benchmark_id;
  }
}

TEST(RunnerTest, CudaFiguresEqualScriptedRates) { ExpectScriptedFigures(GpuVendor::kNvidia); }

TEST(RunnerTest, HipFiguresEqualScriptedRates) { ExpectScriptedFigures(GpuVendor::kAmd); }

TEST(RunnerTest, MissingSymbolAndLibrarySkipOnlyTheirBenchmarks) {
  ScriptFakeGpu(GpuVendor::kNvidia, kScript);
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia, /*partial=*/true);
  ASSERT_NE(rt, nullptr);
  StatusOr<RunReport> r = RunBenchmarks(*rt, SmallRun());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* id :
       {"gemm.bf16@1024", "gemm.fp16@1024", "gemm.fp32@1024", "stream.axpy_triad@67108864"}) {
    const SkippedBenchmark* s = FindSkipped(*r, id);
    ASSERT_NE(s, nullptr) << id;
    EXPECT_NE(s->reason.find("cublasGemmEx"), std::string::npos) << s->reason;
    EXPECT_EQ(Find(*r, id), nullptr) << id;
  }
  const SkippedBenchmark* ar = FindSkipped(*r, "nccl.all_reduce.busbw@8388608");
  ASSERT_NE(ar, nullptr);
  EXPECT_NE(ar->reason.find("libnccl.so.2"), std::string::npos) << ar->reason;
  // Everything that needs only the runtime still ran, at the scripted rates.
  ExpectFigure(*r, "stream.memcpy@67108864", 3000e9, 5);
  ExpectFigure(*r, "copy.h2d_pinned@16777216", 40e9, 5);
  ExpectFigure(*r, "copy.d2h_pinned@16777216", 30e9, 5);
  EXPECT_NE(Find(*r, "alloc.latency_p50@1048576"), nullptr);
}

TEST(RunnerTest, FailingCallSkipsItsBenchmarksWithTheCallName) {
  ScriptFakeGpu(GpuVendor::kNvidia, std::string(kScript) + "fail = cudaMemcpyAsync\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  StatusOr<RunReport> r = RunBenchmarks(*rt, SmallRun());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const SkippedBenchmark* s = FindSkipped(*r, "copy.h2d_pinned@16777216");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->reason.find("cudaMemcpyAsync"), std::string::npos) << s->reason;
  EXPECT_NE(FindSkipped(*r, "stream.memcpy@67108864"), nullptr);
  ExpectFigure(*r, "gemm.bf16@1024", 600e12, 5);
}

TEST(RunnerTest, AllocationLatencyPercentiles) {
  ScriptFakeGpu(GpuVendor::kNvidia, "device_count = 1\nalloc_us = 300\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  RunOptions o = SmallRun();
  o.groups = {"alloc", "allreduce"};
  o.repetitions = 2;
  o.alloc_samples = 4;
  o.alloc_bytes = {4096, size_t{1} << 30};
  StatusOr<RunReport> r = RunBenchmarks(*rt, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* size : {"4096", "1073741824"}) {
    const BenchmarkResult* p50 = Find(*r, std::string("alloc.latency_p50@") + size);
    const BenchmarkResult* p99 = Find(*r, std::string("alloc.latency_p99@") + size);
    ASSERT_NE(p50, nullptr);
    ASSERT_NE(p99, nullptr);
    ASSERT_EQ(p50->values.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      // The fake sleeps 300 us in every malloc: a one-sided bound that
      // cannot flake.
      EXPECT_GE(p50->values[i], 300e-6);
      EXPECT_GE(p99->values[i], p50->values[i]);
    }
  }
  // One GPU: no all-reduce, with the reason.
  const SkippedBenchmark* ar = FindSkipped(*r, "nccl.all_reduce.busbw@8388608");
  ASSERT_NE(ar, nullptr);
  EXPECT_NE(ar->reason.find("2 or more GPUs"), std::string::npos);
}

TEST(RunnerTest, TenPercentSlowdownFailsTheGateAgainstANormalBaseline) {
  RunOptions o = SmallRun();
  o.groups = {"gemm", "stream", "h2d", "allreduce"};
  ScriptFakeGpu(GpuVendor::kNvidia, std::string(kScript) + "jitter = 0.004\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  StatusOr<RunReport> base = RunBenchmarks(*rt, o);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  InMemoryBaselineStore store;
  for (const BenchmarkResult& b : base->results) {
    ASSERT_TRUE(store.PutBaseline(BaselineFromResult(b, 1)).ok());
  }

  // A normal rerun (the jitter seed is the same per load, so shift it by
  // another script line) passes ...
  ScriptFakeGpu(GpuVendor::kNvidia, std::string(kScript) + "jitter = 0.004\n# rerun\n");
  StatusOr<RunReport> again = RunBenchmarks(*rt, o);
  ASSERT_TRUE(again.ok());
  StatusOr<GateReport> pass =
      RunGate(again->results, store, GatePolicy{}, &HardwareCatalog::Default());
  ASSERT_TRUE(pass.ok());
  EXPECT_EQ(pass->Count(Verdict::kPass), again->results.size());

  // ... and the same node 10% slower fails every benchmark.
  ScriptFakeGpu(GpuVendor::kNvidia, std::string(kScript) + "jitter = 0.004\nslowdown = 1.10\n");
  StatusOr<RunReport> slow = RunBenchmarks(*rt, o);
  ASSERT_TRUE(slow.ok());
  StatusOr<GateReport> gate =
      RunGate(slow->results, store, GatePolicy{}, &HardwareCatalog::Default());
  ASSERT_TRUE(gate.ok());
  EXPECT_EQ(gate->Count(Verdict::kRegression), slow->results.size());
  for (const GateCheck& c : gate->checks) {
    ASSERT_TRUE(c.worse_fraction.has_value()) << c.benchmark_id;
    EXPECT_NEAR(*c.worse_fraction, 1 - 1 / 1.10, 0.01) << c.benchmark_id;
  }
  EXPECT_TRUE(GateFailed(*gate, ExitPolicy{}));
}

TEST(RunnerTest, FiguresPassTheMagnitudeCheckForTheModel) {
  ScriptFakeGpu(GpuVendor::kNvidia, kScript);
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  StatusOr<RunReport> r = RunBenchmarks(*rt, SmallRun());
  ASSERT_TRUE(r.ok());
  int bounded = 0;
  for (const BenchmarkResult& b : r->results) {
    std::optional<PeakBound> bound =
        PeakFor(HardwareCatalog::Default(), b.target.model, b.benchmark_id, b.unit);
    if (!bound) continue;
    ++bounded;
    for (double v : b.values) EXPECT_TRUE(CheckMagnitude(*bound, v).ok()) << b.benchmark_id;
  }
  // gemm x4 (fp8 included), stream x4 (memcpy, copy, triad, axpy_triad),
  // copy x2, all-reduce.
  EXPECT_EQ(bounded, 11);
}

TEST(RunnerTest, AllDevicesGivesOneResultPerGpuAndTheGateFlagsTheSlowOne) {
  RunOptions o = SmallRun();
  o.groups = {"gemm", "stream", "allreduce"};
  o.gemm_precisions = {GemmPrecision::kBf16};
  o.all_devices = true;
  ScriptFakeGpu(GpuVendor::kNvidia, std::string(kScript) + "device_count = 3\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  StatusOr<RunReport> base = RunBenchmarks(*rt, o);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  std::map<std::string, std::vector<std::string>> devices_by_id;
  for (const BenchmarkResult& b : base->results) {
    devices_by_id[b.benchmark_id].push_back(ResultDevice(b));
    EXPECT_EQ(b.target.Key(), base->target.Key()) << b.benchmark_id;
  }
  std::vector<std::string> all = {"gpu0", "gpu1", "gpu2"};
  EXPECT_EQ(devices_by_id["gemm.bf16@1024"], all);
  EXPECT_EQ(devices_by_id["stream.triad@67108864"], all);
  // All-reduce spans the node: once.
  EXPECT_EQ(devices_by_id["nccl.all_reduce.busbw@8388608"].size(), 1u);
  EXPECT_NE(FormatRunTable(*base).find("gpu2 gemm.bf16@1024"), std::string::npos);

  // The baseline pools the GPUs (as `baseline set` does); a rerun with GPU 1
  // 15% slower fails on GPU 1 only.
  std::vector<BenchmarkResult> pooled;
  for (const BenchmarkResult& b : base->results) MergeResult(b, &pooled);
  InMemoryBaselineStore store;
  for (const BenchmarkResult& b : pooled) {
    ASSERT_TRUE(store.PutBaseline(BaselineFromResult(b, 1)).ok());
  }
  ScriptFakeGpu(GpuVendor::kNvidia,
                std::string(kScript) + "device_count = 3\nslowdown.1 = 1.15\n");
  StatusOr<RunReport> slow = RunBenchmarks(*rt, o);
  ASSERT_TRUE(slow.ok());
  StatusOr<GateReport> gate =
      RunGate(slow->results, store, GatePolicy{}, &HardwareCatalog::Default());
  ASSERT_TRUE(gate.ok());
  size_t gpu1_regressions = 0;
  for (const GateCheck& c : gate->checks) {
    bool gpu1 = c.source.find(" gpu1,") != std::string::npos;
    if (c.benchmark_id.rfind("nccl.", 0) == 0) continue;  // one result, all GPUs
    if (gpu1) {
      EXPECT_EQ(c.verdict, Verdict::kRegression) << c.benchmark_id << " " << c.reason;
      ++gpu1_regressions;
    } else {
      EXPECT_EQ(c.verdict, Verdict::kPass) << c.source << " " << c.benchmark_id << " " << c.reason;
    }
  }
  // gemm.bf16, memcpy, copy, triad, axpy_triad.
  EXPECT_EQ(gpu1_regressions, 5u);
}

TEST(RunnerTest, RejectsBadOptions) {
  ScriptFakeGpu(GpuVendor::kNvidia, "device_count = 2\n");
  std::unique_ptr<GpuRuntime> rt = LoadFake(GpuVendor::kNvidia);
  ASSERT_NE(rt, nullptr);
  RunOptions o = SmallRun();
  o.groups = {"gemm", "gemmm"};
  StatusOr<RunReport> r = RunBenchmarks(*rt, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gemmm"), std::string::npos);
  o = SmallRun();
  o.device = 2;
  EXPECT_FALSE(RunBenchmarks(*rt, o).ok());
}

TEST(RunnerTest, BusBandwidthFollowsNcclTests) {
  // 1 GB in 10 ms over 8 ranks: algbw 100 GB/s, busbw 100 * 2 * 7 / 8.
  EXPECT_DOUBLE_EQ(AllReduceBusBandwidth(1e9, 0.01, 8), 175e9);
  EXPECT_DOUBLE_EQ(AllReduceBusBandwidth(1e9, 0.01, 2), 100e9);
  EXPECT_EQ(AllReduceBusBandwidth(1e9, 0.01, 1), 0);
}

}  // namespace
}  // namespace gpufleet::canary
