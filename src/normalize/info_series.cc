#include "normalize/info_series.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "normalize/normalizer.h"

namespace gpufleet {

namespace {
constexpr char kSep = '\x1f';

// Labels Prometheus attaches to every scraped series (`job`, `instance`), or
// that its renaming of colliding labels leaves behind (`exported_*`).
bool WasScraped(std::span<const LabelView> input) {
  for (const auto& [name, value] : input) {
    if (value.empty()) continue;
    if (name == "job" || name == "instance" || name.starts_with("exported_")) return true;
  }
  return false;
}

// Kubernetes service-discovery target labels that exporters also use for the
// device's workload.
bool IsTargetPodLabel(std::string_view name) {
  return name == "pod" || name == "namespace" || name == "container";
}
}  // namespace

InfoSeries::InfoSeries(std::string_view source, size_t input_size) : source_(source) {
  // Room (address space only until used), so these arrays do not copy as
  // they grow.
  pairs_.reserve(input_size / 64);
  keys_.reserve(input_size / 16);
}

void InfoSeries::Add(std::span<const LabelView> base, std::span<const LabelView> input,
                     LabelRules& rules, std::vector<std::string_view>* target_labels) {
  std::vector<LabelView>& device = device_;
  device.clear();
  for (const LabelView& l : base) {
    if (IsDeviceLabel(l.first)) device.push_back(l);
  }
  auto get = [&device](std::string_view name) {
    for (const auto& [n, v] : device) {
      if (n == name) return v;
    }
    return std::string_view();
  };
  if (get("gpu_uuid").empty() && get("pci_bus_id").empty() && get("gpu_index").empty()) return;
  // (metric, (info label, value)) for every input label that feeds an info series.
  auto& extra = extra_;
  extra.clear();
  const bool scraped = WasScraped(input);
  for (size_t k = 0; k < input.size(); ++k) {
    const auto& [name, value] = input[k];
    if (value.empty()) continue;
    if (scraped && IsTargetPodLabel(name)) {
      if (target_labels != nullptr) target_labels->push_back(name);
      continue;
    }
    if (const auto* info = rules.For(name, k).info) {
      extra.emplace_back(info->first, LabelView(info->second, value));
    }
  }
  // Stable: a later input label of the same name wins, as Labels::Set would.
  std::stable_sort(extra.begin(), extra.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // One info series per device (and per pod for workload info): rows of one
  // device may carry different subsets of labels, so they are merged.
  std::string& identity = identity_;
  identity.clear();
  for (std::string_view l : {"node", "partition_kind", "partition_id"}) {
    identity += get(l);
    identity += kSep;
  }
  if (!get("gpu_uuid").empty()) {
    identity += get("gpu_uuid");
  } else if (!get("pci_bus_id").empty()) {
    identity += get("pci_bus_id");
  } else {
    identity += get("gpu_index");
  }
  std::vector<LabelView>& own = own_;
  std::vector<LabelView>& labels = labels_;
  auto emit = [&](std::string_view metric, size_t first, size_t last) {
    own.clear();
    for (size_t j = first; j < last; ++j) {
      SetLabel(own, extra[j].second.first, extra[j].second.second);
    }
    SortLabels(own);
    MergeSortedLabels(device, own, labels);
    if (metric == "gpu_info") {
      const LabelView source("source", source_);
      merged_.swap(labels);
      MergeSortedLabels(merged_, std::span<const LabelView>(&source, 1), labels);
    }
    Merge(metric, own, labels);
  };
  // gpu_info always (with its own labels if any), other info series only
  // when the input carries their labels.
  size_t k = 0;
  bool gpu_info_done = false;
  while (k < extra.size()) {
    size_t end = k;
    while (end < extra.size() && extra[end].first == extra[k].first) ++end;
    if (extra[k].first == "gpu_info") gpu_info_done = true;
    emit(extra[k].first, k, end);
    k = end;
  }
  if (!gpu_info_done) emit("gpu_info", 0, 0);
}

void InfoSeries::Merge(std::string_view metric, std::span<const LabelView> own,
                       std::span<const LabelView> labels) {
  const MetricDef* def = MetricCatalog::Default().Find(metric);
  if (def == nullptr) return;
  // Key: metric, device identity and, but for gpu_info, the series' own
  // labels.
  std::string& key = key_;
  key.clear();
  key += metric;
  key += kSep;
  key += identity_;
  if (metric != "gpu_info") {
    key += kSep;
    AppendLabelList(own, key);
  }
  uint64_t hash = std::hash<std::string_view>()(key);
  uint32_t id = index_.Find(hash, [&](uint32_t k) {
    return std::string_view(keys_).substr(entries_[k].key_offset, entries_[k].key_size) == key;
  });
  if (id == FlatIndex::kNotFound) {
    index_.Insert(hash);
    entries_.push_back(Entry{def, static_cast<uint32_t>(pairs_.size()),
                             static_cast<uint32_t>(labels.size()), keys_.size(),
                             static_cast<uint32_t>(key.size())});
    keys_ += key;
    pairs_.insert(pairs_.end(), labels.begin(), labels.end());
    return;
  }
  // Seen before: add the labels this row has and the earlier ones lacked.
  Entry& e = entries_[id];
  size_t before = pairs_.size();
  for (const LabelView& l : labels) {
    bool has = false;
    for (uint32_t j = e.first; j < e.first + e.count; ++j) has = has || pairs_[j].first == l.first;
    if (!has) pairs_.push_back(l);
  }
  if (pairs_.size() == before) return;
  // Move the entry to the end so its labels stay contiguous.
  std::vector<LabelView> merged(pairs_.begin() + e.first, pairs_.begin() + e.first + e.count);
  merged.insert(merged.end(), pairs_.begin() + static_cast<std::ptrdiff_t>(before), pairs_.end());
  pairs_.resize(before);
  SortLabels(merged);
  e.first = static_cast<uint32_t>(pairs_.size());
  e.count = static_cast<uint32_t>(merged.size());
  pairs_.insert(pairs_.end(), merged.begin(), merged.end());
}

void InfoSeries::AddTo(CanonicalOutput& out) const {
  for (const Entry& e : entries_) {
    std::span<const LabelView> labels(pairs_.data() + e.first, e.count);
    out.Add(e.def->name, out.AddLabels(labels), CanonicalOutput::kNoLabels, 1.0, std::nullopt);
  }
}

}  // namespace gpufleet
