// Typed reading of TOML config and data files, with errors that name the
// file, the line and the field:
//
//   site.toml:12: field 'node[3].gpus': must be an integer, got a string
//
// ParseToml turns text into a toml::table (a syntax error names
// origin:line:column). TomlReader is a view of one table of that tree: typed
// getters for its keys, unknown-key checks, and readers for sub-tables and
// arrays of tables whose field names carry the dotted path from the root.
//
// Getters come in two kinds. Read(key, out) is for optional keys: absent
// leaves `out` as it is (so `out` holds the default), present and of the
// right type stores the value. Require(key, out) fails with "missing field"
// when the key is absent. Type errors read "must be <type>, got <type>";
// range errors "must be <type> lo..hi".
//
// Errors are InvalidArgument. Nodes built in memory (not parsed) have no
// line, and their errors name only the origin ("request: ...").
//
// Lifetime: a TomlReader refers to its table (and origin string) and must
// not outlive them. Thread safety: const methods only; safe to share.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet {

// Parses TOML; a syntax error reads "origin:line:column: description".
StatusOr<toml::table> ParseToml(std::string_view text, std::string_view origin);

// "origin:line: " for a node (or "origin: " when it has no source position).
std::string TomlWhere(std::string_view origin, const toml::node& node);
// The same place without the separator: "origin:line" (or "origin"), for
// data that records where it came from.
std::string TomlPlace(std::string_view origin, const toml::node& node);

// "a string", "an integer", "a number", "a boolean", "an array", "a table",
// "a date", "a time", "a date-time": for "got ..." in messages.
std::string_view TomlTypeName(const toml::node& node);

// Short forms for data-file readers (catalogs, mapping tables). Messages:
// "origin:line: missing field 'key'", "... field 'key' must be a string",
// "... field 'key' must be a number".
StatusOr<std::string> RequiredString(const toml::table& t, std::string_view key,
                                     std::string_view origin);
// "" when absent.
StatusOr<std::string> OptionalString(const toml::table& t, std::string_view key,
                                     std::string_view origin);
// An integer or float; `fallback` when absent.
StatusOr<double> OptionalNumber(const toml::table& t, std::string_view key, double fallback,
                                std::string_view origin);

class TomlReader {
 public:
  // How a field is named in messages: kQuoted "field 'a.b': msg" (the
  // default), kBare "a.b: msg" (the placement files' historical form).
  enum class Naming { kQuoted, kBare };

  // `path` is the dotted path of `table` from the root ("" for the root);
  // `context` is put before every message after the location (e.g.
  // `node "a3": `).
  TomlReader(const toml::table& table, std::string_view origin, std::string path = {},
             std::string context = {}, Naming naming = Naming::kQuoted);

  const toml::table& table() const { return *table_; }
  std::string_view origin() const { return origin_; }
  const std::string& path() const { return path_; }
  // The same table with another context or naming (children inherit both).
  TomlReader WithContext(std::string context, Naming naming) const;

  const toml::node* Get(std::string_view key) const { return table_->get(key); }
  bool Has(std::string_view key) const { return Get(key) != nullptr; }
  // The dotted path of a key of this table: "node[3].gpus".
  std::string Path(std::string_view key) const;

  // "origin:line: <context>msg", at `at`.
  Status Error(const toml::node& at, std::string_view msg) const;
  // "origin:line: <context>field 'path.key': msg" (kBare: "path.key: msg").
  Status FieldError(const toml::node& at, std::string_view key, std::string_view msg) const;
  // At this table: "<context>missing field 'path.key'".
  Status Missing(std::string_view key) const;
  // Fails on the first key not in `known`: "unknown field 'path.key'" (kBare:
  // "unknown key 'key'"), with " (did you mean 'x'?)" when one is close.
  Status CheckKeys(std::initializer_list<std::string_view> known) const;

  // Optional typed getters: absent -> OK with `out` untouched.
  Status Read(std::string_view key, std::string& out) const;
  Status Read(std::string_view key, bool& out) const;
  // An integer in [lo, hi].
  Status Read(std::string_view key, int64_t& out, int64_t lo = std::numeric_limits<int64_t>::min(),
              int64_t hi = std::numeric_limits<int64_t>::max()) const;
  // An integer or float in [lo, hi] (NaN is outside every range). An integer
  // a double cannot hold exactly (beyond 2^53) is refused.
  Status Read(std::string_view key, double& out,
              double lo = -std::numeric_limits<double>::infinity(),
              double hi = std::numeric_limits<double>::infinity()) const;
  // An array whose every element is a string.
  Status Read(std::string_view key, std::vector<std::string>& out) const;
  // A duration string ("30s", "2m", "1h30m", "250ms"; see ParseDurationNs)
  // of at least `min_ns` (1: positive), in ns.
  Status ReadDuration(std::string_view key, int64_t& out_ns, int64_t min_ns = 0) const;

  // Required forms: absent -> Missing(key).
  template <typename T, typename... Range>
  Status Require(std::string_view key, T& out, Range... range) const {
    if (!Has(key)) return Missing(key);
    return Read(key, out, range...);
  }
  Status RequireDuration(std::string_view key, int64_t& out_ns, int64_t min_ns = 0) const {
    if (!Has(key)) return Missing(key);
    return ReadDuration(key, out_ns, min_ns);
  }

  // A sub-table: nullopt when absent; an error when present but not a table.
  StatusOr<std::optional<TomlReader>> Table(std::string_view key) const;
  // Calls fn on each element of an array of tables ([[key]] or [{...}]),
  // whose path is "key[i]"; absent -> no calls. An element that is not a
  // table fails with "must be an array of tables".
  Status ForEachTable(std::string_view key,
                      const std::function<Status(const TomlReader&)>& fn) const;

 private:
  std::string FieldName(std::string_view key) const;

  const toml::table* table_;
  std::string_view origin_;
  std::string path_;
  std::string context_;
  Naming naming_;
};

}  // namespace gpufleet
