// Options and report of `gpufleet translate`: vendor exporter text or vendor
// CLI output -> canonical gpufleet exposition.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "expo/exposition_writer.h"

namespace gpufleet {

struct TranslateOptions {
  // Source vocabulary: "dcgm_exporter", "amd_dme", "xpum", "xpumd", "amd_smi_json",
  // "amd_smi_text", "xpumcli"; "" = sniff from the content.
  std::string from;
  ExpositionFormat format = ExpositionFormat::kPrometheusText;
  // `node` label for series whose input names no host.
  std::string node;
  // Error messages kept in the report (all are counted).
  size_t max_error_messages = 50;
};

// What happened to the input. Counts are of samples (input lines or CLI
// values) unless said otherwise.
struct TranslateReport {
  std::string source;  // the vocabulary used (given or sniffed)
  uint64_t input_samples = 0;
  uint64_t output_samples = 0;
  std::map<std::string, uint64_t> unmapped;  // input name -> samples without a mapping
  std::map<std::string, uint64_t> ignored;   // input name -> samples deliberately not mapped
  // Input label name -> output samples whose series lost that label.
  std::map<std::string, uint64_t> dropped_labels;
  uint64_t sentinels = 0;     // vendor "no value" markers (incl. N/A in CLI output)
  uint64_t absurd = 0;        // physically impossible after conversion
  uint64_t duplicates = 0;    // same canonical series twice (labels merged by the mapping)
  uint64_t needs_rate = 0;    // rate mappings, which one snapshot cannot serve
  uint64_t parse_errors = 0;  // input lines/values skipped as malformed
  // "origin:line:column: message" (exposition, text) or "origin: path: message" (JSON).
  std::vector<std::string> errors;
  bool partial = false;  // some input was malformed and skipped

  void AddError(std::string message, size_t max_messages);
  // Human-readable summary, one fact per line (for stderr).
  std::string ToString() const;
};

}  // namespace gpufleet
