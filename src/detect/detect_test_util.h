// Helpers for detect tests: hand-built window contents.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/labels.h"
#include "store/window_store.h"

namespace gpufleet::detect::testing {

inline constexpr int64_t kS = 1'000'000'000;
inline constexpr int64_t kT0 = 1'700'000'000LL * kS;

inline Labels DeviceLabels(std::string_view metric, std::string_view gpu,
                           std::string_view node = "n1", std::string_view cloud = "aws") {
  Labels l{{"__name__", std::string(metric)},
           {"node", std::string(node)},
           {"gpu", std::string(gpu)},
           {"model", "h100-sxm"},
           {"cloud", std::string(cloud)}};
  return l;
}

// Appends `metric` for device `gpu` every `step_s` seconds over
// [from_s, to_s) with value f(t_s).
inline void Fill(WindowStore& store, std::string_view metric, std::string_view gpu, int from_s,
                 int to_s, const std::function<double(int)>& f, int step_s = 10,
                 std::string_view node = "n1") {
  const Labels labels = DeviceLabels(metric, gpu, node);
  for (int t = from_s; t < to_s; t += step_s) store.Append(labels, kT0 + t * kS, f(t));
}

}  // namespace gpufleet::detect::testing
