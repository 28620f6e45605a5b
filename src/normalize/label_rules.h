// LabelRules: what a MappingTable says about each input label name of an
// exporter text (carried by an info series, renamed to a canonical label,
// adding labels when present, an identity fallback, or dropped), looked up
// once per name. Private to normalize/; not thread-safe, one per translation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/labels.h"
#include "normalize/mapping_table.h"

namespace gpufleet {

class LabelRules {
 public:
  struct Rule {
    const std::pair<std::string, std::string>* info = nullptr;  // (info metric, its label)
    std::optional<std::string_view> canon;
    const Labels* when_present = nullptr;
    std::optional<std::string_view> fallback;
    uint32_t dropped = UINT32_MAX;  // dropped_name() id when the table drops the label
  };

  // `table` must outlive this object.
  explicit LabelRules(const MappingTable& table) : table_(table) {}

  // The rule for the label `name` at `position` in its label set. Label
  // sets of one exporter list the same names in the same order, so the name
  // last seen at `position` is compared first.
  const Rule& For(std::string_view name, size_t position) {
    if (position < by_position_.size() && by_position_[position].first == name) {
      return rules_[by_position_[position].second];
    }
    return Find(name, position);
  }
  // The name of a dropped label, by Rule::dropped.
  const std::string& dropped_name(uint32_t id) const { return dropped_names_[id]; }

 private:
  // For() when `position` last held another name.
  const Rule& Find(std::string_view name, size_t position);

  const MappingTable& table_;
  std::vector<Rule> rules_;
  StringMap<uint32_t> rule_index_;
  std::vector<std::pair<std::string_view, uint32_t>> by_position_;  // last name seen there
  std::vector<std::string> dropped_names_;
};

}  // namespace gpufleet
