// libFuzzer target: the KFD SMI event stream (collect/kfd_events.h). The
// input is fed in pieces whose sizes come from its first byte, since the
// kernel's reads may end anywhere; a count never exceeds the lines seen.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/kfd_events.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 97;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  gpufleet::KfdEventStream s;
  for (size_t i = 0; i < text.size(); i += piece) s.Feed(text.substr(i, piece));
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  const uint64_t counted = s.count(gpufleet::kKfdEventPageFaultStart) +
                           s.count(gpufleet::kKfdEventPageFaultEnd) + s.malformed();
  if (counted > lines + 1 + text.size() / 384) __builtin_trap();
  return 0;
}
