// Small string helpers shared by parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufleet {

std::string_view TrimWhitespace(std::string_view s);
std::vector<std::string_view> SplitString(std::string_view s, char sep);
// Splits one CSV line into `out`: fields may be double-quoted, with "" for a
// quote. Returns false on an unterminated quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>& out);
// Iterates lines of a text buffer; strips a trailing '\r'. `line_no` is 1-based.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool Next(std::string_view& line);
  int64_t line_no() const { return line_no_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_no_ = 0;
};
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
// ASCII only: other bytes are kept / compared as they are.
std::string ToLower(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Parses a whole string as a double (also "NaN", "+Inf", "-Inf"). nullopt on
// any trailing garbage.
std::optional<double> ParseDouble(std::string_view s);
// The common case of ParseDouble, fast: "[-]digits[.digits]" with at most 15
// digits, which converts exactly (Clinger's fast path: n and 10^k are exact
// doubles and one division rounds correctly). False (and *out untouched) for
// any other form; then use ParseDouble.
bool ParseSimpleDecimal(std::string_view s, double* out);
// Parses a whole string as a base-10 signed/unsigned 64-bit integer.
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<uint64_t> ParseUint64(std::string_view s);

// Formats a double the way Prometheus exposition expects: shortest
// round-tripping form, "NaN", "+Inf", "-Inf".
void AppendDouble(double v, std::string& out);
// Same into `buf` (at least kMaxDoubleChars long); returns the length.
inline constexpr size_t kMaxDoubleChars = 32;
size_t FormatDoubleTo(double v, char* buf);
std::string FormatDouble(double v);

// Sorts (text, id) pairs exactly as std::sort would (by text, then id), but
// compares eight bytes at a time as integers and passes over prefixes that
// every text shares once, not once per comparison: rendered label lists
// share long prefixes (`container="...",gpu_index="...`), which byte-wise
// comparisons walk again and again.
void SortTextsWithIds(std::vector<std::pair<std::string_view, uint32_t>>& items);

// Levenshtein distance in bytes.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` by edit distance when it is close enough to
// be a likely typo (at most max(2, |word| / 3) edits), else "". For "did you
// mean ...?" hints on unknown flags, commands and fields.
template <typename Range>
std::string_view SuggestClosest(std::string_view word, const Range& candidates) {
  std::string_view best;
  size_t best_d = (word.size() / 3 > 2 ? word.size() / 3 : 2) + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace gpufleet
