// Parser for `xpumcli stats` (Intel XPU Manager, legacy CLI) tables:
//
//   | GPU Power (W)              | Tile 0: avg: 44, min: 44, max: 44, current: 44 |
//
// Reading names come from the row name without its unit ("gpu_power");
// windowed statistics get a suffix (".avg", ".min", ".max", ".current");
// "total: N" is the device-level value of a per-tile row; "Engine N: v"
// carries label engine="N". Values are converted to base units by the unit in
// the row name (%, W, MHz, kB/s, MiB, J, Celsius Degree). Empty cells mean
// "unsupported" and count as not_supported. A device with only tile 0 is one
// device; with several tiles each tile becomes a partition device
// (intel_tile). Mapping: data/mappings/xpumcli.toml.
//
// Thread safety: pure function.
#pragma once

#include <string_view>

#include "core/status.h"
#include "normalize/cli_readings.h"

namespace gpufleet {

// Errors: InvalidArgument when no "| Device ID | N |" row is found; malformed
// cells are skipped and reported with their line number in `errors`.
StatusOr<CliParseResult> ParseXpumcliStats(std::string_view text);

}  // namespace gpufleet
