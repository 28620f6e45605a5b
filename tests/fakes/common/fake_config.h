// The scripting file every fake vendor library reads: `key = value` lines
// in a file named by an environment variable, re-read whenever its path,
// mtime or size changes, so an end-to-end test can change a fake device's
// state under a running agent. '#' starts a comment; lines without '=' are
// ignored (a test fixture, not a product parser).
//
//   # lose the second GPU and slow the first one down
//   lost = 1
//   hang_ms.0 = 5000
//
// Each fake defines its own keys (see its control header). Built into each
// fake shared library as a static, hidden-visibility library.
//
// Thread safety: none; the owning fake serializes calls under its own lock.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fake_common {

// `s` without leading and trailing blanks (space, tab, CR, LF).
std::string Trim(std::string_view s);

// The non-empty, trimmed items of a comma-separated list ("0, 1" -> {"0", "1"}).
std::vector<std::string> SplitList(std::string_view s);

// Copies `src` into a C buffer of `size` bytes, truncated and always
// NUL-terminated (nothing is written when `size` is 0), as vendor APIs fill
// caller buffers.
void CopyString(char* dst, size_t size, const char* src);

class ConfigFile {
 public:
  using Entry = std::pair<std::string, std::string>;

  // `env_var` must outlive the object (a string literal in practice).
  explicit ConfigFile(const char* env_var) : env_var_(env_var) {}

  // Re-reads the file when it changed since the last read. Returns true when
  // entries() was replaced (first read or a change): the caller then resets
  // its scripted state and applies them. An unset variable or a missing file
  // keeps the last entries and returns false.
  bool Reload();

  // Makes the next Reload() read the file even when it did not change.
  void Invalidate() { loaded_ = false; }

  // Every `key = value` line of the last read, in file order.
  const std::vector<Entry>& entries() const { return entries_; }

  // The value of the last line with this key; nullptr when absent.
  const std::string* Find(std::string_view key) const;
  // Find() as an integer (strtol base 0: "0x22" works), `fallback` when absent.
  long Int(std::string_view key, long fallback) const;
  // True when `index` is one of the comma-separated integers under `key`.
  bool InList(std::string_view key, int index) const;

 private:
  const char* env_var_;
  bool loaded_ = false;
  std::string path_;
  struct timespec mtime_ {};
  off_t size_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace fake_common
