// Parsers for `amd-smi metric` output, the CLI AMD calls "example code": the
// agent reads libamd_smi instead; `gpufleet translate` accepts these outputs
// so users can normalise what they already collect.
//
// Reading names are the lower-case key path without the GPU level, e.g.
// "power.socket_power", "usage.gfx_activity"; array elements carry
// label index="N" and per-partition keys XCP_N carry xcp="N", so
//   "GFX_BUSY_INST: XCP_3: [0 %, N/A]" -> usage.gfx_busy_inst{xcp="3",index="0"} 0
// Values are converted to base units by the unit the output states (% ->
// ratio, MB -> bytes, mV -> V, ...); "N/A" counts as not_supported; string
// states ("ENABLED") are skipped. Mapping: data/mappings/amd_smi_cli.toml.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "core/status.h"
#include "normalize/cli_readings.h"

namespace gpufleet {

// `amd-smi metric --json`: a bare list `[{"gpu": 0, ...}]` or `{"gpu_data":
// [...]}`; leaves are {"value", "unit"} objects, numbers or "N/A". Errors:
// InvalidArgument naming the byte offset when the text is not JSON or has
// neither shape; bad values are skipped and named by JSON path in `errors`.
StatusOr<CliParseResult> ParseAmdSmiJson(std::string_view text);

// `amd-smi metric` human output (indentation-based: "GPU: 0", "USAGE:",
// "    GFX_ACTIVITY: 0 %", arrays possibly wrapped over lines). Errors name
// line numbers; a malformed line is skipped and reported in `errors`.
// InvalidArgument when no "GPU: N" line is found.
StatusOr<CliParseResult> ParseAmdSmiText(std::string_view text);

}  // namespace gpufleet
