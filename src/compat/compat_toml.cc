#include "compat/compat_toml.h"

#include <algorithm>

#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet {

namespace {

std::string FieldWhere(std::string_view origin, const toml::node& n, std::string_view key) {
  return TomlWhere(origin, n) + "field '" + std::string(key) + "': ";
}

}  // namespace

StatusOr<Version> OptionalVersionField(const toml::table& t, std::string_view key,
                                       std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return Version();
  std::string text;
  if (auto s = n->value<std::string_view>(); s && n->is_string()) {
    text = std::string(*s);
  } else if (auto i = n->value<int64_t>(); i && n->is_integer() && *i >= 0) {
    text = std::to_string(*i);
  } else {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be a version string");
  }
  auto v = Version::Parse(text);
  if (!v.ok()) return InvalidArgumentError(FieldWhere(origin, *n, key) + v.status().message());
  return v;
}

StatusOr<Version> RequiredVersionField(const toml::table& t, std::string_view key,
                                       std::string_view origin) {
  if (t.get(key) == nullptr) {
    return InvalidArgumentError(TomlWhere(origin, t) + "missing field '" + std::string(key) + "'");
  }
  return OptionalVersionField(t, key, origin);
}

StatusOr<PackageVersion> OptionalPackageVersionField(const toml::table& t, std::string_view key,
                                                     std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return PackageVersion();
  if (!n->is_string()) {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be a version string");
  }
  auto v = ParsePackageVersion(*n->value<std::string_view>());
  if (!v.ok()) return InvalidArgumentError(FieldWhere(origin, *n, key) + v.status().message());
  return v;
}

StatusOr<std::vector<std::string>> StringArrayField(const toml::table& t, std::string_view key,
                                                    std::string_view origin) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* arr = n->as_array();
  if (arr == nullptr) {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be an array of strings");
  }
  for (const toml::node& e : *arr) {
    if (!e.is_string()) {
      return InvalidArgumentError(FieldWhere(origin, e, key) + "must be an array of strings");
    }
    out.emplace_back(*e.value<std::string_view>());
  }
  return out;
}

StatusOr<bool> OptionalBoolField(const toml::table& t, std::string_view key, bool fallback,
                                 std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  if (!n->is_boolean()) {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be true or false");
  }
  return *n->value<bool>();
}

StatusOr<uint32_t> OptionalUintField(const toml::table& t, std::string_view key, uint32_t fallback,
                                     std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  auto i = n->value<int64_t>();
  if (!n->is_integer() || !i || *i < 0 || *i > 0xffffffffLL) {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be a non-negative integer");
  }
  return static_cast<uint32_t>(*i);
}

StatusOr<std::map<std::string, std::string>> StringMapField(const toml::table& t,
                                                            std::string_view key,
                                                            std::string_view origin) {
  std::map<std::string, std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::table* tab = n->as_table();
  if (tab == nullptr) {
    return InvalidArgumentError(FieldWhere(origin, *n, key) + "must be a table of strings");
  }
  for (const auto& [k, v] : *tab) {
    if (!v.is_string()) {
      return InvalidArgumentError(
          FieldWhere(origin, v, std::string(key) + "." + std::string(k.str())) +
          "must be a string");
    }
    out.emplace(std::string(k.str()), std::string(*v.value<std::string_view>()));
  }
  return out;
}

Status CheckKnownKeys(const toml::table& t, std::initializer_list<std::string_view> known,
                      std::string_view origin) {
  for (const auto& [k, v] : t) {
    std::string_view key = k.str();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string_view best = SuggestClosest(key, known);
    std::string msg = TomlWhere(origin, v) + "unknown field '" + std::string(key) + "'";
    if (!best.empty()) msg += " (did you mean '" + std::string(best) + "'?)";
    return InvalidArgumentError(msg);
  }
  return OkStatus();
}

}  // namespace gpufleet
