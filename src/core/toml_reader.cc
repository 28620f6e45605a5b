#include "core/toml_reader.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/duration.h"
#include "core/strings.h"

namespace gpufleet {

StatusOr<toml::table> ParseToml(std::string_view text, std::string_view origin) {
  // Debian's toml++ is built with exceptions; they stop here.
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& err) {
    return InvalidArgumentError(
        std::string(origin) + ":" + std::to_string(err.source().begin.line) + ":" +
        std::to_string(err.source().begin.column) + ": " + std::string(err.description()));
  }
}

std::string TomlPlace(std::string_view origin, const toml::node& node) {
  std::string s(origin);
  if (node.source().begin.line > 0) s += ":" + std::to_string(node.source().begin.line);
  return s;
}

std::string TomlWhere(std::string_view origin, const toml::node& node) {
  return TomlPlace(origin, node) + ": ";
}

std::string_view TomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
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

TomlReader::TomlReader(const toml::table& table, std::string_view origin, std::string path,
                       std::string context, Naming naming)
    : table_(&table),
      origin_(origin),
      path_(std::move(path)),
      context_(std::move(context)),
      naming_(naming) {}

TomlReader TomlReader::WithContext(std::string context, Naming naming) const {
  return TomlReader(*table_, origin_, path_, std::move(context), naming);
}

std::string TomlReader::Path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string TomlReader::FieldName(std::string_view key) const {
  return naming_ == Naming::kBare ? Path(key) + ": " : "field '" + Path(key) + "': ";
}

Status TomlReader::Error(const toml::node& at, std::string_view msg) const {
  return InvalidArgumentError(TomlWhere(origin_, at) + context_ + std::string(msg));
}

Status TomlReader::FieldError(const toml::node& at, std::string_view key,
                              std::string_view msg) const {
  return Error(at, FieldName(key) + std::string(msg));
}

Status TomlReader::Missing(std::string_view key) const {
  return Error(*table_, "missing field '" + Path(key) + "'");
}

Status TomlReader::CheckKeys(std::initializer_list<std::string_view> known) const {
  for (const auto& [k, v] : *table_) {
    const std::string_view key = k.str();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string msg = naming_ == Naming::kBare ? "unknown key '" + std::string(key) + "'"
                                               : "unknown field '" + Path(key) + "'";
    const std::string_view hint = SuggestClosest(key, known);
    if (!hint.empty()) msg += " (did you mean '" + std::string(hint) + "'?)";
    return Error(v, msg);
  }
  return OkStatus();
}

Status TomlReader::Read(std::string_view key, std::string& out) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  if (!n->is_string())
    return FieldError(*n, key, "must be a string, got " + std::string(TomlTypeName(*n)));
  out = n->as_string()->get();
  return OkStatus();
}

Status TomlReader::Read(std::string_view key, bool& out) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  if (!n->is_boolean()) {
    return FieldError(*n, key, "must be true or false, got " + std::string(TomlTypeName(*n)));
  }
  out = n->as_boolean()->get();
  return OkStatus();
}

Status TomlReader::Read(std::string_view key, int64_t& out, int64_t lo, int64_t hi) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  const bool ranged =
      lo != std::numeric_limits<int64_t>::min() || hi != std::numeric_limits<int64_t>::max();
  if (n->is_integer() && n->as_integer()->get() >= lo && n->as_integer()->get() <= hi) {
    out = n->as_integer()->get();
    return OkStatus();
  }
  if (ranged) {
    std::string range = hi == std::numeric_limits<int64_t>::max()
                            ? ">= " + std::to_string(lo)
                            : std::to_string(lo) + ".." + std::to_string(hi);
    return FieldError(*n, key, "must be an integer " + range);
  }
  return FieldError(*n, key, "must be an integer, got " + std::string(TomlTypeName(*n)));
}

Status TomlReader::Read(std::string_view key, double& out, double lo, double hi) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  std::optional<double> v;
  // toml++ converts an integer only when a double holds it exactly
  // (9007199254740993 is refused rather than silently rounded).
  if (n->is_integer()) v = n->value<double>();
  if (n->is_floating_point()) v = n->as_floating_point()->get();
  if (v && *v >= lo && *v <= hi) {  // also rejects NaN
    out = *v;
    return OkStatus();
  }
  if (std::isinf(lo) && std::isinf(hi)) {
    return FieldError(*n, key, "must be a number, got " + std::string(TomlTypeName(*n)));
  }
  std::string range =
      std::isinf(hi) ? ">= " + FormatDouble(lo) : FormatDouble(lo) + ".." + FormatDouble(hi);
  std::string got = v ? FormatDouble(*v) : std::string(TomlTypeName(*n));
  return FieldError(*n, key, "must be a number " + range + ", got " + got);
}

Status TomlReader::Read(std::string_view key, std::vector<std::string>& out) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  const toml::array* a = n->as_array();
  if (a == nullptr) {
    return FieldError(*n, key, "must be an array of strings, got " + std::string(TomlTypeName(*n)));
  }
  std::vector<std::string> v;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    if (!e.is_string()) {
      return FieldError(e, std::string(key) + "[" + std::to_string(i) + "]",
                        "must be a string, got " + std::string(TomlTypeName(e)));
    }
    v.push_back(e.as_string()->get());
  }
  out = std::move(v);
  return OkStatus();
}

Status TomlReader::ReadDuration(std::string_view key, int64_t& out_ns, int64_t min_ns) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  if (!n->is_string()) {
    return FieldError(*n, key,
                      "must be a duration such as \"30s\", got " + std::string(TomlTypeName(*n)));
  }
  StatusOr<int64_t> d = ParseDurationNs(n->as_string()->get());
  if (!d.ok()) return FieldError(*n, key, d.status().message());
  if (*d < min_ns) {
    const std::string want =
        min_ns == 1 ? "a positive duration" : "at least " + FormatDuration(min_ns);
    return FieldError(*n, key,
                      "must be " + want + ", got \"" + std::string(n->as_string()->get()) + "\"");
  }
  out_ns = *d;
  return OkStatus();
}

StatusOr<std::optional<TomlReader>> TomlReader::Table(std::string_view key) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return std::optional<TomlReader>();
  if (!n->is_table()) {
    return FieldError(*n, key, "must be a table, got " + std::string(TomlTypeName(*n)));
  }
  return std::optional<TomlReader>(
      TomlReader(*n->as_table(), origin_, Path(key), context_, naming_));
}

Status TomlReader::ForEachTable(std::string_view key,
                                const std::function<Status(const TomlReader&)>& fn) const {
  const toml::node* n = Get(key);
  if (n == nullptr) return OkStatus();
  const toml::array* a = n->as_array();
  if (a == nullptr) {
    return FieldError(*n, key, "must be an array of tables, got " + std::string(TomlTypeName(*n)));
  }
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    std::string path = Path(key) + "[" + std::to_string(i) + "]";
    if (!e.is_table()) {
      return Error(e, (naming_ == Naming::kBare ? path + ": " : "field '" + path + "': ") +
                          "must be a table, got " + std::string(TomlTypeName(e)));
    }
    RETURN_IF_ERROR(fn(TomlReader(*e.as_table(), origin_, path, context_, naming_)));
  }
  return OkStatus();
}

}  // namespace gpufleet
