// nlohmann::json helpers for the JSON-based importers (private to src/trace).
// Parsing never throws: values are parsed with exceptions disabled and read
// through these typed getters, which return nullopt on absence or wrong type.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufleet::trace {

using Json = nlohmann::json;

// Parses one JSON text; nullopt when it is not valid JSON.
std::optional<Json> ParseJson(std::string_view text);

std::optional<int64_t> JsonInt(const Json& j, std::string_view key);
std::optional<double> JsonDouble(const Json& j, std::string_view key);
std::optional<std::string> JsonString(const Json& j, std::string_view key);
const Json* JsonObject(const Json& j, std::string_view key);  // object or null
const Json* JsonArray(const Json& j, std::string_view key);   // array or null

// One top-level JSON object of a stream (JSONL, or objects written one after
// another, possibly pretty-printed) with its byte offset in the input.
struct JsonChunk {
  size_t offset = 0;
  std::string_view text;
};
// Splits a stream into top-level {...} chunks by brace depth (strings and
// escapes respected). `truncated` is set when the input ends inside an object.
std::vector<JsonChunk> SplitJsonObjects(std::string_view text, bool* truncated);

// 1-based line number of a byte offset (for error messages).
int64_t LineOfOffset(std::string_view text, size_t offset);

}  // namespace gpufleet::trace
