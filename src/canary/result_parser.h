// One entry point for external benchmark output: sniffs the format (or takes
// it from the caller) and returns BenchmarkResults. The CLI and the fuzz
// targets go through here.
#pragma once

#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

enum class ResultFormat { kAuto, kNcclTests, kBabelStream, kDcgmDiag, kCanaryJson };

// "auto", "nccl-tests" (also rccl-tests), "babelstream", "dcgm-diag",
// "gpufleet-json" (`canary run` output, canary/result_json.h).
StatusOr<ResultFormat> ResultFormatFromName(std::string_view name);
std::string_view ResultFormatName(ResultFormat f);

// kAuto when nothing matches.
ResultFormat SniffResultFormat(std::string_view text);

// Parses `text` (named `origin` in messages) and merges repetitions of the
// same benchmark. InvalidArgument when the format is unknown or the input
// holds no usable result; bad lines are counted in `report`.
StatusOr<std::vector<BenchmarkResult>> ParseResults(std::string_view text, std::string_view origin,
                                                    ResultFormat format, ParseReport* report);

}  // namespace gpufleet::canary
