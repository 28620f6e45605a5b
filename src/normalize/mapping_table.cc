#include "normalize/mapping_table.h"

#include <algorithm>
#include <cmath>

#include "core/embedded.h"
#include "core/toml_reader.h"

namespace gpufleet {

namespace {

StatusOr<std::vector<double>> NumberList(const toml::table& t, std::string_view key,
                                         std::string_view origin) {
  std::vector<double> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* arr = n->as_array();
  if (arr == nullptr) {
    return InvalidArgumentError(TomlWhere(origin, *n) + "'" + std::string(key) +
                                "' must be an array of numbers");
  }
  for (const toml::node& v : *arr) {
    auto d = v.value<double>();
    if (!d) {
      return InvalidArgumentError(TomlWhere(origin, v) + "'" + std::string(key) +
                                  "' must contain numbers");
    }
    out.push_back(*d);
  }
  return out;
}

// A table of string values, e.g. { a = "x", b = "y" }, in file order.
StatusOr<std::vector<std::pair<std::string, std::string>>> StringPairs(const toml::node& n,
                                                                      std::string_view what,
                                                                      std::string_view origin) {
  const toml::table* t = n.as_table();
  if (t == nullptr) {
    return InvalidArgumentError(TomlWhere(origin, n) + std::string(what) + " must be a table");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : *t) {
    auto s = v.value<std::string>();
    if (!s) {
      return InvalidArgumentError(TomlWhere(origin, v) + std::string(what) + "." +
                                  std::string(k.str()) + " must be a string");
    }
    out.emplace_back(std::string(k.str()), *s);
  }
  return out;
}

StatusOr<Labels> LabelTable(const toml::node& n, std::string_view origin) {
  ASSIGN_OR_RETURN(auto pairs, StringPairs(n, "labels", origin));
  Labels labels;
  for (const auto& [k, v] : pairs) {
    if (!IsValidLabelName(k)) {
      return InvalidArgumentError(TomlWhere(origin, n) + "invalid label name '" + k + "'");
    }
    labels.Set(k, v);
  }
  return labels;
}

StatusOr<MetricMapping> ParseMapping(const toml::table& t, std::string_view origin,
                                     const MetricCatalog& catalog) {
  MetricMapping m;
  std::string where = TomlWhere(origin, t);
  ASSIGN_OR_RETURN(m.from, RequiredString(t, "from", origin));
  ASSIGN_OR_RETURN(m.to, RequiredString(t, "to", origin));
  m.def = catalog.Find(m.to);
  if (m.def == nullptr) {
    return InvalidArgumentError(where + "'" + m.from + "' maps to '" + m.to +
                                "', which is not in the canonical catalog");
  }
  ASSIGN_OR_RETURN(m.scale, OptionalNumber(t, "scale", 1.0, origin));
  if (!std::isfinite(m.scale)) {
    return InvalidArgumentError(where + "'" + m.from + "': scale must be finite");
  }
  ASSIGN_OR_RETURN(m.method, OptionalString(t, "method", origin));
  if (const toml::node* l = t.get("labels")) {
    ASSIGN_OR_RETURN(m.labels, LabelTable(*l, origin));
  }
  ASSIGN_OR_RETURN(std::string derive, OptionalString(t, "derive", origin));
  if (derive == "rate") {
    m.derive = Derive::kRate;
    if (m.def->type == MetricType::kCounter) {
      return InvalidArgumentError(where + "'" + m.from +
                                  "': derive = \"rate\" needs a gauge target");
    }
  } else if (!derive.empty()) {
    return InvalidArgumentError(where + "unknown derive '" + derive + "' (only \"rate\")");
  }
  ASSIGN_OR_RETURN(m.sentinels, NumberList(t, "sentinels", origin));
  if (const toml::node* n = t.get("match")) {
    ASSIGN_OR_RETURN(m.match, StringPairs(*n, "match", origin));
  }
  if (const toml::node* n = t.get("whole_device")) {
    if (!n->is_boolean()) {
      return InvalidArgumentError(where + "'" + m.from + "': whole_device must be true or false");
    }
    m.whole_device = n->value_or(false);
  }
  if (const toml::node* n = t.get("rename_labels")) {
    ASSIGN_OR_RETURN(m.rename_labels, StringPairs(*n, "rename_labels", origin));
    for (const auto& [from, to] : m.rename_labels) {
      if (!IsValidLabelName(to)) {
        return InvalidArgumentError(where + "rename_labels." + from + ": invalid label name '" +
                                    to + "'");
      }
    }
  }
  return m;
}

}  // namespace

const std::string* MetricMapping::RenamedLabel(std::string_view input_label) const {
  for (const auto& [from, to] : rename_labels) {
    if (from == input_label) return &to;
  }
  return nullptr;
}

StatusOr<MappingTable> MappingTable::Parse(std::string_view text, std::string_view origin,
                                           const MetricCatalog& catalog) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  MappingTable table;
  ASSIGN_OR_RETURN(table.source_, RequiredString(root, "source", origin));
  ASSIGN_OR_RETURN(std::string vendor, OptionalString(root, "vendor", origin));
  table.vendor_ = ParseVendor(vendor);
  ASSIGN_OR_RETURN(table.sentinels_, NumberList(root, "sentinels", origin));
  if (root.get("sentinel_at_least") != nullptr) {
    ASSIGN_OR_RETURN(double v, OptionalNumber(root, "sentinel_at_least", 0, origin));
    table.sentinel_at_least_ = v;
  }
  if (const toml::array* prefixes = root["name_prefixes"].as_array()) {
    for (const toml::node& v : *prefixes) {
      auto s = v.value<std::string>();
      if (!s || s->empty()) {
        return InvalidArgumentError(TomlWhere(origin, v) + "name_prefixes must hold strings");
      }
      table.name_prefixes_.push_back(*s);
    }
  }

  if (const toml::table* labels = root["labels"].as_table()) {
    if (const toml::table* rename = (*labels)["rename"].as_table()) {
      for (const auto& [k, v] : *rename) {
        auto s = v.value<std::string>();
        if (!s || !IsValidLabelName(*s)) {
          return InvalidArgumentError(TomlWhere(origin, v) + "labels.rename." +
                                      std::string(k.str()) + " must be a valid label name");
        }
        table.label_rename_[std::string(k.str())] = *s;
      }
    }
    if (const toml::array* keep = (*labels)["keep"].as_array()) {
      for (const toml::node& v : *keep) {
        auto s = v.value<std::string>();
        if (!s) return InvalidArgumentError(TomlWhere(origin, v) + "labels.keep must hold strings");
        table.label_rename_[*s] = *s;
      }
    }
    if (const toml::table* when = (*labels)["when_present"].as_table()) {
      for (const auto& [k, v] : *when) {
        ASSIGN_OR_RETURN(Labels l, LabelTable(v, origin));
        table.when_present_[std::string(k.str())] = std::move(l);
      }
    }
    if (const toml::node* fb = labels->get("identity_fallback")) {
      ASSIGN_OR_RETURN(auto pairs, StringPairs(*fb, "labels.identity_fallback", origin));
      for (auto& [k, v] : pairs) {
        if (!IsValidLabelName(v)) {
          return InvalidArgumentError(TomlWhere(origin, *fb) + "labels.identity_fallback." + k +
                                      " must be a valid label name");
        }
        table.identity_fallback_[k] = v;
      }
    }
    if (const toml::table* vm = (*labels)["value_map"].as_table()) {
      for (const auto& [k, v] : *vm) {
        ASSIGN_OR_RETURN(auto pairs, StringPairs(v, "labels.value_map", origin));
        auto& dst = table.value_map_[std::string(k.str())];
        for (auto& [from, to] : pairs) dst[from] = to;
      }
    }
    if (const toml::table* info = (*labels)["info"].as_table()) {
      for (const auto& [metric, v] : *info) {
        const MetricDef* def = catalog.Find(metric.str());
        if (def == nullptr || def->type != MetricType::kInfo) {
          return InvalidArgumentError(TomlWhere(origin, v) + "labels.info." +
                                      std::string(metric.str()) +
                                      " must name an info metric of the catalog");
        }
        ASSIGN_OR_RETURN(auto pairs, StringPairs(v, "labels.info", origin));
        for (auto& [input, out] : pairs) {
          if (!IsValidLabelName(out)) {
            return InvalidArgumentError(TomlWhere(origin, v) + "labels.info." + input +
                                        ": invalid label name '" + out + "'");
          }
          table.info_labels_[input] = {std::string(metric.str()), out};
        }
        table.info_metrics_.emplace_back(metric.str());
      }
      std::sort(table.info_metrics_.begin(), table.info_metrics_.end());
    }
  }
  if (const toml::node* ignore = root.get("ignore")) {
    ASSIGN_OR_RETURN(auto pairs, StringPairs(*ignore, "ignore", origin));
    for (auto& [k, v] : pairs) {
      if (v.empty()) {
        return InvalidArgumentError(TomlWhere(origin, *ignore) + "ignore." + k +
                                    " needs a reason");
      }
      table.ignore_[k] = v;
    }
  }

  if (const toml::array* arr = root["metric"].as_array()) {
    for (const toml::node& node : *arr) {
      const toml::table* t = node.as_table();
      if (t == nullptr) {
        return InvalidArgumentError(TomlWhere(origin, node) + "[[metric]] must be a table");
      }
      ASSIGN_OR_RETURN(MetricMapping m, ParseMapping(*t, origin, catalog));
      auto& entries = table.by_from_[m.from];
      for (uint32_t prev : entries) {
        if (table.mappings_[prev].match == m.match) {
          return InvalidArgumentError(TomlWhere(origin, node) + "duplicate mapping for '" +
                                      m.from + "' (give each a different `match`)");
        }
      }
      if (table.ignore_.count(m.from) != 0) {
        return InvalidArgumentError(TomlWhere(origin, node) + "'" + m.from +
                                    "' is both mapped and ignored");
      }
      entries.push_back(static_cast<uint32_t>(table.mappings_.size()));
      table.mappings_.push_back(std::move(m));
    }
  }
  if (table.mappings_.empty()) {
    return InvalidArgumentError(std::string(origin) + ": no [[metric]] mappings");
  }
  return table;
}

StatusOr<MappingTable> MappingTable::ForSource(std::string_view source) {
  std::string name = "mappings/" + std::string(source) + ".toml";
  auto text = FindEmbeddedFile(name);
  if (!text) return NotFoundError("no mapping table for source '" + std::string(source) + "'");
  return Parse(*text, "data/" + name, MetricCatalog::Default());
}

const std::vector<uint32_t>* MappingTable::FindAll(std::string_view from) const {
  auto it = by_from_.find(from);
  if (it != by_from_.end()) return &it->second;
  for (const std::string& prefix : name_prefixes_) {
    if (from.size() > prefix.size() && from.substr(0, prefix.size()) == prefix) {
      it = by_from_.find(from.substr(prefix.size()));
      if (it != by_from_.end()) return &it->second;
    }
  }
  return nullptr;
}

const MetricMapping* MappingTable::Find(std::string_view from) const {
  const std::vector<uint32_t>* all = FindAll(from);
  return all == nullptr ? nullptr : &mappings_[all->front()];
}

const MetricMapping* MappingTable::FindMatching(std::string_view from,
                                                const Labels& labels) const {
  const std::vector<uint32_t>* all = FindAll(from);
  if (all == nullptr) return nullptr;
  for (uint32_t i : *all) {
    const MetricMapping& m = mappings_[i];
    if (m.Matches([&](std::string_view n) { return labels.Get(n); })) return &m;
  }
  return nullptr;
}

bool MappingTable::IsSentinel(const MetricMapping& m, double value) const {
  if (std::isnan(value)) return true;
  if (sentinel_at_least_ && value >= *sentinel_at_least_) return true;
  for (double s : sentinels_) {
    if (value == s) return true;
  }
  for (double s : m.sentinels) {
    if (value == s) return true;
  }
  // Exporters and libraries report 0 for a temperature sensor the GPU lacks
  // (DCGM_FI_DEV_MEMORY_TEMP on a GDDR board, AMD memory/HBM temperatures in a
  // VF). A powered GPU never reads exactly 0 C, so 0 is "no sensor", not a
  // reading (docs/metrics.md, "No sentinels").
  if (value == 0 && m.def != nullptr && m.def->unit == "celsius") return true;
  return false;
}

std::optional<std::string_view> MappingTable::MapLabelName(std::string_view input_label) const {
  auto it = label_rename_.find(input_label);
  if (it == label_rename_.end()) return std::nullopt;
  return std::string_view(it->second);
}

const Labels* MappingTable::LabelsWhenPresent(std::string_view input_label) const {
  auto it = when_present_.find(input_label);
  return it == when_present_.end() ? nullptr : &it->second;
}

std::optional<std::string_view> MappingTable::IdentityFallback(
    std::string_view input_label) const {
  auto it = identity_fallback_.find(input_label);
  if (it == identity_fallback_.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::string_view MappingTable::MapLabelValue(std::string_view label,
                                             std::string_view value) const {
  auto it = value_map_.find(label);
  if (it == value_map_.end()) return value;
  auto v = it->second.find(value);
  return v == it->second.end() ? value : std::string_view(v->second);
}

const std::pair<std::string, std::string>* MappingTable::InfoLabel(
    std::string_view input_label) const {
  auto it = info_labels_.find(input_label);
  return it == info_labels_.end() ? nullptr : &it->second;
}

const std::string* MappingTable::IgnoreReason(std::string_view from) const {
  auto it = ignore_.find(from);
  if (it != ignore_.end()) return &it->second;
  return nullptr;
}

}  // namespace gpufleet
