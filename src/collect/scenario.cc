#include "collect/scenario.h"

#include <algorithm>

#include "core/embedded.h"
#include "core/file_util.h"

namespace gpufleet {

std::string_view WorkloadKindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kTraining:
      return "training";
    case WorkloadKind::kInference:
      return "inference";
    case WorkloadKind::kBatch:
      return "batch";
  }
  return "training";
}

std::string_view EpisodeKindName(EpisodeKind kind) {
  switch (kind) {
    case EpisodeKind::kMemoryContention:
      return "memory_contention";
    case EpisodeKind::kBandwidthSaturation:
      return "bandwidth_saturation";
    case EpisodeKind::kCoherency:
      return "coherency";
    case EpisodeKind::kThermalThrottle:
      return "thermal_throttle";
    case EpisodeKind::kPowerCap:
      return "power_cap";
    case EpisodeKind::kGpuLost:
      return "gpu_lost";
    case EpisodeKind::kXid:
      return "xid";
    case EpisodeKind::kEcc:
      return "ecc";
    case EpisodeKind::kHang:
      return "hang";
  }
  return "memory_contention";
}

bool ScenarioEpisode::Targets(size_t node_index, int gpu) const {
  if (node_index != node) return false;
  return gpus.empty() || std::find(gpus.begin(), gpus.end(), gpu) != gpus.end();
}

StatusOr<Scenario> LoadScenario(std::string_view path_or_default) {
  if (path_or_default == "default") {
    auto text = FindEmbeddedFile("scenarios/default.toml");
    if (!text) return NotFoundError("the embedded scenarios/default.toml is missing");
    return ParseScenario(*text, "data/scenarios/default.toml");
  }
  std::string path(path_or_default);
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseScenario(text, path);
}

}  // namespace gpufleet
