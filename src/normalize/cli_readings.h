// Values read from a vendor CLI's output (amd-smi, xpumcli), per device, in
// base units (the parsers convert by the unit the output states). Private to
// normalize/: the parsers produce it, translate.cc feeds it to the Normalizer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "schema/device.h"

namespace gpufleet {

struct CliDevice {
  DeviceInfo device;
  // Identity beyond DeviceInfo: gpu_index, since CLI output rarely has a UUID.
  Labels identity;
  // field_errors counts "not_supported" (N/A, empty cells) per device.
  DeviceReadings readings;
};

struct CliParseResult {
  std::vector<CliDevice> devices;
  // Values skipped as malformed: "line 12: ..." or "$[0].power.x: ...".
  std::vector<std::string> errors;
};

// Multiplier from `unit` to the canonical base unit: % -> ratio, MB/MiB ->
// bytes (amd-smi "MB" is bytes / 2^20), MHz -> Hz, mW/uW -> W, mV -> V,
// uJ/mJ -> J, kB/s -> B/s (1000), KB -> bytes (1024), C -> Celsius. nullopt for
// a unit it does not know.
std::optional<double> UnitScale(std::string_view unit);

// "GPU Memory Used (MiB)" -> "gpu_memory_used"; "GFX_ACTIVITY" -> "gfx_activity".
std::string ReadingName(std::string_view text);

}  // namespace gpufleet
