// HTA get_potential_stragglers: per iteration, the metric of a rank is the
// normalized start time of the last "long" communication kernel (>= 1% of the
// mean iteration time) of the (queue, kernel name) whose duration varies most
// across ranks; collectives end together, so the latest starter held the
// others back. The top-k latest starters of each iteration are stragglers.
//
// Iterations come from ProfilerStep#N annotations (a comm kernel belongs to
// the step containing its launch call, or itself when unlinked). Without
// them, the k-th occurrence of a comm kernel on each rank is taken as the same
// collective ("collective_order" fallback, no duration filter).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>

#include "trace/analysis_internal.h"

namespace gpufleet::trace::internal {
namespace {

constexpr double kMinNormalizedDuration = 0.01;  // HTA min_normalized_duration

struct Step {
  int64_t iter;
  int64_t start_ns;
  int64_t end_ns;
};

// "ProfilerStep#12" -> 12; -1 otherwise.
int64_t StepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  int64_t n = -1;
  auto tail = name.substr(kPrefix.size());
  auto [ptr, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), n);
  return ec == std::errc() ? n : -1;
}

struct CommOp {
  int64_t queue;
  StringId name;
  int64_t iter;
  uint32_t process;
  int64_t start_ns;
  int64_t dur_ns;
};

double StdDev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

}  // namespace

void StragglerAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                       AnalysisReport& r) {
  StragglerReport& s = r.stragglers;
  // Steps per process, sorted by start.
  std::vector<std::vector<Step>> steps(t.processes.size());
  for (const Event& e : t.events) {
    if (e.kind != EventKind::kAnnotation && e.kind != EventKind::kCpuOp) continue;
    int64_t n = StepNumber(t.name(e));
    if (n >= 0) steps[t.tracks[e.track].process].push_back({n, e.start_ns, e.end_ns()});
  }
  bool have_steps = std::any_of(steps.begin(), steps.end(), [](auto& v) { return !v.empty(); });
  s.method = have_steps ? "profiler_steps" : "collective_order";

  std::vector<CommOp> ops;
  int64_t t_min = INT64_MAX, t_max = INT64_MIN;
  std::map<int64_t, int> iter_set;
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    std::map<std::pair<int64_t, StringId>, int64_t> occurrence;  // fallback counter
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      t_min = std::min(t_min, e.start_ns);
      t_max = std::max(t_max, e.end_ns());
      if (!IsComm(e.kind)) continue;
      int64_t queue = t.tracks[e.track].queue;
      int64_t iter = -1;
      if (have_steps) {
        uint32_t launch = c.LaunchOf(t, e);
        int64_t when = launch == UINT32_MAX ? e.start_ns : t.events[launch].start_ns;
        const auto& ps = steps[p];
        auto it = std::upper_bound(ps.begin(), ps.end(), when,
                                   [](int64_t x, const Step& st) { return x < st.start_ns; });
        if (it != ps.begin() && when < std::prev(it)->end_ns) iter = std::prev(it)->iter;
      } else {
        iter = occurrence[{queue, e.name}]++;
      }
      if (iter < 0) continue;
      iter_set[iter] = 0;
      ops.push_back({queue, e.name, iter, p, e.start_ns, e.dur_ns});
    }
  }
  if (have_steps) {
    t_min = INT64_MAX;
    t_max = INT64_MIN;
    for (const auto& ps : steps) {
      for (const Step& st : ps) {
        t_min = std::min(t_min, st.start_ns);
        t_max = std::max(t_max, st.end_ns);
      }
    }
  }
  std::map<uint32_t, int> ranks_with_comm;
  for (const CommOp& op : ops) ranks_with_comm[op.process] = 0;
  if (ranks_with_comm.size() < 2 || t_max <= t_min) {
    r.notes.push_back("stragglers: need communication kernels on at least two ranks");
    return;
  }
  s.iterations = static_cast<int>(iter_set.size());
  double span = static_cast<double>(t_max - t_min);
  s.mean_iteration_ns = span / std::max(1, s.iterations);
  double min_dur = have_steps ? s.mean_iteration_ns * kMinNormalizedDuration : 0;
  std::erase_if(ops, [&](const CommOp& op) { return static_cast<double>(op.dur_ns) < min_dur; });

  // Last long kernel per (queue, name, iter, process).
  std::sort(ops.begin(), ops.end(), [](const CommOp& a, const CommOp& b) {
    return std::tie(a.queue, a.name, a.iter, a.process, a.start_ns) <
           std::tie(b.queue, b.name, b.iter, b.process, b.start_ns);
  });
  std::vector<CommOp> last;
  for (size_t i = 0; i < ops.size(); ++i) {
    bool end_of_group =
        i + 1 == ops.size() ||
        std::tie(ops[i].queue, ops[i].name, ops[i].iter, ops[i].process) !=
            std::tie(ops[i + 1].queue, ops[i + 1].name, ops[i + 1].iter, ops[i + 1].process);
    if (end_of_group) last.push_back(ops[i]);
  }
  // (queue, name) with the largest mean (over iterations) cross-rank std of duration.
  double best = -1;
  std::pair<int64_t, StringId> chosen{-1, kNoString};
  for (size_t i = 0; i < last.size();) {
    size_t j = i;
    double std_sum = 0;
    int iters = 0;
    while (j < last.size() && last[j].queue == last[i].queue && last[j].name == last[i].name) {
      size_t k = j;
      std::vector<double> durs;
      while (k < last.size() && last[k].queue == last[j].queue && last[k].name == last[j].name &&
             last[k].iter == last[j].iter) {
        durs.push_back(static_cast<double>(last[k].dur_ns) / s.mean_iteration_ns);
        ++k;
      }
      if (durs.size() >= 2) {
        std_sum += StdDev(durs);
        ++iters;
      }
      j = k;
    }
    if (iters > 0 && std_sum / iters > best) {
      best = std_sum / iters;
      chosen = {last[i].queue, last[i].name};
    }
    i = j;
  }
  if (best < 0) {
    r.notes.push_back("stragglers: no communication kernel appears on two ranks in one iteration");
    return;
  }
  s.computed = true;
  s.queue = chosen.first;
  s.kernel = std::string(t.strings.Get(chosen.second));
  std::map<uint32_t, StragglerRank> per_rank;
  std::map<uint32_t, int> samples;
  int k_top = std::max(1, o.straggler_candidates);
  for (size_t i = 0; i < last.size();) {
    size_t j = i;
    while (j < last.size() && last[j].iter == last[i].iter && last[j].queue == last[i].queue &&
           last[j].name == last[i].name) {
      ++j;
    }
    if (last[i].queue == chosen.first && last[i].name == chosen.second) {
      std::vector<double> metric;
      for (size_t k = i; k < j; ++k) {
        metric.push_back(static_cast<double>(last[k].start_ns - t_min) / s.mean_iteration_ns);
      }
      std::vector<double> sorted = metric;
      std::sort(sorted.rbegin(), sorted.rend());
      double threshold = sorted[std::min(sorted.size(), static_cast<size_t>(k_top)) - 1];
      for (size_t k = i; k < j; ++k) {
        StragglerRank& sr = per_rank[last[k].process];
        sr.process = last[k].process;
        sr.rank = t.processes[last[k].process].rank;
        sr.mean_normalized_start += metric[k - i];
        ++samples[last[k].process];
        if (metric[k - i] >= threshold) ++sr.times_straggler;
      }
    }
    i = j;
  }
  if (static_cast<size_t>(k_top) >= per_rank.size()) {
    r.notes.push_back("stragglers: " + std::to_string(k_top) + " candidates per iteration with " +
                      std::to_string(per_rank.size()) +
                      " ranks flags every rank; lower straggler_candidates");
  }
  for (auto& [p, sr] : per_rank) {
    sr.mean_normalized_start /= std::max(1, samples[p]);
    s.ranks.push_back(sr);
  }
}

}  // namespace gpufleet::trace::internal
