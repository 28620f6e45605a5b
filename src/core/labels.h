// Labels: a small set of (name, value) pairs kept sorted by name, names unique.
//
// Label sets in gpufleet are small (typically < 16), so a sorted vector beats
// a map for both memory and speed. Not thread-safe; copy freely.
#pragma once

#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpufleet {

// A label as decoded from a wire format: (name, value) pointing into its
// buffer.
using LabelView = std::pair<std::string_view, std::string_view>;

class Labels {
 public:
  using Pair = std::pair<std::string, std::string>;

  Labels() = default;
  Labels(std::initializer_list<Pair> pairs);

  // Inserts or replaces `name`. An empty value removes the label, following
  // Prometheus, where an empty label value equals an absent label.
  void Set(std::string_view name, std::string_view value);
  void Remove(std::string_view name);
  // Returns "" when absent.
  std::string_view Get(std::string_view name) const;
  bool Has(std::string_view name) const;
  // Adds every label of `other`, replacing existing ones.
  void Merge(const Labels& other);
  // Replaces every label with `pairs` (any range of (name, value) pairs of
  // string_views), which must be sorted by name with no name twice; pairs
  // with an empty value are left out, as Set does. The strings already held
  // are overwritten in place, keeping their capacity, so refilling a Labels
  // with a similar set allocates nothing. REQUIRES: sorted, unique names.
  template <typename Range>
  void AssignSorted(const Range& pairs) {
    size_t n = 0;
    for (const auto& [name, value] : pairs) {
      if (value.empty()) continue;
      if (n == pairs_.size()) pairs_.emplace_back();
      pairs_[n].first.assign(name.data(), name.size());
      pairs_[n].second.assign(value.data(), value.size());
      ++n;
    }
    pairs_.resize(n);
  }

  const std::vector<Pair>& pairs() const { return pairs_; }
  size_t size() const { return pairs_.size(); }
  bool empty() const { return pairs_.empty(); }

  // `{a="1",b="x"}` with Prometheus escaping; "" when empty.
  std::string ToString() const;

  friend bool operator==(const Labels& a, const Labels& b) { return a.pairs_ == b.pairs_; }
  friend bool operator<(const Labels& a, const Labels& b) { return a.pairs_ < b.pairs_; }

 private:
  std::vector<Pair> pairs_;
};

// Length of the prefix of `value` that needs no escaping in a Prometheus
// label value (no \\, " or newline).
size_t LabelValueCleanPrefix(std::string_view value);

// Appends `value` to `out` (any std::basic_string<char>) escaped for a
// Prometheus label value (\\, \", \n).
template <typename String>
void AppendEscapedLabelValue(std::string_view value, String& out) {
  // Almost every value needs no escaping: append the clean prefix in one piece.
  size_t clean = LabelValueCleanPrefix(value);
  out.append(value.data(), clean);
  for (char c : value.substr(clean)) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

// Appends `name="value"` with the value escaped: one label as exposition
// and Labels::ToString render it.
template <typename String>
inline void AppendLabelPair(std::string_view name, std::string_view value, String& out) {
  out.append(name.data(), name.size());
  out.append("=\"", 2);
  AppendEscapedLabelValue(value, out);
  out.push_back('"');
}

// Appends `{a="1",b="x"}`, nothing for an empty list: the rendering of a
// label list everywhere (Labels::ToString, the exposition writer, the
// exporter translator). `pairs` is any range of (name, value) pairs, in the
// order to write them (Labels keep theirs sorted by name). `inline` is a
// hint that matters: the exposition writer calls this once per sample.
template <typename Range, typename String>
inline void AppendLabelList(const Range& pairs, String& out) {
  if (std::empty(pairs)) return;
  out.push_back('{');
  bool first = true;
  for (const auto& [name, value] : pairs) {
    if (!first) out.push_back(',');
    first = false;
    AppendLabelPair(name, value, out);
  }
  out.push_back('}');
}

// True for a valid Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidLabelName(std::string_view name);
// True for a valid Prometheus metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidMetricName(std::string_view name);

}  // namespace gpufleet
