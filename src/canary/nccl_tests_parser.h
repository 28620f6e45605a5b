// Parser for nccl-tests / rccl-tests text output (all_reduce_perf and
// friends). It keeps the whole table; NcclTestsResults() turns it into the
// gated figures: bus bandwidth at the largest message sizes. The "Avg bus
// bandwidth" footer is kept for display only and never gated: it is the mean
// of every busbw cell, tiny messages included (70.7 GB/s in a 16xH100 run
// whose 8 GiB busbw is 338.8 GB/s).
//
// Handles: old headers (starting at "# nThread") and new ones ("# nccl-tests
// version ... nccl-library=N"), time in microseconds, numbers that switch to
// "%.0f" or exponent form ("1.2e+06"), "#wrong" = "N/A", a single result
// block per row (the other left blank), trailing extra columns.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

struct NcclTestsBlock {
  double time_us = 0;
  double algbw_gb_per_s = 0;  // GB = 1e9 bytes
  double busbw_gb_per_s = 0;
  std::optional<double> wrong;  // nullopt when the output says N/A (not checked)
};

struct NcclTestsRow {
  uint64_t size_bytes = 0;
  uint64_t count_elements = 0;
  std::string type;   // "float", "bfloat16"
  std::string redop;  // "sum", "none"
  int64_t root = -1;
  std::optional<NcclTestsBlock> out_of_place;
  std::optional<NcclTestsBlock> in_place;
  size_t line = 0;
};

struct NcclTestsOutput {
  std::string collective;            // "all_reduce" ("" when neither header nor file name says)
  std::string library;               // "nccl-2.19.3" from the version header, else ""
  std::vector<std::string> devices;  // one per "# Rank" line, vendor names
  std::string host_list;             // distinct host names, comma separated
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gb_per_s;  // footer, display only
  bool out_of_bounds_failed = false;         // "# Out of bounds values : N FAILED"
};

// Fails only when nothing usable is found (no table row at all); malformed
// rows are counted in `report` and skipped. `origin` names the input in
// messages ("file.txt:12: ...").
StatusOr<NcclTestsOutput> ParseNcclTests(std::string_view text, std::string_view origin,
                                         ParseReport* report);

struct NcclTestsResultOptions {
  size_t largest_sizes = 2;  // how many of the largest distinct sizes are gated
  std::string collective;    // overrides the parsed collective name when set
};

// BenchmarkResults "nccl.<collective>.busbw@<size_bytes>" in bytes_per_second;
// the out-of-place and in-place figures of a row are two repetitions. Adds
// "nccl.<collective>.correct" (unit pass: 0 when any checked #wrong is
// non-zero or the out-of-bounds check failed). The target's model is the
// catalog key of the ranks' device when they all agree.
std::vector<BenchmarkResult> NcclTestsResults(const NcclTestsOutput& out, std::string_view origin,
                                              const NcclTestsResultOptions& options = {});

}  // namespace gpufleet::canary
