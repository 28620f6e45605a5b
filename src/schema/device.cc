#include "schema/device.h"

#include <cctype>
#include <cstdio>

#include "core/strings.h"

namespace gpufleet {

std::string CanonicalPciBusId(std::string_view id) {
  // Accepts "00000000:29:00.0", "0000:29:00.0", "29:00.0" in any case.
  std::string s = ToLower(TrimWhitespace(id));
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) == 4) {
  } else if (std::sscanf(s.c_str(), "%x:%x.%x%c", &bus, &dev, &fn, &tail) == 3) {
    domain = 0;
  } else {
    return std::string(id);
  }
  if (bus > 0xff || dev > 0x1f || fn > 7 || domain > 0xffff) return std::string(id);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", domain, bus, dev, fn);
  return buf;
}

std::optional<uint32_t> ParsePciId(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  uint32_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0 || i > 10) return std::nullopt;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

}  // namespace gpufleet
