// CanonicalOutput: collects translated series and values, then writes them
// sorted (metric name, then label string) so output is deterministic whatever
// the input order. Private to normalize/.
//
// Thread safety: none; one per translation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/sample.h"
#include "expo/exposition_writer.h"
#include "schema/metric_catalog.h"

namespace gpufleet {

class CanonicalOutput {
 public:
  // `keep_labels`: AppendSamples() will be used (text output needs only the
  // rendered label string, so it does not keep the Labels).
  explicit CanonicalOutput(bool keep_labels = false) : keep_labels_(keep_labels) {}

  // `name` must outlive this object (catalog or mapping names).
  // REQUIRES: `name` is in the catalog used for Write().
  uint32_t AddSeries(std::string_view name, Labels labels);
  void AddValue(uint32_t series, double value, std::optional<int64_t> timestamp_ms) {
    records_.push_back(Record{series, value, timestamp_ms.value_or(kNoTimestamp)});
  }

  // Sorts, drops repeated (series, timestamp) pairs (first wins) and reports
  // how many were dropped through `duplicates`, and how many remain.
  void Finalize(uint64_t* duplicates, uint64_t* output_samples);
  // REQUIRES: Finalize() was called.
  void Write(const MetricCatalog& catalog, ExpositionFormat format, std::string* out) const;
  // Appends samples; records without a timestamp get `default_timestamp_ns`.
  // REQUIRES: Finalize() was called.
  void AppendSamples(int64_t default_timestamp_ns, std::vector<Sample>* out) const;

 private:
  static constexpr int64_t kNoTimestamp = INT64_MIN;
  struct Series {
    std::string_view name;
    Labels labels;
    std::string rendered;  // Labels::ToString()
    uint32_t rank = 0;     // position in (name, rendered) order; equal for equal series
    uint32_t name_rank = 0;
  };
  struct Record {
    uint32_t series;
    double value;
    int64_t timestamp_ms;
  };
  bool keep_labels_;
  std::vector<Series> series_;
  std::vector<Record> records_;
};

}  // namespace gpufleet
