#include "compat/compat_toml.h"

#include <optional>

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
  } else if (const auto* i = n->as_integer(); i != nullptr && i->get() >= 0) {
    // as_integer, not value<int64_t>: toml++ converts a float to int64 without a range check.
    text = std::to_string(i->get());
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
  RETURN_IF_ERROR(TomlReader(t, origin).Read(key, out));
  return out;
}

StatusOr<bool> OptionalBoolField(const toml::table& t, std::string_view key, bool fallback,
                                 std::string_view origin) {
  RETURN_IF_ERROR(TomlReader(t, origin).Read(key, fallback));
  return fallback;
}

StatusOr<uint32_t> OptionalUintField(const toml::table& t, std::string_view key, uint32_t fallback,
                                     std::string_view origin) {
  int64_t v = fallback;
  RETURN_IF_ERROR(TomlReader(t, origin).Read(key, v, 0, 0xffffffffLL));
  return static_cast<uint32_t>(v);
}

StatusOr<std::map<std::string, std::string>> StringMapField(const toml::table& t,
                                                            std::string_view key,
                                                            std::string_view origin) {
  std::map<std::string, std::string> out;
  ASSIGN_OR_RETURN(std::optional<TomlReader> tab, TomlReader(t, origin).Table(key));
  if (!tab) return out;
  for (const auto& [k, v] : tab->table()) {
    RETURN_IF_ERROR(tab->Require(k.str(), out[std::string(k.str())]));
  }
  return out;
}

Status CheckKnownKeys(const toml::table& t, std::initializer_list<std::string_view> known,
                      std::string_view origin) {
  return TomlReader(t, origin).CheckKeys(known);
}

}  // namespace gpufleet
