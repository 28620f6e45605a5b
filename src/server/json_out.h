// Small, fast JSON output for the console APIs whose answers are large
// (the fleet summary of 10,000 devices, series of many points), where
// building an nlohmann::json tree first costs more than the query.
//
// Strings are escaped per RFC 8259; bytes that are not valid UTF-8 become
// U+FFFD, so the output is always valid JSON whatever the label values
// carried. Non-finite numbers are written as null.
//
// Thread safety: free functions on caller-owned strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpufleet {

void AppendJsonString(std::string_view s, std::string& out);
void AppendJsonNumber(double v, std::string& out);                 // null when not finite
void AppendJsonNumber(std::optional<double> v, std::string& out);  // null when absent
// `"key":` (the key is escaped).
void AppendJsonKey(std::string_view key, std::string& out);

}  // namespace gpufleet
