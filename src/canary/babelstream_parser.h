// Parser for BabelStream output: the text table of v3.x-v5.x
// ("Function    MBytes/sec  Min (sec)   Max         Average", newer
// releases write the unit as "MB/s", "GiB/s" ...) and the --csv mode
// ("function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,...").
// BabelStream computes bandwidth from the minimum time with the first
// iteration dropped; we take its figure as is.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

struct BabelStreamRow {
  std::string function;  // "Copy", "Mul", "Add", "Triad", "Dot", "Nstream"
  double bandwidth_bytes_per_s = 0;
  std::optional<double> min_s, max_s, avg_s;
  size_t line = 0;
};

struct BabelStreamOutput {
  std::string version;         // "3.3"
  std::string implementation;  // "CUDA", "HIP", "OpenMP"
  std::string precision;       // "double" | "float" ("" when not printed, e.g. CSV)
  std::string device;          // "TITAN Xp" from "Using CUDA device TITAN Xp"
  // "Driver: 9010" is the CUDA API level the driver supports, not the driver
  // release, so it is kept here and not put into the target.
  std::string driver_api;
  bool csv = false;
  std::vector<BabelStreamRow> rows;
};

// Fails when no result row is found or the unit of the table is unknown.
StatusOr<BabelStreamOutput> ParseBabelStream(std::string_view text, std::string_view origin,
                                             ParseReport* report);

// "stream.<function lower-case>" in bytes_per_second, one repetition per
// row; ".float" is appended for single-precision runs so they never meet a
// double-precision baseline.
std::vector<BenchmarkResult> BabelStreamResults(const BabelStreamOutput& out,
                                                std::string_view origin);

// Bytes per unit for "MBytes/sec", "MB/s", "GiB/s", "mibytes" ... nullopt if
// unknown.
std::optional<double> BabelStreamUnitBytes(std::string_view unit);

}  // namespace gpufleet::canary
