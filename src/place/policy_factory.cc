#include <cctype>
#include <cmath>

#include "core/strings.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

StatusOr<std::unique_ptr<PlacementPolicy>> MakeOne(std::string_view name,
                                                   const TargetWorkload& target) {
  std::string n = ToLower(TrimWhitespace(name));
  if (n == "random") return NewRandomPolicy();
  if (n == "dotprod") return NewDotProdPolicy();
  if (n == "gpuclustering" || n == "clustering") return NewGpuClusteringPolicy();
  if (n == "gpupacking" || n == "packing") return NewGpuPackingPolicy();
  if (n == "bestfit") return NewBestFitPolicy();
  if (n == "fgd") return NewFgdPolicy(target);
  if (n == "gpufleet") return NewGpufleetPolicy(target);
  std::string known;
  for (const std::string& k : PolicyNames()) known += (known.empty() ? "" : ", ") + k;
  return InvalidArgumentError("unknown policy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> kNames = {"random",  "dotprod", "gpuclustering",
                                                  "gpupacking", "bestfit", "fgd", "gpufleet"};
  return kNames;
}

StatusOr<std::unique_ptr<PlacementPolicy>> MakePolicy(std::string_view spec,
                                                      const TargetWorkload& target) {
  if (spec.find(':') == std::string_view::npos && spec.find(',') == std::string_view::npos) {
    return MakeOne(spec, target);
  }
  std::vector<std::pair<double, std::unique_ptr<PlacementPolicy>>> parts;
  for (std::string_view part : SplitString(spec, ',')) {
    size_t colon = part.find(':');
    double w = 1;
    std::string_view name = part;
    if (colon != std::string_view::npos) {
      name = part.substr(0, colon);
      std::optional<double> parsed = ParseDouble(TrimWhitespace(part.substr(colon + 1)));
      if (!parsed || !(*parsed >= 0) || !std::isfinite(*parsed)) {
        return InvalidArgumentError("policy weight in '" + std::string(part) +
                                    "' is not a non-negative number");
      }
      w = *parsed;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> p, MakeOne(name, target));
    parts.emplace_back(w, std::move(p));
  }
  if (parts.empty()) return InvalidArgumentError("empty policy specification");
  return NewWeightedPolicy(std::move(parts));
}

}  // namespace gpufleet::place
