// The canary result model: one benchmark figure, with the repetitions that
// produced it and the hardware target it was measured on. Parsers of external
// benchmark output (nccl-tests, BabelStream, DCGM diag) and the built-in
// runners all produce BenchmarkResults; the gate compares them to baselines
// keyed by (target key, benchmark id).
//
// Units are base units and are named in the `unit` field: "bytes_per_second"
// (bus or memory bandwidth), "flop_per_second", "seconds" (latency) and
// "pass" (1 = passed, 0 = failed; vendor diagnostics).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::canary {

inline constexpr std::string_view kUnitBytesPerSecond = "bytes_per_second";
inline constexpr std::string_view kUnitFlopPerSecond = "flop_per_second";
inline constexpr std::string_view kUnitSeconds = "seconds";
inline constexpr std::string_view kUnitPass = "pass";

// What a result was measured on. Two results are comparable only when their
// targets have the same Key(): a new driver or image is a new target that
// needs its own baseline (that is the point of a canary).
struct HardwareTarget {
  std::string model;      // hardware catalog key ("h100-sxm") or the vendor's name
  std::string driver;     // "550.54.15"
  std::string runtime;    // "cuda-12.4", "rocm-6.2"
  std::string libraries;  // "nccl-2.21.5", "rccl-2.20"
  std::string image;      // container image name or digest

  // "model=h100-sxm;driver=550.54.15" (fields in fixed order, empty ones left
  // out).
  std::string Key() const;
  // Fields set in `overrides` replace ours.
  void MergeFrom(const HardwareTarget& overrides);
  bool empty() const { return Key().empty(); }
};

// Parses
// "model=h100-sxm,driver=550.54.15,runtime=cuda-12.4,libs=nccl-2.21.5,image=x"
// (also accepts ';' between fields, the form Key() writes). Unknown field names
// are an InvalidArgument error naming the field.
StatusOr<HardwareTarget> ParseHardwareTarget(std::string_view spec);

enum class Direction { kHigherIsBetter, kLowerIsBetter };

// From the unit: seconds are lower-is-better, everything else higher.
Direction DirectionForUnit(std::string_view unit);
std::string_view DirectionName(Direction d);

struct BenchmarkResult {
  HardwareTarget target;
  std::string benchmark_id;    // "nccl.all_reduce.busbw@8589934592", "stream.triad"
  std::string unit;            // one of the kUnit* names
  std::vector<double> values;  // repetitions, in `unit`
  std::string source;          // "file.txt:42" of the line the first value came from
  std::string note;            // why a pass-type result failed ("" otherwise)
};

// Counters every parser fills: what it read and what it could not use.
struct ParseReport {
  size_t lines = 0;
  size_t data_lines = 0;              // lines that produced values
  size_t skipped_lines = 0;           // malformed lines, counted and skipped
  std::vector<std::string> warnings;  // "file:line: why", first few only

  void Skip(std::string_view origin, size_t line, std::string_view why);
};

// Appends `r` to `out`, merging with an entry of the same target key,
// benchmark id and unit (repetitions accumulate across files).
void MergeResult(BenchmarkResult r, std::vector<BenchmarkResult>* out);

}  // namespace gpufleet::canary
