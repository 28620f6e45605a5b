// LabelView: a label as (name, value) views, and lists of them built without
// allocating per label, for the exporter translator and CanonicalOutput.
// SetLabel and MergeLabels follow Labels::Set / Merge (an empty value removes
// the label); SortLabels puts a finished list in name order. Views point into
// text the caller keeps alive. Private to normalize/.
#pragma once

#include <algorithm>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/labels.h"

namespace gpufleet {

// Lists of them are sorted by name, names unique, unless a function says not.
using LabelView = std::pair<std::string_view, std::string_view>;

inline void SetLabel(std::vector<LabelView>& labels, std::string_view name,
                     std::string_view value) {
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (it->first != name) continue;
    if (value.empty()) {
      labels.erase(it);
    } else {
      it->second = value;
    }
    return;
  }
  if (!value.empty()) labels.emplace_back(name, value);
}

inline void MergeLabels(std::vector<LabelView>& labels, const Labels& other) {
  for (const auto& [name, value] : other.pairs()) SetLabel(labels, name, value);
}

inline bool HasLabel(const std::vector<LabelView>& labels, std::string_view name) {
  return std::any_of(labels.begin(), labels.end(),
                     [name](const LabelView& l) { return l.first == name; });
}

inline void SortLabels(std::vector<LabelView>& labels) {
  std::sort(labels.begin(), labels.end(),
            [](const LabelView& a, const LabelView& b) { return a.first < b.first; });
}

// `out` = the union of `a` and `b` (both sorted by name, names unique),
// sorted; `b` wins on equal names.
inline void MergeSortedLabels(std::span<const LabelView> a, std::span<const LabelView> b,
                              std::vector<LabelView>& out) {
  out.clear();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else {
      if (i < a.size() && a[i].first == b[j].first) ++i;
      out.push_back(b[j++]);
    }
  }
}

}  // namespace gpufleet
