#include "normalize/canonical_output.h"

#include <algorithm>

// Collecting: label lists rendered once, samples by family. Finalize() is in
// canonical_output_order.cc, Write() and AppendSamples() in
// canonical_output_write.cc.

namespace gpufleet {

uint32_t CanonicalOutput::AddLabels(const Labels& labels) {
  std::vector<LabelView>& views = scratch_views_;
  views.clear();
  for (const auto& [name, value] : labels.pairs()) views.emplace_back(name, value);
  return AddLabels(views);
}

uint32_t CanonicalOutput::AddLabels(std::span<const LabelView> labels) {
  LabelList list{static_cast<uint32_t>(fragments_.size()), static_cast<uint32_t>(labels.size()),
                 0, 0};
  list.names = NamesId(labels);
  const size_t start = arena_.size();
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) arena_.push_back(',');
    first = false;
    Fragment f{arena_.size(), 0, static_cast<uint32_t>(name.size())};
    AppendLabelPair(name, value, arena_);
    f.size = static_cast<uint32_t>(arena_.size() - f.offset);
    fragments_.push_back(f);
  }
  list.size = static_cast<uint32_t>(arena_.size() - start);
  lists_.push_back(list);
  if (keep_labels_) {
    Labels kept;
    for (const auto& [name, value] : labels) kept.Set(name, value);
    list_labels_.push_back(std::move(kept));
  }
  return static_cast<uint32_t>(lists_.size() - 1);
}

uint32_t CanonicalOutput::NamesId(std::span<const LabelView> labels) {
  // Lists mostly repeat the names of one of the last two lists (device
  // lists in a row; info series of two kinds in turn): compare with those.
  for (size_t back = 1; back <= 2 && back <= lists_.size(); ++back) {
    const LabelList& l = lists_[lists_.size() - back];
    if (l.count != labels.size()) continue;
    bool same = true;
    for (uint32_t k = 0; k < l.count && same; ++k) {
      same = FragmentName(fragments_[l.first + k]) == labels[k].first;
    }
    if (same) return l.names;
  }
  names_key_.clear();
  for (const auto& [name, value] : labels) {
    names_key_.append(name);
    names_key_.push_back('\0');
  }
  return names_index_.try_emplace(names_key_, static_cast<uint32_t>(names_index_.size()))
      .first->second;
}

uint32_t CanonicalOutput::FamilyFor(std::string_view name) {
  if (last_family_ != UINT32_MAX) {
    std::string_view last = families_[last_family_].name;
    if (last.data() == name.data() && last.size() == name.size()) return last_family_;
  }
  // Few families: a scan is enough.
  for (uint32_t k = 0; k < families_.size(); ++k) {
    if (families_[k].name == name) return last_family_ = k;
  }
  // Room for as many entries as the largest family so far: exporters list
  // the same devices under every metric, so families grow to equal sizes.
  for (const Family& f : families_) largest_family_ = std::max(largest_family_, f.entries.size());
  families_.emplace_back();
  families_.back().name = name;
  families_.back().entries.reserve(largest_family_);
  return last_family_ = static_cast<uint32_t>(families_.size() - 1);
}

void CanonicalOutput::Add(std::string_view name, uint32_t base, uint32_t extra, double value,
                          std::optional<int64_t> timestamp_ms) {
  Family& f = families_[FamilyFor(name)];
  if (timestamp_ms.has_value() || !f.timestamps.empty()) {
    f.timestamps.resize(f.entries.size(), kNoTimestamp);
    f.timestamps.push_back(timestamp_ms.value_or(kNoTimestamp));
  }
  f.entries.push_back(Entry{base, extra, value});
}

}  // namespace gpufleet
