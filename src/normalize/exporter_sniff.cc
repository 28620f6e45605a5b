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

// OpenTelemetry hardware semantic conventions after Prometheus
// normalization (hw.gpu.utilization -> hw_gpu_utilization_ratio), as
// Intel's xpumd serves them. Only hw_gpu_* names are a GPU's: hw.power,
// hw.temperature, ... describe any component (OTel's host hardware
// receivers report CPUs and fans under them too), so they count as xpumd's
// only in an input that also has hw_gpu_* families (xpumd always reports
// hw_gpu_info).
bool IsOtelGpuName(std::string_view n) { return n.starts_with("hw_gpu_"); }
bool IsOtelHardwareName(std::string_view n) { return n.starts_with("hw_"); }

}  // namespace

bool IsExporterSource(std::string_view s) {
  return s == "dcgm_exporter" || s == "amd_dme" || s == "xpum" || s == "xpumd";
}

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
    if (IsOtelGpuName(n)) return "xpumd";
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

// The family name a line is about: the metric of a sample line, the family of
// a "# HELP name ..." / "# TYPE name ..." line; "" for others.
std::string_view LineFamily(std::string_view line) {
  if (line.starts_with("#")) {
    size_t a = line.find_first_not_of(' ', 1);
    if (a == std::string_view::npos) return {};
    size_t b = line.find(' ', a);  // after HELP / TYPE / UNIT
    if (b == std::string_view::npos) return {};
    line = line.substr(line.find_first_not_of(' ', b) == std::string_view::npos
                           ? line.size()
                           : line.find_first_not_of(' ', b));
  }
  size_t end = line.find_first_of("{ \t");
  return line.substr(0, end);
}

// Which vocabulary a family name belongs to by its own prefix: 0 DCGM, 1 XPU
// Manager, 2 xpumd (OTel hw_*, when the input has GPU families of it), 3
// anything else (AMD DME names have no vendor prefix of their own).
constexpr int kFamilyClasses = 4;
int FamilyClass(std::string_view family, bool otel_gpu) {
  if (family.starts_with("DCGM_")) return 0;
  if (family.starts_with("xpum_")) return 1;
  if (otel_gpu && IsOtelHardwareName(family)) return 2;
  return 3;
}

}  // namespace

std::vector<MixedPart> SplitMixedExposition(std::string_view input) {
  size_t counts[kFamilyClasses] = {0, 0, 0, 0};
  auto for_each_line = [&input](auto&& fn) {
    size_t pos = 0;
    while (pos < input.size()) {
      size_t nl = input.find('\n', pos);
      size_t end = nl == std::string_view::npos ? input.size() : nl;
      fn(input.substr(pos, end - pos));
      pos = end + 1;
    }
  };
  bool otel_gpu = false;
  for_each_line([&otel_gpu](std::string_view line) {
    otel_gpu = otel_gpu || IsOtelGpuName(LineFamily(line));
  });
  for_each_line([&counts, otel_gpu](std::string_view line) {
    std::string_view f = LineFamily(line);
    if (!f.empty() && !line.starts_with("#")) ++counts[FamilyClass(f, otel_gpu)];
  });
  int present = 0;
  for (size_t c : counts) present += c > 0;
  if (present < 2) return {};
  // Each part keeps every line (others blanked), so line numbers in errors
  // stay those of the input.
  std::vector<MixedPart> parts(kFamilyClasses);
  for (MixedPart& p : parts) p.text.reserve(input.size() / 2);
  for_each_line([&parts, otel_gpu](std::string_view line) {
    std::string_view f = LineFamily(line);
    int cls = f.empty() ? -1 : FamilyClass(f, otel_gpu);
    for (int k = 0; k < kFamilyClasses; ++k) {
      if (k == cls) parts[k].text += line;
      parts[k].text += '\n';
    }
  });
  parts[0].source = "dcgm_exporter";
  parts[1].source = "xpum";
  parts[2].source = "xpumd";
  parts[3].source = SniffExporter(parts[3].text);
  std::vector<MixedPart> out;
  for (int k = 0; k < kFamilyClasses; ++k) {
    if (counts[k] > 0) out.push_back(std::move(parts[k]));
  }
  return out;
}

namespace {

StatusOr<MappingTable> ExporterTable(std::string_view input, std::string_view origin,
                                     const TranslateOptions& opts, TranslateReport* report) {
  std::string from = opts.from.empty() ? SniffExporter(input) : opts.from;
  if (from.empty()) {
    return InvalidArgumentError(std::string(origin) +
                                ": cannot tell which exporter wrote this input (no DCGM_*, "
                                "xpum_*, hw_* or AMD gpu_* series found); name it with --from");
  }
  if (!IsExporterSource(from)) {
    return InvalidArgumentError("unknown exporter source '" + from +
                                "' (dcgm_exporter, amd_dme, xpum or xpumd)");
  }
  report->source = from;
  return MappingTable::ForSource(from);
}

}  // namespace

namespace {

// A federated dump may mix vendors' exporters: each family is translated with
// the table of the exporter that wrote it. Parts whose vocabulary cannot be
// told go through the first part's table (their names come out unmapped).
// False when the input is not mixed (or opts.from names one source).
StatusOr<bool> TranslateMixedInto(std::string_view input, std::string_view origin,
                                  const TranslateOptions& opts, CanonicalOutput& output,
                                  TranslateReport* report) {
  if (!opts.from.empty()) return false;
  std::vector<MixedPart> parts = SplitMixedExposition(input);
  if (parts.empty()) return false;
  std::string sources;
  std::string fallback;
  for (const MixedPart& p : parts) {
    if (p.source.empty()) continue;
    if (fallback.empty()) fallback = p.source;
    if (!sources.empty()) sources += '+';
    sources += p.source;
  }
  if (fallback.empty()) return false;
  report->source = sources;
  for (const MixedPart& p : parts) {
    ASSIGN_OR_RETURN(MappingTable table,
                     MappingTable::ForSource(p.source.empty() ? fallback : p.source));
    TranslateExpositionInto(p.text, origin, table, opts, output, *report);
  }
  return true;
}

}  // namespace

Status TranslateExposition(std::string_view input, std::string_view origin,
                           const TranslateOptions& opts, std::string* out,
                           TranslateReport* report, const ChunkSink* sink) {
  CanonicalOutput output;
  // Distinct label sets rarely take an eighth of the input.
  output.Reserve(input.size() / 8);
  ASSIGN_OR_RETURN(bool mixed, TranslateMixedInto(input, origin, opts, output, report));
  if (!mixed) {
    ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
    TranslateExpositionInto(input, origin, table, opts, output, *report);
  }
  output.Finalize(&report->duplicates, &report->output_samples);
  if (sink == nullptr) out->reserve(out->size() + input.size());
  output.Write(MetricCatalog::Default(), opts.format, out, sink);
  return OkStatus();
}

Status TranslateExpositionToSamples(std::string_view input, std::string_view origin,
                                    const TranslateOptions& opts, int64_t timestamp_ns,
                                    std::vector<Sample>* out, TranslateReport* report) {
  CanonicalOutput output(/*keep_labels=*/true);
  ASSIGN_OR_RETURN(bool mixed, TranslateMixedInto(input, origin, opts, output, report));
  if (!mixed) {
    ASSIGN_OR_RETURN(MappingTable table, ExporterTable(input, origin, opts, report));
    TranslateExpositionInto(input, origin, table, opts, output, *report);
  }
  output.Finalize(&report->duplicates, &report->output_samples);
  output.AppendSamples(timestamp_ns, out);
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
