// The "gpufleet canary JSON" result format: what `gpufleet canary run --json`
// / `-o FILE` writes and what `canary ingest|baseline set|check` read back
// (--format gpufleet-json, or sniffed by its "format" field). One document:
//
//   {"format": "gpufleet-canary-results", "version": 1,
//    "target": {"model": "h200-sxm", "driver": "...", "runtime": "cuda-12.4",
//               "libraries": "cublas-12.4.3+nccl-2.21.5", "image": "..."},
//    "results": [{"benchmark": "gemm.bf16@8192", "unit": "flop_per_second",
//                 "values": [7.1e14, 7.2e14], "source": "..."}],
//    "skipped": [{"benchmark": "gemm.fp8@8192", "reason": "..."}]}
//
// A result may carry its own "target" (same fields); the fields it sets
// replace the document's. Values must be finite and non-negative; a result with a bad
// field is skipped and counted in the ParseReport, naming results[i].field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

inline constexpr std::string_view kCanaryJsonFormat = "gpufleet-canary-results";

struct SkippedBenchmark;

// `target` goes in the document header; results whose target differs carry
// their own.
std::string FormatResultsJson(const HardwareTarget& target,
                              const std::vector<BenchmarkResult>& results,
                              const std::vector<SkippedBenchmark>& skipped);

// True when `text` looks like this format (a JSON object naming it).
bool LooksLikeCanaryJson(std::string_view text);

// InvalidArgument naming `origin` when the text is not JSON, not this format,
// or holds no usable result.
StatusOr<std::vector<BenchmarkResult>> ParseCanaryJson(std::string_view text,
                                                       std::string_view origin,
                                                       ParseReport* report);

}  // namespace gpufleet::canary
