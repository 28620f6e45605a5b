#include "core/labels.h"

#include <algorithm>

namespace gpufleet {

Labels::Labels(std::initializer_list<Pair> pairs) {
  for (const auto& [k, v] : pairs) Set(k, v);
}

void Labels::Set(std::string_view name, std::string_view value) {
  if (value.empty()) {
    Remove(name);
    return;
  }
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const Pair& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) {
    it->second.assign(value);
  } else {
    pairs_.insert(it, Pair(std::string(name), std::string(value)));
  }
}

void Labels::Remove(std::string_view name) {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const Pair& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) pairs_.erase(it);
}

std::string_view Labels::Get(std::string_view name) const {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const Pair& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) return it->second;
  return {};
}

bool Labels::Has(std::string_view name) const { return !Get(name).empty(); }

void Labels::Merge(const Labels& other) {
  for (const auto& [k, v] : other.pairs_) Set(k, v);
}

void AppendEscapedLabelValue(std::string_view value, std::string& out) {
  // Almost every value needs no escaping: append the clean prefix in one piece.
  size_t clean = 0;
  while (clean < value.size()) {
    char c = value[clean];
    if (c == '\\' || c == '"' || c == '\n') break;
    ++clean;
  }
  out.append(value.substr(0, clean));
  for (char c : value.substr(clean)) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

std::string Labels::ToString() const {
  if (pairs_.empty()) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : pairs_) {
    if (!first) out += ',';
    first = false;
    out += k;
    out += "=\"";
    AppendEscapedLabelValue(v, out);
    out += '"';
  }
  out += '}';
  return out;
}

namespace {
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || !IsAlpha(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsAlpha(c) || IsDigit(c); });
}

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !(IsAlpha(name[0]) || name[0] == ':')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsAlpha(c) || IsDigit(c) || c == ':'; });
}

}  // namespace gpufleet
