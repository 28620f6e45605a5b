// Intel unitrace's hardware-metric report (`unitrace --metric-query -g
// <group> app`, from Intel's PTI tools): the Intel source of
// gpu_l2_miss_ratio and gpu_memory_stall_ratio, which neither Level Zero
// Sysman nor XPU Manager reports. unitrace reads the GPU's Level Zero metric
// groups per kernel; a conditional capture runs it and the server reads the
// report, as it reads ncu's CSV on NVIDIA (collect/ncu_metrics.h).
//
// The report follows the application's own output: per device a banner, a
// header and one row per kernel instance,
//   === Device #0 Metrics ===
//   Kernel,GlobalInstanceId,SubDeviceId,GpuTime[ns],...,L3_HIT[events],L3_MISS[events],...
//   "gemm<float, 3>[SIMD16 {4096; 1; 1} {16; 1; 1}]",1,0,7708,...,52114,9310,...
// Columns are `NAME[unit]`, found by name (groups and platforms differ in
// which they have); the header may be padded with blanks. A kernel name may
// hold commas, and only it: a row's values are its last N-1 fields for a
// header of N columns. A section ends at the next banner; a repeated header
// starts it again.
//
// Metrics used (every other column is ignored):
//   L3_HIT, L3_MISS (ComputeBasic on Arc / Battlemage; "L3" is Intel's
//       name for the device-wide cache NVIDIA and AMD call L2): miss ratio
//       = misses / (hits + misses) over every kernel instance;
//   L3_BYTE_READ, GPU_MEMORY_BYTE_READ (ComputeBasic on Data Center GPU
//       Max, which counts no L3 lookups): without the lookups, the bytes
//       read from memory over the bytes read from L3, at most 1 (a byte
//       ratio: reads L3 missed, plus prefetches and uncached reads);
//   XVE_STALL_SBID, XVE_STALL_SENDWR (VectorEngineStalls, % of time): the
//       vector engines waiting on a scoreboard dependency (an outstanding
//       memory load, or an XMX result) and on a memory/SLM message; the
//       stall ratio is their sum / 100 (at most 1), averaged over kernel
//       instances weighted by GpuTime[ns] (each once when one lacks it);
//   SbidStall, SendStall and the other `[Events]` columns of a stall-sampling
//       report (`--stall-sampling`, one row per instruction address): the
//       same two reasons' samples over all samples, used when the report has
//       no VectorEngineStalls columns.
// SBID also counts waits on XMX (matrix) results, so a matrix-heavy job's
// figure includes some that are not memory: root cause reads the rise
// against a reference, where the job's own share cancels. Devices and tiles
// are pooled: a capture is meant to profile one GPU (the command selects
// it, e.g. ZE_AFFINITY_MASK).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collect/capture_files.h"
#include "core/status.h"

namespace gpufleet::collect {

struct UnitraceMetricSummary : CaptureReadTally {
  double l3_hits = 0, l3_misses = 0;              // sums over kernel instances
  double l3_read_bytes = 0, memory_read_bytes = 0;  // the same, where lookups are not counted
  KernelShare stall;                              // (SBID + SENDWR) / 100 per instance
  bool durations_complete = true;                 // every instance with a stall share had GpuTime
  double sampled_memory_stalls = 0, samples = 0;  // stall sampling
  int64_t sections = 0;                           // device sections read

  // nullopt without L3_HIT / L3_MISS counts or, in their place, L3 and
  // memory read bytes.
  std::optional<double> L2MissRatio() const;
  // nullopt without stall columns or samples.
  std::optional<double> MemoryStallRatio() const;
  void Merge(const UnitraceMetricSummary& other);
};

// Parses one report held in `text`; `path` names it in messages.
// InvalidArgument ("path: not a unitrace metric report ...") when it has no
// "=== Device #N Metrics ===" banner followed by a header starting with
// "Kernel"; bad rows are counted, not fatal.
StatusOr<UnitraceMetricSummary> ParseUnitraceMetrics(std::string_view text, std::string_view path);

// Reads `path`: a report, or a directory searched (at most 6 levels) for
// *.log, *.txt and *.csv files that are reports (others are passed over).
// NotFound when there is none.
StatusOr<UnitraceMetricSummary> ReadUnitraceMetrics(const std::string& path);

}  // namespace gpufleet::collect
