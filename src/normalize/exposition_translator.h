// Translates a vendor exporter's /metrics text (dcgm-exporter, AMD Device
// Metrics Exporter, Intel XPU Manager legacy exporter) into canonical series
// through that source's MappingTable: metric names, label rename/keep/drop,
// partition labels, unit scaling, sentinel and absurd-value filtering, and
// info series (gpu_info, gpu_workload_info) built from descriptive labels such
// as DCGM_FI_DRIVER_VERSION or the Kubernetes pod labels.
//
// Speed: mapping lookups are cached per metric name and label translation per
// distinct input label set. A sample line whose label text equals the set
// predicted from the previous family's order is recognised by one in-place
// comparison (else one hash lookup) and costs no allocation; see
// CanonicalOutput for the output side.
//
// Thread safety: a call is self-contained.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"
#include "core/status.h"
#include "normalize/mapping_table.h"
#include "normalize/translate_report.h"

namespace gpufleet {

class CanonicalOutput;

// Translates `input` with `table` into `output`. Malformed lines are skipped
// and reported (origin:line:column) in `report`, which also counts unmapped
// names, dropped labels, sentinels and absurd values.
void TranslateExpositionInto(std::string_view input, std::string_view origin,
                             const MappingTable& table, const TranslateOptions& opts,
                             CanonicalOutput& output, TranslateReport& report);

// Picks the exporter vocabulary from the first samples: "dcgm_exporter",
// "amd_dme", "xpum" or "xpumd"; "" when none fits.
std::string SniffExporter(std::string_view input);

// True for the sources whose input is an exporter's exposition text (those
// SniffExporter names), as opposed to a vendor CLI's output.
bool IsExporterSource(std::string_view source);

// One exporter's families out of a dump that mixes exporters (a federated
// /federate or remote-storage dump): `text` has every line of the input, the
// other exporters' lines left empty (line numbers stay the input's).
struct MixedPart {
  std::string source;  // "dcgm_exporter", "xpum", "xpumd", "amd_dme" or "" (not told)
  std::string text;
};
// The parts of `input` by family name (DCGM_*, xpum_*, hw_* beside hw_gpu_*,
// anything else then sniffed); empty when the input has one vocabulary only.
std::vector<MixedPart> SplitMixedExposition(std::string_view input);

// Canonical exposition text (opts.format), sorted and deterministic, with
// HELP/TYPE from the catalog. `opts.from` must name an exporter source or be
// "" (sniffed; a dump that mixes exporters is translated per family, see
// SplitMixedExposition, and report->source lists them: "dcgm_exporter+amd_dme").
// Errors: InvalidArgument when the source is unknown or cannot
// be sniffed; malformed lines are not errors (see report->partial). With a
// `sink`, output goes to it in chunks and `out` is scratch space.
Status TranslateExposition(std::string_view input, std::string_view origin,
                           const TranslateOptions& opts, std::string* out,
                           TranslateReport* report, const ChunkSink* sink = nullptr);
// Same, appending canonical samples (for the agent's scrape source); samples
// without an input timestamp get `timestamp_ns`.
Status TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                    const TranslateOptions& opts, int64_t timestamp_ns,
                                    std::vector<Sample>* out, TranslateReport* report);
// Same with a table the caller keeps (a scrape loop loads it once).
void TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                  const MappingTable& table, const TranslateOptions& opts,
                                  int64_t timestamp_ns, std::vector<Sample>* out,
                                  TranslateReport* report);

}  // namespace gpufleet
