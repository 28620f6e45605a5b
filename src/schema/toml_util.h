// Helpers for reading gpufleet's TOML data files with errors that name the
// file, line and field. Private to schema/ and normalize/ (data readers).
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "core/status.h"

namespace gpufleet {

// Parses TOML; a syntax error names origin:line:column.
StatusOr<toml::table> ParseToml(std::string_view text, std::string_view origin);

// "origin:line: " for a node (or "origin: " when it has no source position).
std::string TomlWhere(std::string_view origin, const toml::node& node);

// Reads a required string field of `t`; the error names origin, line and field.
StatusOr<std::string> RequiredString(const toml::table& t, std::string_view key,
                                     std::string_view origin);
// Optional string field; "" when absent. Error when present but not a string.
StatusOr<std::string> OptionalString(const toml::table& t, std::string_view key,
                                     std::string_view origin);
// Optional number (integer or float) field; `fallback` when absent.
StatusOr<double> OptionalNumber(const toml::table& t, std::string_view key, double fallback,
                                std::string_view origin);

}  // namespace gpufleet
