#include "place/gavel_choice.h"

#include <algorithm>
#include <cstdio>

namespace gpufleet::place {
namespace {

std::string Money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "$%.2f", usd);
  return buf;
}

std::string Hours(double h) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f h", h);
  return buf;
}

}  // namespace

StatusOr<GpuObjective> ParseGpuObjective(std::string_view text) {
  if (text == "fastest") return GpuObjective::kFastest;
  if (text == "cheapest-per-job") return GpuObjective::kCheapestPerJob;
  if (text == "cheapest-meeting-deadline") return GpuObjective::kCheapestMeetingDeadline;
  return InvalidArgumentError("objective \"" + std::string(text) +
                              "\": expected fastest, cheapest-per-job or cheapest-meeting-deadline");
}

StatusOr<GpuChoice> ChooseGpuType(const GavelThroughputs& table, const ThroughputModel& throughput,
                                  const ColocationModel& colocation,
                                  const std::vector<WorkerPeaks>& peaks,
                                  const GpuChoiceRequest& request) {
  const int nw = table.num_workers();
  if (request.job_type < 0 || request.job_type >= table.num_job_types()) {
    return InvalidArgumentError("job_type: no such job type");
  }
  if (request.total_steps <= 0) return InvalidArgumentError("total_steps must be > 0");
  if (static_cast<int>(request.price_usd_per_hour.size()) != nw ||
      static_cast<int>(peaks.size()) != nw) {
    return InvalidArgumentError("price_usd_per_hour and peaks need one entry per GPU type");
  }
  if (request.objective == GpuObjective::kCheapestMeetingDeadline && request.deadline_hours <= 0) {
    return InvalidArgumentError("cheapest-meeting-deadline needs deadline_hours > 0");
  }
  const GavelJobType& jt = table.job_types()[request.job_type];
  GpuChoice out;
  double best_efficiency = 0;
  for (int w = 0; w < nw; ++w) {
    const ThroughputEstimate e = throughput.Estimate(request.job_type, w);
    if (e.steps_per_s <= 0) continue;
    GpuOptionEstimate o;
    o.worker = table.workers()[w];
    o.steps_per_s = e.steps_per_s;
    o.basis = e.basis;
    o.typical_relative_error = e.typical_relative_error;
    o.duration_hours = request.total_steps / e.steps_per_s / 3600;
    o.usd_per_job = o.duration_hours * jt.scale_factor * request.price_usd_per_hour[w];
    if (peaks[w].peak_fp32_flops > 0) {
      best_efficiency = std::max(best_efficiency, e.steps_per_s / peaks[w].peak_fp32_flops);
    }
    std::vector<double> kept;
    for (int b = 0; b < table.num_job_types(); ++b) {
      if (b == request.job_type || table.job_types()[b].scale_factor != jt.scale_factor) continue;
      if (table.Isolated(b, w) <= 0) continue;
      const ColocationEstimate c = colocation.Estimate(w, request.job_type, b);
      if (c.feasible) kept.push_back(c.self_norm);
    }
    if (!kept.empty()) o.colocation_penalty = 1 - Median(kept);
    o.meets_deadline = request.objective != GpuObjective::kCheapestMeetingDeadline ||
                       o.duration_hours <= request.deadline_hours;
    out.options.push_back(o);
  }
  if (out.options.empty()) return FailedPreconditionError("no GPU type can run " + jt.name);
  for (size_t i = 0; i < out.options.size(); ++i) {
    GpuOptionEstimate& o = out.options[i];
    const int w = table.FindWorker(o.worker);
    const double efficiency =
        best_efficiency > 0 ? (o.steps_per_s / peaks[w].peak_fp32_flops) / best_efficiency : 0;
    const double effective_tflops = peaks[w].peak_fp32_flops / 1e12 * efficiency;
    if (effective_tflops > 0) {
      o.usd_per_effective_tflop = request.price_usd_per_hour[w] / (effective_tflops * 3600);
    }
  }
  // Pick.
  int best = -1;
  for (size_t i = 0; i < out.options.size(); ++i) {
    const GpuOptionEstimate& o = out.options[i];
    if (!o.meets_deadline) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const GpuOptionEstimate& b = out.options[best];
    const bool better = request.objective == GpuObjective::kFastest
                            ? o.duration_hours < b.duration_hours
                            : o.usd_per_job < b.usd_per_job;
    if (better) best = static_cast<int>(i);
  }
  out.chosen = best;
  if (best < 0) {
    const auto fastest = std::min_element(out.options.begin(), out.options.end(),
                                          [](const auto& a, const auto& b) { return a.duration_hours < b.duration_hours; });
    out.reason = "no GPU type meets the " + Hours(request.deadline_hours) + " deadline; the fastest, " +
                 fastest->worker + ", needs " + Hours(fastest->duration_hours);
    return out;
  }
  const GpuOptionEstimate& c = out.options[best];
  // The runner-up on the other axis makes the reason concrete.
  const auto fastest = std::min_element(out.options.begin(), out.options.end(),
                                        [](const auto& a, const auto& b) { return a.duration_hours < b.duration_hours; });
  const auto cheapest = std::min_element(out.options.begin(), out.options.end(),
                                         [](const auto& a, const auto& b) { return a.usd_per_job < b.usd_per_job; });
  switch (request.objective) {
    case GpuObjective::kFastest:
      out.reason = c.worker + " is fastest (" + Hours(c.duration_hours) + ", " + Money(c.usd_per_job) + ")";
      if (cheapest->worker != c.worker) {
        out.reason += "; " + cheapest->worker + " would cost " + Money(cheapest->usd_per_job) + " but take " +
                      Hours(cheapest->duration_hours);
      }
      break;
    case GpuObjective::kCheapestPerJob:
    case GpuObjective::kCheapestMeetingDeadline:
      out.reason = c.worker + " is cheapest per job" +
                   std::string(request.objective == GpuObjective::kCheapestMeetingDeadline
                                   ? " within the " + Hours(request.deadline_hours) + " deadline"
                                   : "") +
                   " (" + Money(c.usd_per_job) + ", " + Hours(c.duration_hours) + ")";
      if (fastest->worker != c.worker) {
        out.reason += "; " + fastest->worker + " would take " + Hours(fastest->duration_hours) + " for " +
                      Money(fastest->usd_per_job);
      }
      break;
  }
  if (c.basis != ThroughputBasis::kMeasured) {
    out.reason += " [throughput " + std::string(ThroughputBasisName(c.basis)) + "]";
  }
  return out;
}

}  // namespace gpufleet::place
