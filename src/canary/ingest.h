// The file-level operations behind `gpufleet canary ...`: read result files
// into BenchmarkResults stamped with a hardware target, and turn results into
// baselines after checking their magnitudes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "canary/baseline_store.h"
#include "canary/result.h"
#include "canary/result_parser.h"
#include "core/status.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {

// Reads and parses each file (format sniffed per file unless given), merges
// repetitions across files, and sets the fields of `target` on every result
// (the command line knows the driver and image; the output rarely does).
// Fails on the first unreadable or unparseable file, naming it; bad lines are
// counted in `report`.
StatusOr<std::vector<BenchmarkResult>> LoadResultFiles(const std::vector<std::string>& paths,
                                                       ResultFormat format,
                                                       const HardwareTarget& target,
                                                       ParseReport* report);

// Stores one baseline per measured result (pass/fail results need none).
// A result whose values fail the magnitude check against `catalog` is
// refused with InvalidArgument naming it, before anything is written, unless
// `force`. Returns the baselines written.
StatusOr<std::vector<Baseline>> SetBaselines(const std::vector<BenchmarkResult>& results,
                                             BaselineStore& store, const HardwareCatalog* catalog,
                                             bool force, int64_t now_ns);

}  // namespace gpufleet::canary
