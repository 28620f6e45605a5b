// Writes Prometheus text exposition 0.0.4 or OpenMetrics 1.0 text.
//
// Thread safety: one writer per output string; not shared across threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/labels.h"
#include "core/sample.h"

namespace gpufleet {

// Receives exposition text in pieces (large outputs are written in chunks of
// about a megabyte rather than built whole in memory).
using ChunkSink = std::function<void(std::string_view)>;

enum class ExpositionFormat { kPrometheusText, kOpenMetrics };

// Chooses the format from an HTTP Accept header: OpenMetrics when the client
// lists application/openmetrics-text (Prometheus does when it prefers it),
// else text 0.0.4.
ExpositionFormat NegotiateExpositionFormat(std::string_view accept_header);
// "text/plain; version=0.0.4; charset=utf-8" or
// "application/openmetrics-text; version=1.0.0; charset=utf-8".
std::string_view ContentTypeFor(ExpositionFormat format);

struct FamilyMeta {
  std::string_view name;  // full metric name as served in text 0.0.4, e.g. gpu_energy_joules_total
  std::string_view type;  // "gauge", "counter", "info", "untyped"
  std::string_view unit;  // "" or a unit that is a suffix of the name
  std::string_view help;
};

class ExpositionWriter {
 public:
  ExpositionWriter(ExpositionFormat format, std::string* out) : format_(format), out_(out) {}

  // Writes the metadata of a family. In OpenMetrics, counter families are
  // named without _total and info families without _info (the samples keep
  // the suffix), and UNIT is written; in text 0.0.4, info becomes gauge.
  void BeginFamily(const FamilyMeta& meta);
  // `name` is the full sample name (e.g. gpu_energy_joules_total).
  void WriteSample(std::string_view name, const Labels& labels, double value,
                   std::optional<int64_t> timestamp_ms = std::nullopt);
  // Ends the exposition ("# EOF" in OpenMetrics). Call once.
  void Finish();

 private:
  ExpositionFormat format_;
  std::string* out_;
};

// Writes `samples` grouped by metric name (stable within a name), each family
// with the metadata `meta_for(name)` returns. Timestamps are not written:
// scraped data is "now" to Prometheus.
void WriteExposition(std::span<const Sample> samples, ExpositionFormat format,
                     const std::function<FamilyMeta(std::string_view)>& meta_for,
                     std::string* out);

}  // namespace gpufleet
