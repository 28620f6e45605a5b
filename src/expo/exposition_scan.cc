#include "expo/exposition_scan.h"

namespace gpufleet::expo_internal {

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    size_t n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (static_cast<size_t>(end - p) <= n) return false;
    for (size_t i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}

bool ParseDecimalSecondsAsMs(const char* b, const char* e, int64_t* ms) {
  const char* p = b;
  bool neg = false;
  if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
  const char* int_begin = p;
  uint64_t whole = 0;
  while (p < e && *p >= '0' && *p <= '9') {
    if (whole > (UINT64_MAX - 9) / 10) return false;
    whole = whole * 10 + static_cast<uint64_t>(*p++ - '0');
  }
  if (p == int_begin) return false;
  uint64_t frac = 0;
  if (p < e && *p == '.') {
    ++p;
    int digits = 0;
    while (p < e && *p >= '0' && *p <= '9') {
      if (digits < 3) frac = frac * 10 + static_cast<uint64_t>(*p - '0');
      if (digits == 3 && *p >= '5') frac += 1;  // rounds on the 4th digit
      ++digits;
      ++p;
    }
    for (int i = digits; i < 3; ++i) frac *= 10;
  }
  if (p != e) return false;
  constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |INT64_MIN|
  if (whole > (kMaxMagnitude - frac) / 1000) return false;
  uint64_t mag = whole * 1000 + frac;
  if (mag > kMaxMagnitude || (!neg && mag == kMaxMagnitude)) return false;
  *ms = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  return true;
}
}  // namespace gpufleet::expo_internal
