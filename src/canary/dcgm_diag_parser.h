// Parser for `dcgmi diag -j` JSON. Shape (no real sample was available; the
// test file tests/data/canary/dcgm_diag_r3_synthetic.json is built from the
// documented plugin names and statuses and says so):
//
//   {"DCGM GPU Diagnostic": {"test_categories": [
//      {"category": "Hardware", "tests": [
//         {"name": "memory_bandwidth", "results": [
//            {"gpu_ids": "0", "status": "Pass", "info": "..."},
//            {"gpu_ids": "1", "status": "Fail", "warnings": [{"warning":
//            "..."}]}]}]}],
//    "version": "3.3.7"},
//   "Driver Version Detected": "550.54.15"}
//
// Newer DCGM names the top object "DCGM Diagnostic" and the per-GPU key
// "entity_id"; both are accepted. DCGM thresholds are ~25% margins, so a
// diag Fail is a hard failure in the gate, not a baseline comparison.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

struct DcgmDiagEntry {
  std::string category;  // "Hardware"
  std::string test;      // "memory_bandwidth", "Memory Bandwidth"
  std::string gpu;       // "0" ("" for system-wide checks)
  std::string status;    // lower case: "pass", "fail", "warn", "skip", "not run"
  std::string info;      // first warning or info text, for the verdict table
};

struct DcgmDiagOutput {
  std::string dcgm_version;
  std::string driver;
  std::vector<DcgmDiagEntry> entries;
};

// Structural errors (not JSON, no test_categories) name the byte offset or
// the field; malformed entries are counted in `report` and skipped.
StatusOr<DcgmDiagOutput> ParseDcgmDiag(std::string_view text, std::string_view origin,
                                       ParseReport* report);

// One "dcgm.<test in snake_case>" result per test, unit pass, one value per
// GPU entry (1 pass or warn, 0 fail); skipped / not-run entries give no value.
std::vector<BenchmarkResult> DcgmDiagResults(const DcgmDiagOutput& out, std::string_view origin);

}  // namespace gpufleet::canary
