// The one entry point of `gpufleet translate`: any vendor sample gpufleet
// understands -> canonical exposition.
//
// Inputs: exporter /metrics text (dcgm-exporter, AMD Device Metrics
// Exporter, Intel XPU Manager legacy exporter) and vendor CLI output
// (`amd-smi metric --json`, `amd-smi metric` text, `xpumcli stats`).
//
// Thread safety: a call is self-contained.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "expo/exposition_writer.h"
#include "normalize/translate_report.h"

namespace gpufleet {

// Guesses opts.from from the content: "amd_smi_json", "amd_smi_text",
// "xpumcli", "dcgm_exporter", "amd_dme", "xpum", "xpumd"; "" when nothing fits.
std::string SniffSource(std::string_view input);

// Writes canonical exposition (opts.format) to `out`: sorted by metric name and
// label set, HELP/TYPE from the catalog, one gpu_info series per device.
// `origin` (file name or URL) prefixes every error. Errors: InvalidArgument when
// the source is unknown or cannot be sniffed, or the input is structurally not
// of that source (e.g. not JSON). Malformed lines or values are skipped and
// reported in `report` (errors with line numbers or JSON paths, partial=true).
// With a `sink`, output goes to it in chunks and `out` is scratch space.
Status TranslateInput(std::string_view input, std::string_view origin,
                      const TranslateOptions& opts, std::string* out, TranslateReport* report,
                      const ChunkSink* sink = nullptr);

}  // namespace gpufleet
