#include "normalize/uuid_alias.h"

#include "expo/exposition_parser.h"

namespace gpufleet {

bool IsNullUuid(std::string_view v) {
  return v.find_first_not_of("0-") == std::string_view::npos;
}

void UuidAliases::AppendKey(std::string_view name, std::string_view value, std::string& key) {
  key += name;
  key += '=';
  key += value;
  key += '\x1f';
}

namespace {

// Collects (node, fallback labels) -> real UUID from every sample.
class AliasScan final : public ExpositionHandler {
 public:
  AliasScan(const MappingTable& table, std::string_view default_node,
            std::unordered_map<std::string, std::string>& out)
      : table_(table), default_node_(default_node), out_(out) {}

  void OnSample(const ExpoSample& s) override {
    std::string_view uuid;
    std::string_view node = default_node_;
    key_.clear();
    for (const ExpoLabel& l : s.labels) {
      if (l.value.empty()) continue;
      std::optional<std::string_view> canon = table_.MapLabelName(l.name);
      if (canon && *canon == "gpu_uuid") uuid = l.value;
      if (canon && *canon == "node") node = l.value;
      if (std::optional<std::string_view> fb = table_.IdentityFallback(l.name)) {
        UuidAliases::AppendKey(*fb, l.value, key_);
      }
    }
    if (uuid.empty() || IsNullUuid(uuid) || key_.empty()) return;
    std::string full = std::string(node) + '\x1e' + key_;
    auto [it, inserted] = out_.try_emplace(std::move(full), uuid);
    if (!inserted && it->second != uuid) it->second.clear();  // ambiguous
  }

 private:
  const MappingTable& table_;
  std::string_view default_node_;
  std::unordered_map<std::string, std::string>& out_;
  std::string key_;
};

}  // namespace

void UuidAliases::Scan(std::string_view input, const MappingTable& table,
                       std::string_view default_node) {
  if (input.find("\"00000000-0000-0000-0000-000000000000\"") == std::string_view::npos) return;
  AliasScan scan(table, default_node, by_key_);
  ParseExposition(input, scan);
}

std::string_view UuidAliases::Find(std::string_view node, std::string_view key) const {
  if (by_key_.empty() || key.empty()) return {};
  std::string full = std::string(node) + '\x1e' + std::string(key);
  auto it = by_key_.find(full);
  return it == by_key_.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace gpufleet
