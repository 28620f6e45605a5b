#include "plan/ttft_bound.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace gpufleet::plan {

int ForcedTtftMisses(const TtftBoundInput& in, int instances) {
  const size_t n = in.work_s.size();
  int hopeless = 0;
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    if (in.work_s[i] > in.ttft_s) {
      ++hopeless;  // missed anyway: its work need not fit any run
    } else {
      w[i] = in.work_s[i];
    }
  }
  if (hopeless > in.max_misses) return hopeless;
  const int budget = in.max_misses - hopeless;
  const size_t max_run = static_cast<size_t>(std::max(1, in.max_run));
  // A run i..j overflows when W[j+1] - W[i] > N (a[j] - a[i] + ttft), W the
  // prefix sums of the works, i.e. when g[j] = W[j+1] - N a[j] exceeds
  // W[i] - N a[i] + N ttft. The largest g over the runs from i (a sliding
  // maximum) skips the starts whose runs all fit, which at enough instances
  // are nearly all. A filter only: close calls take the exact walk below,
  // whose sums round differently, so the answer does not change.
  std::vector<double> prefix(n + 1, 0.0), g(n);
  double scale = 0;
  for (size_t j = 0; j < n; ++j) {
    prefix[j + 1] = prefix[j] + w[j];
    g[j] = prefix[j + 1] - instances * in.arrival_s[j];
    scale = std::max(scale, std::fabs(in.arrival_s[j]));
  }
  const double tolerance = 1e-9 * (prefix[n] + instances * (scale + in.ttft_s));
  std::deque<size_t> window;  // indices of g in [i, i + max_run), g decreasing
  size_t pushed = 0;
  // best[j]: the most misses forced on arrivals 0..j-1 by some partition.
  std::vector<int> best(n + 1, 0);
  std::vector<double> largest;  // the run's largest works, largest first (built on demand)
  for (size_t i = 0; i < n; ++i) {
    best[i + 1] = std::max(best[i + 1], best[i]);
    for (; pushed < std::min(n, i + max_run); ++pushed) {
      while (!window.empty() && g[window.back()] <= g[pushed]) window.pop_back();
      window.push_back(pushed);
    }
    while (window.front() < i) window.pop_front();
    const double threshold = prefix[i] - instances * (in.arrival_s[i] - in.ttft_s);
    if (g[window.front()] < threshold - tolerance) continue;
    double sum = 0;
    bool sorted = false;
    // The count below reads at most this many of the largest works.
    const size_t keep = static_cast<size_t>(budget - best[i] + 1);
    const size_t end = std::min(n, i + max_run);
    for (size_t j = i; j < end; ++j) {
      sum += w[j];
      if (sorted && (largest.size() < keep || w[j] > largest.back())) {
        largest.insert(std::upper_bound(largest.begin(), largest.end(), w[j], std::greater<>()),
                       w[j]);
        if (largest.size() > keep) largest.pop_back();
      }
      const double capacity = instances * (in.arrival_s[j] - in.arrival_s[i] + in.ttft_s);
      if (sum <= capacity) continue;
      if (!sorted) {
        largest.assign(w.begin() + static_cast<std::ptrdiff_t>(i),
                       w.begin() + static_cast<std::ptrdiff_t>(j + 1));
        const auto top =
            largest.begin() + static_cast<std::ptrdiff_t>(std::min(keep, largest.size()));
        std::partial_sort(largest.begin(), top, largest.end(), std::greater<>());
        largest.erase(top, largest.end());
        sorted = true;
      }
      double excess = sum - capacity;
      int k = 0;
      while (excess > 0 && k < static_cast<int>(largest.size()) && best[i] + k <= budget) {
        excess -= largest[static_cast<size_t>(k)];
        ++k;
      }
      best[j + 1] = std::max(best[j + 1], best[i] + k);
      if (best[j + 1] > budget) return hopeless + best[j + 1];
    }
  }
  return hopeless + best[n];
}

StatusOr<TtftBound> FewestTtftInstances(const TtftBoundInput& in) {
  if (in.arrival_s.size() != in.work_s.size())
    return InvalidArgumentError("TTFT bound: arrivals and works differ in length");
  if (!(in.ttft_s > 0)) return InvalidArgumentError("TTFT bound: the TTFT must be positive");
  for (size_t i = 0; i < in.work_s.size(); ++i) {
    if (!std::isfinite(in.arrival_s[i]) || !std::isfinite(in.work_s[i]) || in.work_s[i] < 0)
      return InvalidArgumentError("TTFT bound: request " + std::to_string(i) +
                                  " has a non-finite arrival or a negative work");
    if (i > 0 && in.arrival_s[i] < in.arrival_s[i - 1])
      return InvalidArgumentError("TTFT bound: arrivals out of order at request " +
                                  std::to_string(i));
  }
  TtftBound b;
  for (double w : in.work_s) b.hopeless += w > in.ttft_s ? 1 : 0;
  if (b.hopeless > in.max_misses)
    return FailedPreconditionError("TTFT bound: " + std::to_string(b.hopeless) +
                                   " prompts take longer than the TTFT on one instance; " +
                                   std::to_string(in.max_misses) + " may miss");
  auto enough = [&](int n) { return ForcedTtftMisses(in, n) <= in.max_misses; };
  int lo = 1, hi = 1;  // invariant once found: enough(hi), !enough(lo - 1)
  while (!enough(hi)) {
    lo = hi + 1;
    if (hi >= in.max_instances)
      return FailedPreconditionError("TTFT bound: more than " + std::to_string(in.max_instances) +
                                     " instances");
    hi = std::min(in.max_instances, 2 * hi);
  }
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (enough(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  b.instances = hi;
  return b;
}

}  // namespace gpufleet::plan
