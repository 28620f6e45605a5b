// Gavel's measured co-location throughputs, the source of the slowdowns the
// detection simulator (fleet_sim.h) injects. Read at run time from
// ../shared/traces/gavel/colocation_throughputs_sf1.csv (2028 ordered pairs
// of 26 job types on K80 / P100 / V100 at scale factor 1; MIT, Gavel).
//
// Format, one header then one row per ordered pair:
//   accelerator,job_a,job_b,iso_a,iso_b,coloc_a,coloc_b,norm_a,norm_b,combined_norm
//   k80,A3C,CycleGAN,3.43877,0.504771,1.46571,0.292925,0.4262,0.5803,1.0065
// norm_x = coloc_x / iso_x is job x's throughput beside the other job as a
// fraction of its throughput alone; 0 marks an infeasible pair (e.g. out of
// memory). Every feasible row is kept, whatever its slowdown (1 - norm_a),
// including pairs that barely slow each other.
//
// Errors: a missing file or header is an error naming the file; a bad row
// (wrong field count, a field that is not a number, a norm outside [0, 4])
// is counted in `bad` with "file:line: field: what" in `errors` (first 20).
// Infeasible rows are counted in `infeasible`, not errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::detect {

struct CoLocationPair {
  std::string accelerator, job_a, job_b;
  double norm_a = 0;  // job a's throughput beside b / alone
  double norm_b = 0;
  double slowdown_a() const { return 1 - norm_a; }
};

struct CoLocationTable {
  std::vector<CoLocationPair> pairs;  // feasible rows, file order
  uint64_t infeasible = 0;
  uint64_t bad = 0;
  std::vector<std::string> errors;
};

// The path relative to the repository root (and to the working directory
// when gpufleet runs from it).
inline constexpr std::string_view kGavelColocationPath =
    "../shared/traces/gavel/colocation_throughputs_sf1.csv";

StatusOr<CoLocationTable> ParseGavelColocation(std::string_view text, std::string_view origin);
// Reads and parses `path`; a missing file says where it was looked for and
// that ../shared must sit beside the repository (or pass another file).
StatusOr<CoLocationTable> LoadGavelColocation(const std::string& path);

}  // namespace gpufleet::detect
