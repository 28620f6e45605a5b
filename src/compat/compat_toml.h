// TOML field readers for the compatibility tables and the `compat check`
// input files. Private to compat/. Every error names origin:line and field;
// the generic ones are core/toml_reader.h's TomlReader getters, kept here as
// StatusOr-returning short forms for the tables' many call sites.
#pragma once

#include <toml++/toml.h>

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compat/compat_version.h"
#include "core/status.h"

namespace gpufleet {

// A version field written as a string ("570.86.15"); an integer (535) is
// accepted too since a bare branch number is a natural way to write one.
// Absent -> empty Version.
StatusOr<Version> OptionalVersionField(const toml::table& t, std::string_view key,
                                       std::string_view origin);
StatusOr<Version> RequiredVersionField(const toml::table& t, std::string_view key,
                                       std::string_view origin);
StatusOr<PackageVersion> OptionalPackageVersionField(const toml::table& t, std::string_view key,
                                                     std::string_view origin);
// Array of strings; absent -> empty.
StatusOr<std::vector<std::string>> StringArrayField(const toml::table& t, std::string_view key,
                                                    std::string_view origin);
StatusOr<bool> OptionalBoolField(const toml::table& t, std::string_view key, bool fallback,
                                 std::string_view origin);
// Non-negative integer; absent -> fallback.
StatusOr<uint32_t> OptionalUintField(const toml::table& t, std::string_view key, uint32_t fallback,
                                     std::string_view origin);
// A table of string values (environment variables); absent -> empty.
StatusOr<std::map<std::string, std::string>> StringMapField(const toml::table& t,
                                                            std::string_view key,
                                                            std::string_view origin);
// Fails on any key of `t` not in `known`, suggesting the closest one, so a
// typo ("drvier") is an error rather than a silently skipped check.
Status CheckKnownKeys(const toml::table& t, std::initializer_list<std::string_view> known,
                      std::string_view origin);

}  // namespace gpufleet
