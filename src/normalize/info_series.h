// InfoSeries: the info series (gpu_info, gpu_workload_info, ...) an exporter
// text describes in descriptive labels such as DCGM_FI_DRIVER_VERSION or the
// Kubernetes pod labels. There is one series per device and info metric (for
// metrics other than gpu_info, also per set of the series' own labels); rows
// of one device may carry different subsets of labels, so they are merged.
// gpu_info exists for every identified device, with a source label.
// Private to normalize/; not thread-safe, one per translation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/big_vector.h"
#include "core/flat_index.h"
#include "normalize/canonical_output.h"
#include "normalize/label_rules.h"
#include "normalize/label_view.h"
#include "schema/metric_catalog.h"

namespace gpufleet {

class InfoSeries {
 public:
  // `source` (the table's, e.g. "dcgm_exporter") is gpu_info's source label;
  // `input_size`, the bytes of the input, sizes the buffers.
  InfoSeries(std::string_view source, size_t input_size);

  // Adds or merges the info series of one input label set: `base` its
  // canonical labels without per-metric parts (sorted by name), `input` its
  // labels in input order (the rules say which feed an info series). A set
  // without gpu_uuid, pci_bus_id or gpu_index identifies no device: ignored.
  // The views must outlive this object.
  //
  // Target labels: a set that went through a Prometheus scrape (it has a
  // `job` or `instance` label, or `exported_*` labels: Prometheus renamed
  // the exporter's own colliding labels) carries the scrape target's `pod`,
  // `namespace` and `container`, which name the exporter's pod, not the
  // device's workload: those never feed an info series (the workload is in
  // `exported_pod` etc. then). Their input names are appended to
  // `target_labels` (may be nullptr).
  void Add(std::span<const LabelView> base, std::span<const LabelView> input, LabelRules& rules,
           std::vector<std::string_view>* target_labels = nullptr);
  // Adds every info series to `out`, in first-seen order (the output is
  // sorted anyway).
  void AddTo(CanonicalOutput& out) const;

 private:
  // An info series and its labels in pairs_.
  struct Entry {
    const MetricDef* def;
    uint32_t first;
    uint32_t count;
    uint64_t key_offset;  // its key in keys_
    uint32_t key_size;
  };

  // Adds (or merges into) the info series `metric` of the device in
  // identity_; `own` are the series' own labels, `labels` all of them.
  void Merge(std::string_view metric, std::span<const LabelView> own,
             std::span<const LabelView> labels);

  std::string_view source_;
  // (metric, device identity[, own labels]) -> entry.
  FlatIndex index_;
  BigString keys_;  // keys of entries_, back to back
  std::vector<Entry> entries_;
  BigVector<LabelView> pairs_;
  // Scratch space reused across label sets.
  std::vector<LabelView> device_;
  std::vector<std::pair<std::string_view, LabelView>> extra_;  // (metric, label)
  std::vector<LabelView> own_;
  std::vector<LabelView> labels_;
  std::vector<LabelView> merged_;
  std::string identity_;
  std::string key_;
};

}  // namespace gpufleet
