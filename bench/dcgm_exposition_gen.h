// Generates a realistic dcgm-exporter /metrics body for benchmarks: the 25
// metrics of dcgm-exporter's default-counters.csv, each with HELP/TYPE and one
// line per GPU, labels as dcgm-exporter emits them with Kubernetes pod
// mapping (gpu, UUID, device, modelName, Hostname, container, namespace, pod),
// 8 GPUs per node, about 250 bytes per sample line. Deterministic per seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace gpufleet::bench {

struct DcgmExpositionShape {
  size_t gpus = 8;
  uint64_t seed = 1;
};

struct DcgmExpositionSize {
  size_t samples = 0;
  size_t bytes = 0;
};

// Calls `sink` with consecutive chunks (about 1 MiB each) of the exposition.
DcgmExpositionSize GenerateDcgmExposition(const DcgmExpositionShape& shape,
                                          const std::function<void(std::string_view)>& sink);

// The GPU count whose exposition is about `bytes` long (a multiple of 8).
size_t GpusForBytes(size_t bytes);

}  // namespace gpufleet::bench
