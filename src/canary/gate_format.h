// Human and machine forms of a gate report: a fixed-width verdict table for
// terminals and CI logs, and JSON for pipelines (`canary check --json`).
#pragma once

#include <string>

#include "canary/gate.h"

namespace gpufleet::canary {

// One row per check plus a summary line, e.g.
//   VERDICT     BENCHMARK                          MEDIAN        BASELINE
//   CHANGE  N  REASON regression  nccl.all_reduce.busbw@8589934592   3.04e+11
//   B/s  3.38e+11 B/s  -10.2%  4  ...
std::string FormatGateTable(const GateReport& report);

// {"checks": [{"target": ..., "benchmark": ..., "verdict": ..., ...}],
//  "summary": {"pass": N, "regression": N, ...}}
std::string FormatGateJson(const GateReport& report, bool failed);

}  // namespace gpufleet::canary
