#include "plan/ttft_bound.h"

#include <algorithm>
#include <cmath>
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
  // best[j]: the most misses forced on arrivals 0..j-1 by some partition.
  std::vector<int> best(n + 1, 0);
  std::vector<double> largest;  // the run's works, largest first (built on demand)
  for (size_t i = 0; i < n; ++i) {
    best[i + 1] = std::max(best[i + 1], best[i]);
    double sum = 0;
    bool sorted = false;
    const size_t end = std::min(n, i + max_run);
    for (size_t j = i; j < end; ++j) {
      sum += w[j];
      if (sorted) {
        largest.insert(std::upper_bound(largest.begin(), largest.end(), w[j], std::greater<>()),
                       w[j]);
      }
      const double capacity = instances * (in.arrival_s[j] - in.arrival_s[i] + in.ttft_s);
      if (sum <= capacity) continue;
      if (!sorted) {
        largest.assign(w.begin() + static_cast<std::ptrdiff_t>(i),
                       w.begin() + static_cast<std::ptrdiff_t>(j + 1));
        std::sort(largest.begin(), largest.end(), std::greater<>());
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
