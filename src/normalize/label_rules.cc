#include "normalize/label_rules.h"

namespace gpufleet {

const LabelRules::Rule& LabelRules::Find(std::string_view name, size_t position) {
  auto it = rule_index_.find(name);
  if (it == rule_index_.end()) {
    Rule r;
    r.info = table_.InfoLabel(name);
    r.canon = table_.MapLabelName(name);
    r.when_present = table_.LabelsWhenPresent(name);
    r.fallback = table_.IdentityFallback(name);
    if (r.info == nullptr && !r.canon && !r.fallback && r.when_present == nullptr) {
      r.dropped = static_cast<uint32_t>(dropped_names_.size());
      dropped_names_.emplace_back(name);
    }
    it = rule_index_.emplace(std::string(name), static_cast<uint32_t>(rules_.size())).first;
    rules_.push_back(r);
  }
  if (position >= by_position_.size()) by_position_.resize(position + 1);
  by_position_[position] = {it->first, it->second};
  return rules_[it->second];
}

}  // namespace gpufleet
