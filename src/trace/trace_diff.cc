#include "trace/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "trace/analysis_internal.h"

namespace gpufleet::trace {
namespace {

using internal::Interval;

// Per-op facts of one trace needed for the diff.
struct Side {
  int64_t wall_ns = 0;
  int64_t sync_wait_ns = 0;
  // (rank key, name) -> device op indices in start order.
  std::map<std::pair<int64_t, std::string_view>, std::vector<uint32_t>> ops;
  std::vector<int64_t> start_delay;  // per event; -1 when the op has no linked launch
};

int64_t RankKey(const Timeline& t, uint32_t process) {
  int rank = t.processes[process].rank;
  return rank >= 0 ? rank : -1 - static_cast<int64_t>(process);
}

Side Prepare(const Timeline& t) {
  Side s;
  internal::Context c = internal::BuildContext(t);
  s.start_delay.assign(t.events.size(), -1);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const Event& e : t.events) {
    first = std::min(first, e.start_ns);
    last = std::max(last, e.end_ns());
  }
  if (!t.events.empty()) s.wall_ns = last - first;
  std::vector<std::vector<Interval>> pending(t.processes.size());
  std::vector<std::vector<Interval>> syncs(t.processes.size());
  std::unordered_map<uint32_t, int64_t> prev_end;  // per device queue track
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      s.ops[{RankKey(t, p), t.name(e)}].push_back(i);
      uint32_t launch = c.LaunchOf(t, e);
      auto [it, fresh] = prev_end.try_emplace(e.track, INT64_MIN);
      if (launch != UINT32_MAX) {
        int64_t ready = std::max(t.events[launch].end_ns(), it->second);
        s.start_delay[i] = std::max<int64_t>(0, e.start_ns - ready);
        pending[p].push_back({t.events[launch].start_ns, e.end_ns()});
      } else {
        pending[p].push_back({e.start_ns, e.end_ns()});
      }
      it->second = std::max(it->second, e.end_ns());
    }
  }
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kSync)
      syncs[t.tracks[e.track].process].push_back({e.start_ns, e.end_ns()});
  }
  for (size_t p = 0; p < t.processes.size(); ++p) {
    internal::MergeIntervals(pending[p]);
    int64_t sync_total = internal::MergeIntervals(syncs[p]);
    s.sync_wait_ns += sync_total - internal::IntersectionLength(syncs[p], pending[p]);
  }
  return s;
}

}  // namespace

TraceDiffReport DiffTraces(const Timeline& base, const Timeline& contended,
                           const AnalysisOptions& /*options*/) {
  TraceDiffReport d;
  Side b = Prepare(base);
  Side c = Prepare(contended);
  d.base_wall_ns = b.wall_ns;
  d.contended_wall_ns = c.wall_ns;
  d.delta_wall_ns = c.wall_ns - b.wall_ns;
  d.partial = base.partial() || contended.partial();
  if (d.partial) d.notes.push_back("an input was imported partially");

  int64_t start_delay = 0, duration = 0, copy = 0;
  int64_t copy_bytes_b = 0, copy_ns_b = 0, copy_bytes_c = 0, copy_ns_c = 0;
  for (const auto& [key, base_ops] : b.ops) {
    auto it = c.ops.find(key);
    size_t n_c = it == c.ops.end() ? 0 : it->second.size();
    size_t n = std::min(base_ops.size(), n_c);
    d.unmatched_base_ops += base_ops.size() - n;
    if (n == 0) continue;
    const std::vector<uint32_t>& cont_ops = it->second;
    d.unmatched_contended_ops += n_c - n;
    d.matched_ops += n;
    KernelDelta kd;
    kd.name = std::string(key.second);
    kd.kind = base.events[base_ops[0]].kind;
    kd.matched = n;
    int64_t sum_b = 0, sum_c = 0;
    for (size_t k = 0; k < n; ++k) {
      const Event& eb = base.events[base_ops[k]];
      const Event& ec = contended.events[cont_ops[k]];
      sum_b += eb.dur_ns;
      sum_c += ec.dur_ns;
      int64_t sd_b = b.start_delay[base_ops[k]], sd_c = c.start_delay[cont_ops[k]];
      if (sd_b >= 0 && sd_c >= 0) start_delay += sd_c - sd_b;
      if (eb.kind == EventKind::kMemcpy) {
        copy += ec.dur_ns - eb.dur_ns;
        if (eb.bytes > 0 && ec.bytes > 0) {
          copy_bytes_b += eb.bytes;
          copy_ns_b += eb.dur_ns;
          copy_bytes_c += ec.bytes;
          copy_ns_c += ec.dur_ns;
        }
      } else {
        duration += ec.dur_ns - eb.dur_ns;
      }
    }
    kd.base_mean_ns = static_cast<double>(sum_b) / static_cast<double>(n);
    kd.contended_mean_ns = static_cast<double>(sum_c) / static_cast<double>(n);
    kd.growth_ns = sum_c - sum_b;
    d.kernels.push_back(std::move(kd));
  }
  for (const auto& [key, cont_ops] : c.ops) {
    if (!b.ops.contains(key)) d.unmatched_contended_ops += cont_ops.size();
  }
  std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelDelta& x, const KernelDelta& y) {
    if (std::llabs(x.growth_ns) != std::llabs(y.growth_ns)) {
      return std::llabs(x.growth_ns) > std::llabs(y.growth_ns);
    }
    return x.name < y.name;
  });
  if (copy_ns_b > 0) d.base_copy_bytes_per_s = 1e9 * static_cast<double>(copy_bytes_b) / copy_ns_b;
  if (copy_ns_c > 0) {
    d.contended_copy_bytes_per_s = 1e9 * static_cast<double>(copy_bytes_c) / copy_ns_c;
  }
  if (d.unmatched_base_ops + d.unmatched_contended_ops > 0) {
    d.notes.push_back(std::to_string(d.unmatched_base_ops) + " base and " +
                      std::to_string(d.unmatched_contended_ops) +
                      " contended device ops had no partner (different op counts)");
  }

  d.components = {{"start_delay", start_delay, 0, 0},
                  {"duration", duration, 0, 0},
                  {"copy", copy, 0, 0},
                  {"sync_wait", c.sync_wait_ns - b.sync_wait_ns, 0, 0}};
  double positive = 0;
  for (const DiffComponent& comp : d.components) positive += std::max<int64_t>(0, comp.raw_ns);
  double delta = static_cast<double>(d.delta_wall_ns);
  // Growth on concurrent queues overlaps in wall time; scale the positive
  // parts so the explained part never exceeds the observed growth.
  if (delta > 0 && positive > delta) {
    d.scale = delta / positive;
    d.notes.push_back("category growth exceeds wall-time growth (concurrent queues); scaled by " +
                      std::to_string(d.scale));
  }
  double explained = 0;
  for (DiffComponent& comp : d.components) {
    double raw = static_cast<double>(comp.raw_ns);
    comp.attributed_ns = raw > 0 ? raw * d.scale : raw;
    explained += comp.attributed_ns;
  }
  DiffComponent rest{"unexplained", 0, delta - explained, 0};
  rest.raw_ns = static_cast<int64_t>(std::llround(rest.attributed_ns));
  d.components.push_back(rest);
  for (DiffComponent& comp : d.components) {
    comp.share = delta != 0 ? comp.attributed_ns / delta : 0;
  }
  return d;
}

}  // namespace gpufleet::trace
