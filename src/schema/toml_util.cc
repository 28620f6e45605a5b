#include "schema/toml_util.h"

namespace gpufleet {

StatusOr<toml::table> ParseToml(std::string_view text, std::string_view origin) {
  // Debian's toml++ is built with exceptions; they stop here.
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& err) {
    return InvalidArgumentError(std::string(origin) + ":" +
                                std::to_string(err.source().begin.line) + ":" +
                                std::to_string(err.source().begin.column) + ": " +
                                std::string(err.description()));
  }
}

std::string TomlWhere(std::string_view origin, const toml::node& node) {
  std::string s(origin);
  if (node.source().begin.line > 0) s += ":" + std::to_string(node.source().begin.line);
  return s + ": ";
}

StatusOr<std::string> RequiredString(const toml::table& t, std::string_view key,
                                     std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) {
    return InvalidArgumentError(TomlWhere(origin, t) + "missing field '" + std::string(key) + "'");
  }
  if (!n->is_string()) {
    return InvalidArgumentError(TomlWhere(origin, *n) + "field '" + std::string(key) +
                                "' must be a string");
  }
  return std::string(*n->value<std::string_view>());
}

StatusOr<std::string> OptionalString(const toml::table& t, std::string_view key,
                                     std::string_view origin) {
  if (t.get(key) == nullptr) return std::string();
  return RequiredString(t, key, origin);
}

StatusOr<double> OptionalNumber(const toml::table& t, std::string_view key, double fallback,
                                std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  if (auto v = n->value<double>()) return *v;
  return InvalidArgumentError(TomlWhere(origin, *n) + "field '" + std::string(key) +
                              "' must be a number");
}

}  // namespace gpufleet
