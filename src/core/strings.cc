#include "core/strings.h"

#include <algorithm>
#include <bit>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

namespace gpufleet {

std::string_view TrimWhitespace(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> SplitString(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool ParseSimpleDecimal(std::string_view s, double* out) {
  static constexpr double kPow10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = s.data();
  const char* const e = p + s.size();
  const bool neg = p < e && *p == '-';
  if (neg) ++p;
  // Digits, then '.' and digits: two tight loops (this parses every value
  // and timestamp of every scrape). n may wrap past 15 digits; those are
  // refused below.
  auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10; };
  uint64_t n = 0;
  const char* const whole = p;
  while (p < e && digit(*p)) n = n * 10 + static_cast<uint64_t>(*p++ - '0');
  ptrdiff_t digits = p - whole, decimals = 0;
  if (p < e && *p == '.') {
    const char* const fraction = ++p;
    while (p < e && digit(*p)) n = n * 10 + static_cast<uint64_t>(*p++ - '0');
    decimals = p - fraction;
    digits += decimals;
  }
  if (p != e || digits == 0 || digits > 15) return false;
  double v = static_cast<double>(n);
  if (decimals > 0) v /= kPow10[decimals];
  *out = neg ? -v : v;
  return true;
}

std::optional<double> ParseDouble(std::string_view s) {
  double fast;
  if (ParseSimpleDecimal(s, &fast)) return fast;
  if (s.empty()) return std::nullopt;
  std::string_view body = s;
  bool neg = false;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "Inf" || body == "inf" || body == "INF") return neg ? -INFINITY : INFINITY;
  if (body == "NaN" || body == "nan") return NAN;
  if (body.empty() || body[0] == '+' || body[0] == '-') return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec == std::errc::result_out_of_range && ptr == body.data() + body.size()) {
    // Overflow or underflow: clamp to +-Inf or 0 like strtod does.
    v = std::strtod(std::string(body).c_str(), nullptr);
    return neg ? -v : v;
  }
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return neg ? -v : v;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

namespace {

// Most telemetry values that are not integers have a few decimals (0.47,
// 409.692). For 0.001 <= |v| < 1e9 with at most six of them, the shortest
// round-trip form is the integer n = v * 10^k for the least k at which n /
// 10^k gives v back, printed in fixed notation (fixed is then never longer
// than scientific, and std::to_chars prefers fixed on ties). Writes it
// ending at `end` and returns where it starts, or nullptr for every other
// value. Tested against std::to_chars.
char* ShortDecimalBefore(double v, char* end) {
  static constexpr double kPow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
  double a = std::fabs(v);
  if (!(a >= 0.001 && a < 1e9)) return nullptr;
  for (int k = 1; k <= 6; ++k) {
    double n = std::nearbyint(a * kPow10[k]);
    if (n / kPow10[k] != a) continue;
    auto digits = static_cast<uint64_t>(n);
    char* p = end;
    for (int i = 0; i < k; ++i) {
      *--p = static_cast<char>('0' + digits % 10);
      digits /= 10;
    }
    *--p = '.';
    do {
      *--p = static_cast<char>('0' + digits % 10);
      digits /= 10;
    } while (digits != 0);
    if (v < 0) *--p = '-';
    return p;
  }
  return nullptr;
}

}  // namespace

size_t FormatDoubleTo(double v, char* buf) {
  auto copy = [buf](std::string_view s) {
    std::memcpy(buf, s.data(), s.size());
    return s.size();
  };
  if (std::isnan(v)) return copy("NaN");
  if (std::isinf(v)) return copy(v > 0 ? "+Inf" : "-Inf");
  // Integers up to 2^53 print without exponent or fraction, like Go's 'g'.
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return static_cast<size_t>(
        std::to_chars(buf, buf + kMaxDoubleChars, static_cast<int64_t>(v)).ptr - buf);
  }
  char tmp[kMaxDoubleChars];
  if (const char* p = ShortDecimalBefore(v, tmp + sizeof(tmp))) {
    return copy(std::string_view(p, static_cast<size_t>(tmp + sizeof(tmp) - p)));
  }
  return static_cast<size_t>(std::to_chars(buf, buf + kMaxDoubleChars, v).ptr - buf);
}

void AppendDouble(double v, std::string& out) {
  char buf[kMaxDoubleChars];
  out.append(buf, FormatDoubleTo(v, buf));
}

std::string FormatDouble(double v) {
  std::string s;
  AppendDouble(v, s);
  return s;
}

namespace {

using TextId = std::pair<std::string_view, uint32_t>;

// Bytes [depth, depth + 8) of `s` as a big-endian integer (zeros past the
// end), and how many of them `s` has; together they order texts by those
// bytes exactly (a text that ends sorts before any longer one).
struct ChunkKey {
  uint64_t chunk;
  uint32_t bytes;
  uint32_t index;  // into the span being sorted
  bool operator<(const ChunkKey& o) const {
    if (chunk != o.chunk) return chunk < o.chunk;
    return bytes < o.bytes;
  }
  bool SameBytes(const ChunkKey& o) const { return chunk == o.chunk && bytes == o.bytes; }
};

// Texts that are all equal: by id.
void SortById(std::span<TextId> items) {
  std::sort(items.begin(), items.end(),
            [](const TextId& a, const TextId& b) { return a.second < b.second; });
}

ChunkKey KeyAt(std::string_view s, size_t depth, uint32_t index) {
  if (std::endian::native == std::endian::little && s.size() >= depth + 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + depth, 8);
    return ChunkKey{__builtin_bswap64(word), 8, index};
  }
  size_t n = s.size() > depth ? std::min<size_t>(8, s.size() - depth) : 0;
  uint64_t chunk = 0;
  for (size_t k = 0; k < n; ++k) {
    chunk |= uint64_t{static_cast<unsigned char>(s[depth + k])} << (56 - 8 * k);
  }
  return ChunkKey{chunk, static_cast<uint32_t>(n), index};
}

// Sorts `items`, whose texts all share their first `depth` bytes.
void SortFrom(std::span<TextId> items, size_t depth, std::vector<ChunkKey>& keys,
              std::vector<TextId>& scratch) {
  while (items.size() > 1) {
    if (items.size() <= 16) {
      std::sort(items.begin(), items.end(), [depth](const TextId& a, const TextId& b) {
        int c = a.first.substr(depth).compare(b.first.substr(depth));
        return c != 0 ? c < 0 : a.second < b.second;
      });
      return;
    }
    keys.resize(items.size());
    bool all_equal = true;
    for (uint32_t i = 0; i < items.size(); ++i) {
      keys[i] = KeyAt(items[i].first, depth, i);
      all_equal = all_equal && keys[i].SameBytes(keys[0]);
    }
    if (all_equal) {
      if (keys[0].bytes < 8) {  // all texts ended: equal, so by id
        SortById(items);
        return;
      }
      depth += 8;  // a prefix shared by all: step over it once
      continue;
    }
    std::sort(keys.begin(), keys.end());
    scratch.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) scratch[i] = items[keys[i].index];
    std::copy(scratch.begin(), scratch.end(), items.begin());
    // Runs of equal keys are sorted further (the recursion reuses `keys`, so
    // the runs are collected first).
    struct Run {
      uint32_t first;
      uint32_t count;
      bool ended;  // the texts end within these bytes: equal, so by id
    };
    std::vector<Run> runs;
    for (uint32_t i = 0; i < keys.size();) {
      uint32_t j = i + 1;
      while (j < keys.size() && keys[j].SameBytes(keys[i])) ++j;
      if (j - i > 1) runs.push_back(Run{i, j - i, keys[i].bytes < 8});
      i = j;
    }
    for (const Run& r : runs) {
      std::span<TextId> run = items.subspan(r.first, r.count);
      if (r.ended) {
        SortById(run);
      } else {
        SortFrom(run, depth + 8, keys, scratch);
      }
    }
    return;
  }
}

}  // namespace

void SortTextsWithIds(std::vector<std::pair<std::string_view, uint32_t>>& items) {
  std::vector<ChunkKey> keys;
  std::vector<TextId> scratch;
  SortFrom(std::span<TextId>(items), 0, keys, scratch);
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool SplitCsvLine(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(std::move(field));
  return !quoted;
}

bool LineReader::Next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  size_t nl = text_.find('\n', pos_);
  if (nl == std::string_view::npos) nl = text_.size();
  line = text_.substr(pos_, nl - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = nl + 1;
  ++line_no_;
  return true;
}

}  // namespace gpufleet
