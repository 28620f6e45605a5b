#include "canary/gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "canary/magnitude.h"
#include "canary/stats.h"
#include "core/strings.h"

namespace gpufleet::canary {
namespace {

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", fraction * 100);
  return buf;
}

void EvaluatePassFail(const BenchmarkResult& r, GateCheck* c) {
  size_t failed = 0;
  for (double v : r.values) failed += v == 0 ? 1 : 0;
  c->verdict = failed == 0 ? Verdict::kPass : Verdict::kFail;
  c->reason = failed == 0 ? "all " + std::to_string(r.values.size()) + " passed"
                          : std::to_string(failed) + " of " + std::to_string(r.values.size()) +
                                " failed" + (r.note.empty() ? "" : ": " + r.note);
}

// First magnitude error among `values`, or OK.
Status CheckValues(const std::optional<PeakBound>& bound, const std::vector<double>& values) {
  if (!bound.has_value()) return OkStatus();
  for (double v : values) RETURN_IF_ERROR(CheckMagnitude(*bound, v));
  return OkStatus();
}

// The median of an odd-sized sample is one of its values, so one deviation
// is always exactly 0; it carries no information about the noise and would
// bias a small-sample MAD low, so it is left out.
void AppendRelativeDeviations(const std::vector<double>& values, double median,
                              std::vector<double>* dev) {
  bool skipped_zero = values.size() % 2 == 0;
  for (double v : values) {
    double d = std::fabs(v - median) / std::fabs(median);
    if (d == 0 && !skipped_zero) {
      skipped_zero = true;
      continue;
    }
    dev->push_back(d);
  }
}

double PooledRelativeMad(const std::vector<double>& run, double run_median,
                         const std::vector<double>& base, double base_median) {
  std::vector<double> dev;
  AppendRelativeDeviations(run, run_median, &dev);
  AppendRelativeDeviations(base, base_median, &dev);
  return dev.empty() ? 0 : 1.4826 * Median(std::move(dev));
}

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kRegression:
      return "regression";
    case Verdict::kFail:
      return "fail";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kNoBaseline:
      return "no_baseline";
  }
  return "invalid";
}

GateCheck EvaluateResult(const BenchmarkResult& r, const Baseline* baseline,
                         const GatePolicy& policy, const HardwareCatalog* catalog) {
  GPUFLEET_CHECK(!r.values.empty());
  GateCheck c;
  c.target_key = r.target.Key();
  c.benchmark_id = r.benchmark_id;
  c.unit = r.unit;
  c.source = r.source;
  c.n = r.values.size();
  c.median = Median(r.values);
  c.relative_spread = c.median != 0 ? ScaledMad(r.values) / std::fabs(c.median) : 0;
  if (baseline != nullptr) {
    c.baseline_median = baseline->median;
    c.baseline_n = baseline->values.size();
  }
  if (r.unit == kUnitPass) {
    EvaluatePassFail(r, &c);
    return c;
  }

  std::optional<PeakBound> bound;
  if (catalog != nullptr) bound = PeakFor(*catalog, r.target.model, r.benchmark_id, r.unit);
  if (Status st = CheckValues(bound, r.values); !st.ok()) {
    c.verdict = Verdict::kInvalid;
    c.reason = "result " + st.message();
    return c;
  }
  if (baseline == nullptr) {
    c.verdict = Verdict::kNoBaseline;
    c.reason = "no baseline for this target";
    return c;
  }
  if (baseline->unit != r.unit) {
    c.verdict = Verdict::kInvalid;
    c.reason = "baseline unit " + baseline->unit + " differs from result unit " + r.unit;
    return c;
  }
  if (Status st = CheckValues(bound, {baseline->median}); !st.ok()) {
    c.verdict = Verdict::kInvalid;
    c.reason = "baseline " + st.message();
    return c;
  }
  if (baseline->median <= 0 || c.median < 0) {
    c.verdict = Verdict::kInvalid;
    c.reason = "non-positive median (baseline " + FormatDouble(baseline->median) + ")";
    return c;
  }

  double b = baseline->median;
  double worse = DirectionForUnit(r.unit) == Direction::kHigherIsBetter ? (b - c.median) / b
                                                                        : (c.median - b) / b;
  c.worse_fraction = worse;
  // Noise: one scaled MAD over the relative deviations of both samples from
  // their own medians. A MAD from five values alone can come out far too
  // small by chance and turn noise into a "significant" drop; pooling the
  // run's and the baseline's deviations halves that risk. A baseline of one
  // value contributes nothing, so the run's spread is used for both sides.
  double s = PooledRelativeMad(r.values, c.median, baseline->values, b);
  s = std::max(s, policy.min_relative_noise);
  size_t n_base = std::max<size_t>(baseline->values.size(), 1);
  double se = std::sqrt(std::numbers::pi / 2 *
                        (s * s / static_cast<double>(c.n) + s * s / static_cast<double>(n_base)));
  double noise = policy.significance_k * se;
  c.noise_fraction = noise;

  if (c.n < policy.min_repetitions) {
    c.verdict = Verdict::kInconclusive;
    c.reason =
        std::to_string(c.n) + " repetition(s), need " + std::to_string(policy.min_repetitions);
    return c;
  }
  if (std::max(c.relative_spread, s) > policy.max_relative_spread) {
    c.verdict = Verdict::kInconclusive;
    c.reason = "too noisy: spread " + Percent(std::max(c.relative_spread, s)) + " > " +
               Percent(policy.max_relative_spread);
    return c;
  }
  if (worse > policy.flag_threshold()) {
    if (worse > noise) {
      c.verdict = Verdict::kRegression;
      c.reason = Percent(worse) + " worse than baseline (noise " + Percent(noise) + ")";
    } else {
      c.verdict = Verdict::kInconclusive;
      c.reason = Percent(worse) + " worse but within noise " + Percent(noise);
    }
    return c;
  }
  if (noise > policy.tolerance) {
    c.verdict = Verdict::kInconclusive;
    c.reason = "noise " + Percent(noise) + " too high to resolve a " + Percent(policy.tolerance) +
               " change";
    return c;
  }
  c.verdict = Verdict::kPass;
  c.reason = worse < -policy.tolerance
                 ? Percent(-worse) + " better than baseline; consider re-baselining"
                 : "within " + Percent(policy.flag_threshold()) + " of baseline (change " +
                       Percent(-worse) + ")";
  return c;
}

size_t GateReport::Count(Verdict v) const {
  size_t n = 0;
  for (const GateCheck& c : checks) n += c.verdict == v ? 1 : 0;
  return n;
}

StatusOr<GateReport> RunGate(const std::vector<BenchmarkResult>& results, BaselineStore& store,
                             const GatePolicy& policy, const HardwareCatalog* catalog) {
  GateReport report;
  for (const BenchmarkResult& r : results) {
    if (r.values.empty()) continue;
    ASSIGN_OR_RETURN(std::optional<Baseline> b, store.GetBaseline(r.target.Key(), r.benchmark_id));
    report.checks.push_back(EvaluateResult(r, b ? &*b : nullptr, policy, catalog));
  }
  return report;
}

bool GateFailed(const GateReport& report, const ExitPolicy& policy) {
  for (const GateCheck& c : report.checks) {
    switch (c.verdict) {
      case Verdict::kRegression:
      case Verdict::kFail:
      case Verdict::kInvalid:
        return true;
      case Verdict::kInconclusive:
        if (policy.fail_on_inconclusive) return true;
        break;
      case Verdict::kNoBaseline:
        if (policy.fail_on_no_baseline) return true;
        break;
      case Verdict::kPass:
        break;
    }
  }
  return false;
}

}  // namespace gpufleet::canary
