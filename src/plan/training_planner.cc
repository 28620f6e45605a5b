#include "plan/training_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <queue>

namespace gpufleet::plan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int CapOf(const TrainRank& r, int total) { return r.cap > 0 ? std::min(r.cap, total) : total; }

Split DataSplit(const TrainingJob& job, const std::vector<int>& ranks) {
  Split s;
  s.ranks = ranks;
  s.units.assign(ranks.size(), 0);
  using Item = std::pair<double, size_t>;  // finish time after one more, slot
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  for (size_t i = 0; i < ranks.size(); ++i) pq.push({job.ranks[ranks[i]].unit_s, i});
  int left = job.microbatches;
  while (left > 0 && !pq.empty()) {
    auto [t, i] = pq.top();
    pq.pop();
    const TrainRank& r = job.ranks[ranks[i]];
    ++s.units[i];
    --left;
    if (s.units[i] < CapOf(r, job.microbatches)) pq.push({(s.units[i] + 1) * r.unit_s, i});
  }
  s.feasible = left == 0;
  s.step_s = s.feasible ? StepTime(job, s.ranks, s.units) : kInf;
  return s;
}

// Greedy fill of contiguous stages with at most `t` per stage; true when
// every layer is placed.
bool FillStages(const TrainingJob& job, const std::vector<int>& ranks, double t,
                std::vector<int>* units) {
  units->assign(ranks.size(), 0);
  int left = job.layers;
  for (size_t i = 0; i < ranks.size() && left > 0; ++i) {
    const TrainRank& r = job.ranks[ranks[i]];
    int fit = static_cast<int>(std::floor(t / r.unit_s * (1 + 1e-12)));
    fit = std::min({fit, CapOf(r, job.layers), left});
    (*units)[i] = fit;
    left -= fit;
  }
  return left == 0;
}

Split PipelineSplit(const TrainingJob& job, const std::vector<int>& ranks) {
  Split s;
  s.ranks = ranks;
  std::vector<double> cands;
  for (int ri : ranks) {
    for (int k = 1; k <= job.layers; ++k) cands.push_back(k * job.ranks[ri].unit_s);
  }
  std::sort(cands.begin(), cands.end());
  // Feasibility is monotone in t: binary search the sorted candidates.
  size_t lo = 0, hi = cands.size();
  std::vector<int> units;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (FillStages(job, ranks, cands[mid], &units))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == cands.size()) {
    s.feasible = false;
    s.units.assign(ranks.size(), 0);
    s.step_s = kInf;
    return s;
  }
  FillStages(job, ranks, cands[lo], &s.units);
  s.step_s = StepTime(job, s.ranks, s.units);
  return s;
}

Split EvenSplit(const TrainingJob& job, const std::vector<int>& ranks) {
  Split s;
  s.ranks = ranks;
  int total = job.mode == TrainMode::kData ? job.microbatches : job.layers;
  int n = static_cast<int>(ranks.size());
  for (int i = 0; i < n; ++i) {
    int u = total / n + (i < total % n ? 1 : 0);
    s.units.push_back(u);
    const TrainRank& r = job.ranks[ranks[i]];
    if (r.cap > 0 && u > r.cap) s.feasible = false;
  }
  s.step_s = StepTime(job, s.ranks, s.units);
  return s;
}

std::string Describe(const TrainingJob& job, const Split& s) {
  std::map<std::string, std::pair<int, std::vector<int>>> per_type;
  for (size_t i = 0; i < s.ranks.size(); ++i) {
    auto& e = per_type[job.ranks[s.ranks[i]].gpu_type];
    ++e.first;
    e.second.push_back(s.units[i]);
  }
  std::string out;
  for (const auto& [type, e] : per_type) {
    auto [mn, mx] = std::minmax_element(e.second.begin(), e.second.end());
    if (!out.empty()) out += ", ";
    out += std::to_string(e.first) + "x " + type + " " + std::to_string(*mn);
    if (*mx != *mn) out += "-" + std::to_string(*mx);
  }
  return out + (job.mode == TrainMode::kData ? " micro-batches each" : " layers each");
}

}  // namespace

double StepTime(const TrainingJob& job, const std::vector<int>& ranks,
                const std::vector<int>& units) {
  double worst = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    worst = std::max(worst, units[i] * job.ranks[ranks[i]].unit_s);
  }
  if (job.mode == TrainMode::kData) return worst + job.allreduce_s;
  double stages =
      static_cast<double>(std::count_if(units.begin(), units.end(), [](int u) { return u > 0; }));
  return (job.microbatches + stages - 1) * worst;
}

StatusOr<TrainingPlan> PlanTraining(const TrainingJob& job) {
  if (job.ranks.empty()) return InvalidArgumentError("training job: no ranks");
  if (job.microbatches < 1) return InvalidArgumentError("training job: microbatches must be >= 1");
  if (job.mode == TrainMode::kPipeline && job.layers < 1) {
    return InvalidArgumentError("training job: pipeline needs layers >= 1");
  }
  if (job.mode == TrainMode::kPipeline && static_cast<int>(job.ranks.size()) > job.layers) {
    return InvalidArgumentError("training job: more pipeline stages than layers");
  }
  for (const TrainRank& r : job.ranks) {
    if (!(r.unit_s > 0) || !std::isfinite(r.unit_s)) {
      return InvalidArgumentError("training job: rank '" + r.name + "' has no positive time");
    }
    if (r.cap < 0) return InvalidArgumentError("training job: rank '" + r.name + "' cap < 0");
  }
  std::vector<int> all(job.ranks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  auto split = [&](const std::vector<int>& ranks) {
    return job.mode == TrainMode::kData ? DataSplit(job, ranks) : PipelineSplit(job, ranks);
  };
  TrainingPlan plan;
  plan.planned = split(all);
  if (!plan.planned.feasible) {
    return InvalidArgumentError("training job: the ranks' caps (memory) cannot hold the work");
  }
  plan.even = EvenSplit(job, all);
  // Fastest homogeneous subset, split evenly (what one would run without a planner).
  std::map<std::string, std::vector<int>> by_type;
  for (int i : all) by_type[job.ranks[i].gpu_type].push_back(i);
  plan.homogeneous.step_s = kInf;
  plan.homogeneous.feasible = false;
  for (const auto& [type, ranks] : by_type) {
    if (job.mode == TrainMode::kPipeline && static_cast<int>(ranks.size()) > job.layers) continue;
    Split s = EvenSplit(job, ranks);
    if (s.feasible && s.step_s < plan.homogeneous.step_s) {
      plan.homogeneous = s;
      plan.homogeneous_type = type;
    }
  }
  // Continuous lower bound: work spread in proportion to speed.
  double total = job.mode == TrainMode::kData ? job.microbatches : job.layers;
  double rate = 0;
  for (const TrainRank& r : job.ranks) rate += 1.0 / r.unit_s;
  plan.bound_s =
      job.mode == TrainMode::kData
          ? total / rate + job.allreduce_s
          : (job.microbatches + static_cast<double>(job.ranks.size()) - 1) * total / rate;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "Split %s: step %.3f s, %.2fx faster than the even split (%.3f s%s) and %.2fx "
                "faster than the fastest homogeneous subset (%s alone, %.3f s); %.1f%% above the "
                "continuous lower bound %.3f s.",
                Describe(job, plan.planned).c_str(), plan.planned.step_s,
                plan.even.step_s / plan.planned.step_s, plan.even.step_s,
                plan.even.feasible ? "" : ", exceeds a memory cap",
                plan.homogeneous.step_s / plan.planned.step_s,
                plan.homogeneous_type.empty() ? "none fits" : plan.homogeneous_type.c_str(),
                plan.homogeneous.step_s, 100 * (plan.planned.step_s / plan.bound_s - 1),
                plan.bound_s);
  plan.summary = buf;
  return plan;
}

}  // namespace gpufleet::plan
