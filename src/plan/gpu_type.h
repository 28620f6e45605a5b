// GPU types the planners may buy (data/plan/gpus.toml): a hardware catalog
// entry (peaks), a price per GPU-hour and an optional power cap.
//
// Thread safety: plain values; the default table is immutable after load.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "plan/latency_model.h"

namespace gpufleet::plan {

struct GpuType {
  std::string key;       // "h100-pcap"
  std::string hardware;  // hardware catalog key, "h100-sxm"
  double price_usd_per_hour = 0;
  double power_cap = 1;  // fraction of TDP
  GpuPeaks peaks;        // from the hardware catalog
};

StatusOr<std::vector<GpuType>> ParseGpuTypes(std::string_view toml, std::string_view origin);
const std::vector<GpuType>& DefaultGpuTypes();
// "key" (a default type) or "key:price" or "catalog-key:price" (any GPU of
// data/hardware.toml at that price). InvalidArgument names the spec.
StatusOr<GpuType> ResolveGpuType(std::string_view spec);
// Peaks of a hardware catalog entry; NotFound for an unknown key.
StatusOr<GpuPeaks> PeaksOf(std::string_view hardware_key);

}  // namespace gpufleet::plan
