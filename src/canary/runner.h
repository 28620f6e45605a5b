// The built-in canary microbenchmarks (`gpufleet canary run`), driven through
// the GpuRuntime seam. Each benchmark gives one BenchmarkResult per figure
// with one value per repetition, so the gate's noise statistics apply.
//
// Benchmark ids and how each figure is computed (docs/canary.md):
//   gemm.<fp32|fp16|bf16>@<n>      flop_per_second   2*n^3 per GemmEx, n x n
//   gemm.fp8@<n>                   flop_per_second   2*n^3 per BLASLt matmul (E4M3 in,
//                                                    bf16 out), where the GPU has fp8
//   stream.memcpy@<bytes>          bytes_per_second  D2D memcpy, 2 bytes moved per byte
//   stream.copy@<bytes>            bytes_per_second  gpufleet's copy kernel over doubles,
//   stream.triad@<bytes>                             2 / 3 arrays of <bytes> moved (as
//                                                    BabelStream counts); needs nvcc/hipcc
//                                                    at build time
//   stream.axpy_triad@<bytes>      bytes_per_second  BLAS saxpy (y = a*x + y), 3 words
//                                                    per element
//   copy.h2d_pinned@<bytes>        bytes_per_second  pinned host -> device
//   copy.d2h_pinned@<bytes>        bytes_per_second  device -> pinned host
//   alloc.latency_p50@<bytes>      seconds           malloc + free of one buffer,
//   alloc.latency_p99@<bytes>      seconds           percentiles over `alloc_samples`
//   nccl.all_reduce.busbw@<bytes>  bytes_per_second  algbw * 2(n-1)/n, fp32 sum over
//                                                    all GPUs (nccl-tests' definition)
// Device-side figures are timed with events around `iters` operations;
// allocation latency with the host's monotonic clock (the calls are
// synchronous).
//
// Thread safety: none.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "canary/gpu_runtime.h"
#include "canary/result.h"
#include "core/clock.h"
#include "core/status.h"

namespace gpufleet::canary {

inline constexpr const char* kAllBenchmarkGroups[] = {"gemm", "stream", "alloc", "h2d",
                                                      "allreduce"};

struct RunOptions {
  std::vector<std::string> groups = {"gemm", "stream", "alloc", "h2d", "allreduce"};
  int device = 0;  // single-device benchmarks run here; all-reduce uses all
  // Single-device benchmarks on every GPU instead: one result per device,
  // same benchmark ids and target (each device's own target if its model
  // differs), the device named in `source` ("... gpu3, ..."). The gate then
  // checks each GPU's figures against the target's baseline, so one slow GPU
  // is its own regression. `device` is ignored.
  bool all_devices = false;
  int repetitions = 5;
  int warmup = 2;  // untimed iterations before each benchmark
  int iters = 10;  // timed operations per repetition
  std::vector<GemmPrecision> gemm_precisions = {GemmPrecision::kBf16, GemmPrecision::kFp16,
                                                GemmPrecision::kFp32, GemmPrecision::kFp8};
  int gemm_n = 8192;
  size_t stream_bytes = size_t{1} << 30;
  size_t transfer_bytes = size_t{256} << 20;
  std::vector<size_t> alloc_bytes = {size_t{1} << 20, size_t{64} << 20, size_t{1} << 30};
  int alloc_samples = 50;  // per repetition and size
  std::vector<size_t> allreduce_bytes = {size_t{16} << 20, size_t{256} << 20};
  HardwareTarget target_overrides;  // e.g. image=...; replaces what the runtime reports
  const Clock* clock = nullptr;     // for allocation latency; null = RealClock
};

// Checks group names ("gemm", "stream", "alloc", "h2d", "allreduce").
Status ValidateGroups(const std::vector<std::string>& groups);

struct SkippedBenchmark {
  std::string benchmark;  // id or group ("gemm.fp8@8192", "allreduce")
  std::string reason;
};

struct RunReport {
  std::vector<BenchmarkResult> results;
  std::vector<SkippedBenchmark> skipped;
  HardwareTarget target;     // of the first device run
  bool per_device = false;   // RunOptions::all_devices; skip reasons start "gpuN: "
};

// "gpu3" from a built-in result's source ("gpufleet canary run: nvidia gpu3,
// ..."); "" for other sources.
std::string ResultDevice(const BenchmarkResult& r);

// Runs the selected groups. A benchmark whose library or symbol is missing,
// or that fails, is skipped with the reason; the others still run. Errors
// only when the target cannot be read or `options` is invalid.
StatusOr<RunReport> RunBenchmarks(GpuRuntime& rt, const RunOptions& options);

// nccl-tests' bus bandwidth for all-reduce over `ranks` ranks.
double AllReduceBusBandwidth(double bytes, double seconds, int ranks);

}  // namespace gpufleet::canary
