// Private lexical helpers of the exposition parser: byte classes, the
// label-value scan, number and timestamp parsing, UTF-8 validation. Kept
// inline where they sit on the per-byte or per-sample path.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "core/strings.h"

namespace gpufleet::expo_internal {

// Character classes, looked up once per byte on the hot path.
enum : uint8_t {
  kMetricStart = 1,  // [a-zA-Z_:]
  kMetricChar = 2,   // [a-zA-Z0-9_:]
  kLabelStart = 4,   // [a-zA-Z_]
  kLabelChar = 8,    // [a-zA-Z0-9_]
  kBlank = 16,       // ' ' '\t'
};

constexpr std::array<uint8_t, 256> MakeClassTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    uint8_t v = 0;
    if (alpha || c == ':') v |= kMetricStart | kMetricChar;
    if (digit) v |= kMetricChar | kLabelChar;
    if (alpha) v |= kLabelStart | kLabelChar;
    if (c == ' ' || c == '\t') v |= kBlank;
    t[static_cast<size_t>(c)] = v;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kClass = MakeClassTable();

// Label sets up to this size are checked for duplicates pair-wise.
constexpr size_t kLinearDuplicateCheck = 16;

inline bool Is(char c, uint8_t cls) { return (kClass[static_cast<unsigned char>(c)] & cls) != 0; }

inline const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && Is(*p, kBlank)) ++p;
  return p;
}

// Returns the first '"' or '\\' at or after `p` (or `end`), OR-ing every byte
// before it into `high`. Label values are most of a dcgm-exporter line, so
// this checks 8 bytes per step for a quote, a backslash or a non-ASCII byte
// and lets the byte loop settle any word that has one.
inline const char* ScanLabelValue(const char* p, const char* end, unsigned char* high) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    uint64_t quote = w ^ (kOnes * '"');
    uint64_t backslash = w ^ (kOnes * '\\');
    uint64_t hit = ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | w;
    if ((hit & kHighs) != 0) break;
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\') {
    *high |= static_cast<unsigned char>(*p);
    ++p;
  }
  return p;
}

// Value of a sample: plain decimals convert exactly without from_chars, the
// other common forms go through from_chars; "+Inf", "+1" and out-of-range
// literals take the slower shared path.
inline bool ParseValue(const char* b, const char* e, double* out) {
  if (ParseSimpleDecimal(std::string_view(b, static_cast<size_t>(e - b)), out)) return true;
  auto [ptr, ec] = std::from_chars(b, e, *out);
  if (ec == std::errc() && ptr == e) return true;
  std::optional<double> v = ParseDouble(std::string_view(b, static_cast<size_t>(e - b)));
  if (!v) return false;
  *out = *v;
  return true;
}

// RFC 3629 UTF-8 check (no overlongs, no surrogates, <= U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Exact conversion of the usual OpenMetrics timestamp form "[-+]digits[.digits]"
// to milliseconds (rounded half away from zero); false for any other form
// (exponents, overflow), which then goes through a double.
bool ParseDecimalSecondsAsMs(const char* b, const char* e, int64_t* ms);

}  // namespace gpufleet::expo_internal
