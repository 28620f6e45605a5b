#include "cost/shares.h"

#include <algorithm>
#include <charconv>

namespace gpufleet::cost {
namespace {

// An integer percent 0-100 from a label; -1 when absent or 0 (no limit).
StatusOr<double> Percent(const Holder& h, std::string_view label, const std::string& text) {
  if (text.empty()) return -1.0;
  int v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 100) {
    return InvalidArgumentError("holder '" + h.key + "': label " + std::string(label) + "='" +
                                text + "' is not an integer percent 0-100");
  }
  return v == 0 ? -1.0 : v / 100.0;
}

}  // namespace

StatusOr<double> HamiShare(const Holder& h) {
  ASSIGN_OR_RETURN(double cores, Percent(h, "workload_hami_gpucores", h.hami_gpucores));
  ASSIGN_OR_RETURN(double mem,
                   Percent(h, "workload_hami_gpumem_percentage", h.hami_gpumem_percentage));
  return std::max(cores, mem);
}

MinuteSplit SplitMinute(const std::vector<double>& shares,
                        const std::vector<double>& default_weights) {
  MinuteSplit out;
  out.weights = default_weights;
  double sum = 0;
  size_t unlimited = 0;
  for (double s : shares) {
    if (s > 0) {
      sum += s;
    } else {
      unlimited++;
    }
  }
  if (sum <= 0) return out;  // no HAMi holder in this minute
  if (unlimited == 0) {
    out.held = std::min(1.0, sum);
    out.weights = shares;
    return out;
  }
  // Holders without a limit split what the limited ones leave, by the
  // default weights among themselves.
  double rest = std::max(0.0, 1.0 - sum);
  double scale = sum > 1 ? 1.0 / sum : 1.0;
  double unlimited_w = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    if (shares[i] <= 0) unlimited_w += default_weights[i];
  }
  for (size_t i = 0; i < shares.size(); ++i) {
    if (shares[i] > 0) {
      out.weights[i] = shares[i] * scale;
    } else {
      out.weights[i] = unlimited_w > 0 ? rest * default_weights[i] / unlimited_w
                                       : rest / static_cast<double>(unlimited);
    }
  }
  return out;
}

}  // namespace gpufleet::cost
