// The canary gate: compares repeated benchmark results with the baseline of
// their hardware target and gives a noise-aware verdict per benchmark.
//
// Rule (docs/canary.md has the measured error rates): with m the median of
// the run's N repetitions and b the baseline median, "worse" is the relative
// change in the bad direction ((b - m) / b for bandwidth and throughput,
// (m - b) / b for latency). Noise s is one scaled MAD of the relative
// deviations of both samples from their own medians (pooled, floored), and
// se = sqrt(pi/2 * s^2 * (1/N + 1/N_base)) is the standard error of the
// difference of the two medians.
//   regression    worse > flag_threshold() AND worse > significance_k * se
//   inconclusive  too few repetitions, spread > max_relative_spread, a
//                 drop past the flag line that the noise could explain, or
//                 noise so high (significance_k * se > tolerance) that a
//                 `tolerance` regression could not be told apart
//   pass          otherwise
// flag_threshold() = tolerance * flag_fraction sits below the tolerance on
// purpose: the median of 5 runs scatters, so a gate that flagged only
// observed drops above 5% would miss about half of all real 5% regressions.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canary/baseline_store.h"
#include "canary/result.h"
#include "core/status.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::canary {

struct GatePolicy {
  double tolerance = 0.05;            // the regression size the gate must catch
  double flag_fraction = 0.6;         // flag line = tolerance * flag_fraction
  double significance_k = 3.0;        // drop must exceed k standard errors
  double max_relative_spread = 0.03;  // run or pooled MAD / median above: inconclusive
  double min_relative_noise = 0.002;  // floor under each side's MAD (quantized output)
  size_t min_repetitions = 3;
  double flag_threshold() const { return tolerance * flag_fraction; }
};

enum class Verdict {
  kPass,
  kRegression,    // measurably worse than the baseline
  kFail,          // a pass/fail check (DCGM diag, nccl-tests #wrong) failed
  kInconclusive,  // the data cannot tell; not a pass
  kInvalid,       // the input or the baseline is implausible (magnitude check)
  kNoBaseline,
};

std::string_view VerdictName(Verdict v);

struct GateCheck {
  std::string target_key;
  std::string benchmark_id;
  std::string unit;
  Verdict verdict = Verdict::kInconclusive;
  size_t n = 0;
  double median = 0;
  double relative_spread = 0;  // scaled MAD / median of the run
  std::optional<double> baseline_median;
  size_t baseline_n = 0;
  std::optional<double> worse_fraction;  // > 0 = worse than baseline
  std::optional<double> noise_fraction;  // significance_k * se
  std::string reason;
  std::string source;
};

// REQUIRES: !r.values.empty(). `baseline` may be null. `catalog` may be null
// to skip magnitude checks.
GateCheck EvaluateResult(const BenchmarkResult& r, const Baseline* baseline,
                         const GatePolicy& policy, const HardwareCatalog* catalog);

struct GateReport {
  std::vector<GateCheck> checks;
  size_t Count(Verdict v) const;
};

// Looks up each result's baseline in `store` and evaluates it. Store errors
// are returned; everything about the data itself is in the verdicts.
StatusOr<GateReport> RunGate(const std::vector<BenchmarkResult>& results, BaselineStore& store,
                             const GatePolicy& policy, const HardwareCatalog* catalog);

// Whether the pipeline should stop: any regression, fail or invalid; and
// inconclusive / missing baselines when the caller says so.
struct ExitPolicy {
  bool fail_on_inconclusive = true;
  bool fail_on_no_baseline = false;
};
bool GateFailed(const GateReport& report, const ExitPolicy& policy);

}  // namespace gpufleet::canary
