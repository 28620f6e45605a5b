#include "normalize/exposition_translator.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "expo/exposition_parser.h"
#include "normalize/canonical_output.h"

// Which exporter wrote an input, and the entry points that translate with
// that exporter's table (TranslateExpositionInto does the work).

namespace gpufleet {

namespace {

// Records the first samples' names and label names, for sniffing.
class SniffHandler final : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    if (names.size() >= 64) return;
    names.emplace_back(s.name);
    for (const ExpoLabel& l : s.labels) labels.emplace(l.name);
  }
  std::vector<std::string> names;
  std::unordered_set<std::string> labels;
};

bool IsExporterSource(std::string_view s) {
  return s == "dcgm_exporter" || s == "amd_dme" || s == "xpum";
}

}  // namespace

std::string SniffExporter(std::string_view input) {
  // The first 256 KiB (cut at a line end) are plenty to see a few samples.
  std::string_view head = input.substr(0, 256 * 1024);
  if (head.size() < input.size()) {
    size_t nl = head.rfind('\n');
    head = nl == std::string_view::npos ? std::string_view() : head.substr(0, nl + 1);
  }
  SniffHandler h;
  ParseExposition(head, h);
  for (const std::string& n : h.names) {
    if (n.starts_with("DCGM_")) return "dcgm_exporter";
    if (n.starts_with("xpum_")) return "xpum";
  }
  static constexpr std::string_view kAmdLabels[] = {"card_model", "card_series", "gpu_id",
                                                    "gpu_partition_id", "serial_number"};
  bool amd_labels = std::any_of(std::begin(kAmdLabels), std::end(kAmdLabels),
                                [&h](std::string_view l) { return h.labels.count(std::string(l)); });
  for (const std::string& n : h.names) {
    if (n.starts_with("amd_gpu_")) return "amd_dme";
    if (amd_labels && (n.starts_with("gpu_") || n.starts_with("pcie_"))) return "amd_dme";
  }
  return "";
}

namespace {

StatusOr<MappingTable> ExporterTable(std::string_view input, std::string_view origin,
                                     const TranslateOptions& opts, TranslateReport* report) {
  std::string from = opts.from.empty() ? SniffExporter(input) : opts.from;
  if (from.empty()) {
    return InvalidArgumentError(std::string(origin) +
                                ": cannot tell which exporter wrote this input (no DCGM_*, "
                                "xpum_* or AMD gpu_* series found); name it with --from");
  }
  if (!IsExporterSource(from)) {
    return InvalidArgumentError("unknown exporter source '" + from +
                                "' (dcgm_exporter, amd_dme or xpum)");
  }
  report->source = from;
  return MappingTable::ForSource(from);
}

}  // namespace

Status TranslateExposition(std::string_view input, std::string_view origin,
                           const TranslateOptions& opts, std::string* out,
                           TranslateReport* report, const ChunkSink* sink) {
  ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
  CanonicalOutput output;
  // Distinct label sets rarely take an eighth of the input.
  output.Reserve(input.size() / 8);
  TranslateExpositionInto(input, origin, table, opts, output, *report);
  output.Finalize(&report->duplicates, &report->output_samples);
  if (sink == nullptr) out->reserve(out->size() + input.size());
  output.Write(MetricCatalog::Default(), opts.format, out, sink);
  return OkStatus();
}

Status TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                    const TranslateOptions& opts, int64_t timestamp_ns,
                                    std::vector<Sample>* out, TranslateReport* report) {
  ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
  TranslateExpositionToSamples(input, origin, table, opts, timestamp_ns, out, report);
  return OkStatus();
}

void TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                  const MappingTable& table, const TranslateOptions& opts,
                                  int64_t timestamp_ns, std::vector<Sample>* out,
                                  TranslateReport* report) {
  CanonicalOutput output(/*keep_labels=*/true);
  TranslateExpositionInto(input, origin, table, opts, output, *report);
  output.Finalize(&report->duplicates, &report->output_samples);
  output.AppendSamples(timestamp_ns, out);
}

}  // namespace gpufleet
