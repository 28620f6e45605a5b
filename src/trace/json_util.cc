#include "trace/json_util.h"

#include <algorithm>
#include <cmath>

namespace gpufleet::trace {

std::optional<Json> ParseJson(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

static const Json* Member(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(std::string(key));
  return it == j.end() ? nullptr : &*it;
}

std::optional<int64_t> JsonInt(const Json& j, std::string_view key) {
  const Json* v = Member(j, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9.0e18) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double> JsonDouble(const Json& j, std::string_view key) {
  const Json* v = Member(j, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::optional<std::string> JsonString(const Json& j, std::string_view key) {
  const Json* v = Member(j, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

const Json* JsonObject(const Json& j, std::string_view key) {
  const Json* v = Member(j, key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

const Json* JsonArray(const Json& j, std::string_view key) {
  const Json* v = Member(j, key);
  return v != nullptr && v->is_array() ? v : nullptr;
}

std::vector<JsonChunk> SplitJsonObjects(std::string_view text, bool* truncated) {
  std::vector<JsonChunk> out;
  int depth = 0;
  bool in_string = false, escape = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = depth > 0;
    } else if (c == '{' || c == '[') {
      if (depth == 0) start = i;
      ++depth;
    } else if ((c == '}' || c == ']') && depth > 0) {
      if (--depth == 0) out.push_back({start, text.substr(start, i + 1 - start)});
    }
  }
  if (truncated != nullptr) *truncated = depth > 0;
  return out;
}

int64_t LineOfOffset(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

}  // namespace gpufleet::trace
