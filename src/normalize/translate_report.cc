#include "normalize/translate_report.h"

namespace gpufleet {

void TranslateReport::AddError(std::string message, size_t max_messages) {
  ++parse_errors;
  partial = true;
  if (errors.size() < max_messages) errors.push_back(std::move(message));
}

std::string TranslateReport::ToString() const {
  std::string s = "source: " + source + "\n";
  s += "input samples: " + std::to_string(input_samples) + "\n";
  s += "output samples: " + std::to_string(output_samples) + "\n";
  auto counts = [&s](const char* what, const std::map<std::string, uint64_t>& m) {
    for (const auto& [name, n] : m) s += std::string(what) + ": " + name + " (" +
                                          std::to_string(n) + ")\n";
  };
  counts("unmapped", unmapped);
  counts("ignored", ignored);
  counts("dropped label", dropped_labels);
  auto count = [&s](const char* what, uint64_t n) {
    if (n != 0) s += std::string(what) + ": " + std::to_string(n) + "\n";
  };
  count("sentinel values dropped", sentinels);
  count("absurd values dropped", absurd);
  count("duplicate series dropped", duplicates);
  count("rate mappings skipped (need two snapshots)", needs_rate);
  count("parse errors", parse_errors);
  for (const std::string& e : errors) s += "error: " + e + "\n";
  if (parse_errors > errors.size()) {
    s += "(" + std::to_string(parse_errors - errors.size()) + " more errors)\n";
  }
  if (partial) s += "partial: some input was skipped\n";
  return s;
}

}  // namespace gpufleet
