#include "schema/device.h"

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

}  // namespace gpufleet
