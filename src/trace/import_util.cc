#include "trace/import_util.h"

#include <utility>

namespace gpufleet::trace {

void NoteSkipped(SourceFile& file, std::string reason) {
  ++file.skipped;
  NoteError(file, std::move(reason));
}

void NoteError(SourceFile& file, std::string message) {
  if (file.errors.size() < kMaxErrors) file.errors.push_back(std::move(message));
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace gpufleet::trace
