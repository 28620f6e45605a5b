#include "normalize/translate.h"

#include "core/strings.h"
#include "normalize/amd_smi_cli_parser.h"
#include "normalize/canonical_output.h"
#include "normalize/exposition_translator.h"
#include "normalize/normalizer.h"
#include "normalize/xpumcli_parser.h"

namespace gpufleet {

namespace {

bool HasLineStartingWith(std::string_view text, std::string_view prefix) {
  if (text.starts_with(prefix)) return true;
  std::string needle = "\n" + std::string(prefix);
  return text.find(needle) != std::string_view::npos;
}

// Vendor CLI values -> canonical series through the source's table and the
// Normalizer (the same path the agent's collectors take).
Status TranslateCli(const CliParseResult& parsed, std::string_view origin,
                    std::string_view table_source, const TranslateOptions& opts,
                    CanonicalOutput& output, TranslateReport& report) {
  for (const std::string& e : parsed.errors) {
    report.AddError(std::string(origin) + ": " + e, opts.max_error_messages);
  }
  ASSIGN_OR_RETURN(MappingTable table, MappingTable::ForSource(table_source));
  const MetricCatalog& catalog = MetricCatalog::Default();
  Normalizer normalizer(std::move(table));
  const MappingTable& t = normalizer.table();
  NodeIdentity node{opts.node, "", ""};
  for (const CliDevice& dev : parsed.devices) {
    Labels labels = DeviceLabels(dev.device, node);
    labels.Merge(dev.identity);
    report.input_samples += dev.readings.readings.size();
    for (const RawReading& r : dev.readings.readings) {
      if (t.FindMatching(r.name, r.labels) != nullptr) continue;
      if (t.IgnoreReason(r.name) != nullptr) {
        ++report.ignored[r.name];
      } else {
        ++report.unmapped[r.name];
      }
    }
    auto ns = dev.readings.field_errors.find("not_supported");
    if (ns != dev.readings.field_errors.end()) report.sentinels += ns->second;

    std::vector<Sample> samples;
    NormalizeStats stats;
    normalizer.Normalize(dev.device, labels, dev.readings, 0, samples, stats);
    report.sentinels += stats.sentinel;
    report.absurd += stats.absurd;
    for (Sample& s : samples) {
      const MetricDef* def = catalog.Find(s.name);
      if (def == nullptr) continue;
      output.Add(def->name, s.labels, s.value, std::nullopt);
    }
    Labels info = labels;
    info.Set("source", t.source());
    output.Add(catalog.Find("gpu_info")->name, info, 1.0, std::nullopt);
  }
  return OkStatus();
}

}  // namespace

std::string SniffSource(std::string_view input) {
  std::string_view head = TrimWhitespace(input.substr(0, 64 * 1024));
  if (!head.empty() && (head[0] == '[' || head[0] == '{')) return "amd_smi_json";
  if (head.find("| Device ID") != std::string_view::npos) return "xpumcli";
  if (HasLineStartingWith(head, "GPU: ")) return "amd_smi_text";
  return SniffExporter(input);
}

Status TranslateInput(std::string_view input, std::string_view origin,
                      const TranslateOptions& opts, std::string* out, TranslateReport* report,
                      const ChunkSink* sink) {
  std::string from = opts.from.empty() ? SniffSource(input) : opts.from;
  if (from.empty()) {
    return InvalidArgumentError(std::string(origin) +
                                ": cannot tell which tool wrote this input; name it with "
                                "--from (dcgm_exporter, amd_dme, xpum, xpumd, "
                                "amd_smi_json, amd_smi_text, xpumcli)");
  }
  if (IsExporterSource(from)) {
    // opts.from stays as given: when sniffed, TranslateExposition also
    // tells a dump that mixes exporters and translates it per family.
    return TranslateExposition(input, origin, opts, out, report, sink);
  }
  StatusOr<CliParseResult> parsed = InvalidArgumentError("unset");
  std::string table;
  if (from == "amd_smi_json") {
    parsed = ParseAmdSmiJson(input);
    table = "amd_smi_cli";
  } else if (from == "amd_smi_text") {
    parsed = ParseAmdSmiText(input);
    table = "amd_smi_cli";
  } else if (from == "xpumcli") {
    parsed = ParseXpumcliStats(input);
    table = "xpumcli";
  } else {
    return InvalidArgumentError("unknown source '" + from +
                                "' (dcgm_exporter, amd_dme, xpum, amd_smi_json, amd_smi_text, "
                                "xpumcli)");
  }
  if (!parsed.ok()) return parsed.status().WithContext(origin);
  report->source = from;
  CanonicalOutput output;
  RETURN_IF_ERROR(TranslateCli(*parsed, origin, table, opts, output, *report));
  output.Finalize(&report->duplicates, &report->output_samples);
  output.Write(MetricCatalog::Default(), opts.format, out, sink);
  return OkStatus();
}

}  // namespace gpufleet
