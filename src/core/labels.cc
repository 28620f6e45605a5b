#include "core/labels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gpufleet {

Labels::Labels(std::initializer_list<Pair> pairs) {
  for (const auto& [k, v] : pairs) Set(k, v);
}

void Labels::Set(std::string_view name, std::string_view value) {
  if (value.empty()) {
    Remove(name);
    return;
  }
  if (pairs_.empty() || pairs_.back().first < name) {  // labels set in order
    pairs_.emplace_back(name, value);
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
  // Most lookups ask for __name__, which sorts first in a Prometheus label
  // set: one equality test (lengths first) instead of a binary search.
  if (!pairs_.empty() && pairs_.front().first == name) return pairs_.front().second;
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const Pair& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) return it->second;
  return {};
}

bool Labels::Has(std::string_view name) const { return !Get(name).empty(); }

void Labels::Merge(const Labels& other) {
  for (const auto& [k, v] : other.pairs_) Set(k, v);
}

namespace {

// True when any byte of `word` is zero (the classic bit trick: a byte's high
// bit survives `(b - 1) & ~b` only when b was 0).
constexpr bool HasZeroByte(uint64_t word) {
  return ((word - 0x0101010101010101ull) & ~word & 0x8080808080808080ull) != 0;
}

constexpr uint64_t Repeat(char c) { return 0x0101010101010101ull * static_cast<uint8_t>(c); }

}  // namespace

size_t LabelValueCleanPrefix(std::string_view value) {
  size_t clean = 0;
  // Eight bytes at a time until a word holds one of them.
  while (clean + 8 <= value.size()) {
    uint64_t word;
    std::memcpy(&word, value.data() + clean, 8);
    if (HasZeroByte(word ^ Repeat('\\')) || HasZeroByte(word ^ Repeat('"')) ||
        HasZeroByte(word ^ Repeat('\n'))) {
      break;
    }
    clean += 8;
  }
  while (clean < value.size()) {
    char c = value[clean];
    if (c == '\\' || c == '"' || c == '\n') break;
    ++clean;
  }
  return clean;
}

std::string Labels::ToString() const {
  std::string out;
  AppendLabelList(pairs_, out);
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
