#include "expo/exposition_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "core/strings.h"
#include "expo/exposition_scan.h"

namespace gpufleet {

std::string ExpoError::ToString(std::string_view origin) const {
  std::string out(origin);
  out += ':';
  out += std::to_string(line);
  out += ':';
  out += std::to_string(column);
  out += ": ";
  out += message;
  return out;
}

namespace expo_internal {
namespace {

bool IsKnownType(std::string_view t) {
  static constexpr std::string_view kTypes[] = {"counter", "gauge",    "histogram",
                                                "summary", "untyped",  "unknown",
                                                "info",    "stateset", "gaugehistogram"};
  for (std::string_view k : kTypes) {
    if (t == k) return true;
  }
  return false;
}

std::string Quote(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out = "\"";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

class Parser {
 public:
  Parser(std::string_view text, ExpositionHandler& handler, bool openmetrics)
      : text_(text), handler_(handler), openmetrics_(openmetrics) {}

  ExpoParseStats Run();

 private:
  // Each returns false after recording the error position and message.
  bool ParseSampleLine(const char* p, const char* end);
  bool ParseLabels(const char*& p, const char* end);
  bool ParseLabelValue(const char*& p, const char* end, std::string_view* value);
  // Duplicate label names in a long label set, found in O(n log n); short
  // sets are checked pair-wise while parsing.
  bool CheckManyLabelsUnique();
  bool ParseCommentLine(const char* p, const char* end);
  // Copies [b, e) into scratch_ undoing \\, \" and \n; stops at an unescaped
  // '"' when `stop_at_quote`. Returns the end position.
  const char* Unescape(const char* b, const char* e, bool stop_at_quote, std::string_view* out);
  void PrepareScratch();

  bool Fail(const char* at, std::string message) {
    error_at_ = at;
    error_message_ = std::move(message);
    return false;
  }

  std::string_view text_;
  ExpositionHandler& handler_;
  const bool openmetrics_;
  ExpoParseStats stats_;

  // Per-line state, reused so that the common line allocates nothing.
  std::vector<ExpoLabel> labels_;
  std::vector<std::string_view> sorted_names_;
  std::string scratch_;
  bool scratch_ready_ = false;
  const char* line_begin_ = nullptr;
  const char* line_end_ = nullptr;
  size_t line_no_ = 0;
  const char* error_at_ = nullptr;
  std::string_view last_name_;  // the last valid sample name (a view into the text)
  std::string error_message_;
};

ExpoParseStats Parser::Run() {
  const char* p = text_.data();
  const char* const end = p + text_.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    const char* eol = nl != nullptr ? static_cast<const char*>(nl) : end;
    const char* next = nl != nullptr ? eol + 1 : end;
    const char* content_end = eol;
    if (content_end > p && content_end[-1] == '\r') --content_end;  // CRLF
    ++line_no_;
    ++stats_.lines;
    line_begin_ = p;
    line_end_ = content_end;
    scratch_ready_ = false;
    const char* first = SkipBlanks(p, content_end);
    if (first == content_end) {  // blank line
      p = next;
      continue;
    }
    if (stats_.saw_eof) {
      Fail(first, "content after \"# EOF\" is ignored");
      ExpoError err{line_no_, static_cast<size_t>(first - p) + 1,
                    static_cast<size_t>(first - text_.data()), std::move(error_message_)};
      handler_.OnError(err);
      ++stats_.errors;
      break;
    }
    bool ok =
        *first == '#' ? ParseCommentLine(first, content_end) : ParseSampleLine(first, content_end);
    if (!ok) {
      ExpoError err{line_no_, static_cast<size_t>(error_at_ - p) + 1,
                    static_cast<size_t>(error_at_ - text_.data()), std::move(error_message_)};
      handler_.OnError(err);
      ++stats_.errors;
    }
    p = next;
  }
  return stats_;
}

// Handles, e.g. (dcgm-exporter, Kubernetes pod mapping):
//   DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-8441...",pod="triton-84d57987c9-kks4k"} 0.000000
bool Parser::ParseSampleLine(const char* p, const char* end) {
  const char* name_begin = p;
  std::string_view name;
  // The lines of a family repeat its name: compare with the last one first
  // (the same bytes ended by '{' or a blank are the same valid name).
  const size_t last = last_name_.size();
  if (last > 0 && static_cast<size_t>(end - p) > last && (p[last] == '{' || Is(p[last], kBlank)) &&
      std::memcmp(p, last_name_.data(), last) == 0) {
    p += last;
    name = std::string_view(name_begin, last);
  } else {
    if (!Is(*p, kMetricStart)) {
      if (*p == '{') return Fail(p, "metric name missing before '{'");
      return Fail(p, "invalid character at the start of a metric name");
    }
    ++p;
    while (p < end && Is(*p, kMetricChar)) ++p;
    name = std::string_view(name_begin, static_cast<size_t>(p - name_begin));
    if (p < end && !Is(*p, kBlank) && *p != '{') {
      return Fail(p, "invalid character in metric name " + Quote(name));
    }
    last_name_ = name;
  }
  p = SkipBlanks(p, end);
  labels_.clear();
  std::string_view raw_labels;
  bool labels_parsed = true;
  if (p < end && *p == '{') {
    ++p;
    const char* raw_begin = p;
    size_t known = handler_.KnownLabelSet(std::string_view(raw_begin, static_cast<size_t>(end - p)));
    if (known != std::string_view::npos) {
      p = raw_begin + known + 1;  // past the '}' that follows it
      labels_parsed = false;
    } else if (!ParseLabels(p, end)) {
      return false;
    }
    raw_labels = std::string_view(raw_begin, static_cast<size_t>(p - 1 - raw_begin));
    if (p < end && !Is(*p, kBlank)) return Fail(p, "expected a blank after the label set");
    p = SkipBlanks(p, end);
  }
  ExpoSampleTail tail;
  ExpoTailError tail_error;
  if (!ParseExpoSampleTail(std::string_view(p, static_cast<size_t>(end - p)), openmetrics_, name,
                           &tail, &tail_error)) {
    return Fail(p + tail_error.offset, std::move(tail_error.message));
  }
  const double value = tail.value;
  const std::optional<int64_t> timestamp_ms = tail.timestamp_ms;

  handler_.OnSample(
      ExpoSample{name, std::span<const ExpoLabel>(labels_), value, timestamp_ms, line_no_,
                 raw_labels, labels_parsed});
  ++stats_.samples;
  return true;
}

// On entry `p` is just past '{'; on success it is just past '}'.
bool Parser::ParseLabels(const char*& p, const char* end) {
  // Reserved at the first label set, not per parse: a replay parses one
  // line per call, most with a label set it already knows.
  if (labels_.capacity() == 0) labels_.reserve(32);
  while (true) {
    p = SkipBlanks(p, end);
    if (p == end) return Fail(p, "unterminated label set (missing '}')");
    if (*p == '}') {  // "{}" or a trailing comma
      ++p;
      return CheckManyLabelsUnique();
    }
    const char* lname_begin = p;
    if (!Is(*p, kLabelStart)) return Fail(p, "invalid character at the start of a label name");
    ++p;
    while (p < end && Is(*p, kLabelChar)) ++p;
    std::string_view lname(lname_begin, static_cast<size_t>(p - lname_begin));
    p = SkipBlanks(p, end);
    if (p == end || *p != '=') {
      if (p < end && !Is(*p, kBlank)) {
        return Fail(p, "invalid character in label name " + Quote(lname) + " (expected '=')");
      }
      return Fail(p, "expected '=' after label name " + Quote(lname));
    }
    ++p;
    p = SkipBlanks(p, end);
    if (p == end || *p != '"') return Fail(p, "expected '\"' to open the value of " + Quote(lname));
    std::string_view lvalue;
    if (!ParseLabelValue(p, end, &lvalue)) return false;
    if (labels_.size() < kLinearDuplicateCheck) {
      for (const ExpoLabel& l : labels_) {
        if (l.name.size() == lname.size() && l.name[0] == lname[0] && l.name == lname) {
          return Fail(lname_begin, "duplicate label name " + Quote(lname));
        }
      }
    }
    labels_.push_back(ExpoLabel{lname, lvalue});
    p = SkipBlanks(p, end);
    if (p == end) return Fail(p, "unterminated label set (missing '}')");
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == '}') {
      ++p;
      return CheckManyLabelsUnique();
    }
    return Fail(p, "expected ',' or '}' after the value of " + Quote(lname));
  }
}

bool Parser::CheckManyLabelsUnique() {
  if (labels_.size() <= kLinearDuplicateCheck) return true;
  // Label names always point into the input, so sorting the views keeps
  // where each came from: the later of two equal names is the error.
  sorted_names_.clear();
  for (const ExpoLabel& l : labels_) sorted_names_.push_back(l.name);
  std::sort(sorted_names_.begin(), sorted_names_.end());
  for (size_t i = 1; i < sorted_names_.size(); ++i) {
    if (sorted_names_[i] == sorted_names_[i - 1]) {
      const char* later = std::max(sorted_names_[i].data(), sorted_names_[i - 1].data());
      return Fail(later, "duplicate label name " + Quote(sorted_names_[i]));
    }
  }
  return true;
}

// On entry `p` is at the opening '"'; on success it is just past the closing one.
bool Parser::ParseLabelValue(const char*& p, const char* end, std::string_view* value) {
  const char* open = p;
  const char* b = ++p;
  unsigned char high = 0;
  p = ScanLabelValue(p, end, &high);
  if (p < end && *p == '"') {
    *value = std::string_view(b, static_cast<size_t>(p - b));
    ++p;
  } else if (p < end) {  // a backslash: unescape into scratch
    p = Unescape(b, end, /*stop_at_quote=*/true, value);
    if (p == end) return Fail(open, "unterminated label value (missing '\"')");
    ++p;
    high = 0x80;  // checked below on the unescaped bytes
  } else {
    return Fail(open, "unterminated label value (missing '\"')");
  }
  if ((high & 0x80) != 0 && !IsValidUtf8(*value)) {
    return Fail(open + 1, "label value is not valid UTF-8");
  }
  return true;
}

void Parser::PrepareScratch() {
  if (scratch_ready_) return;
  // Unescaped text is never longer than the line, so reserving the line's
  // length once keeps every view into scratch_ valid until the next line.
  scratch_.clear();
  scratch_.reserve(static_cast<size_t>(line_end_ - line_begin_));
  scratch_ready_ = true;
}

const char* Parser::Unescape(const char* b, const char* e, bool stop_at_quote,
                             std::string_view* out) {
  PrepareScratch();
  size_t start = scratch_.size();
  const char* p = b;
  while (p < e) {
    char c = *p;
    if (c == '"' && stop_at_quote) break;
    if (c == '\\' && p + 1 < e) {
      char n = p[1];
      if (n == '\\' || n == '"') {
        scratch_.push_back(n);
      } else if (n == 'n') {
        scratch_.push_back('\n');
      } else {  // unknown escapes are kept verbatim, as Prometheus does
        scratch_.push_back('\\');
        scratch_.push_back(n);
      }
      p += 2;
      continue;
    }
    scratch_.push_back(c);
    ++p;
  }
  *out = std::string_view(scratch_.data() + start, scratch_.size() - start);
  return p;
}

// "" when [b, e) is a timestamp of the dialect (written to *ms), else why not.
std::string ParseTimestampToken(const char* b, const char* e, bool openmetrics, int64_t* ms) {
  std::string_view tok(b, static_cast<size_t>(e - b));
  if (!openmetrics) {
    const char* s = b;
    if (s < e && *s == '+') ++s;  // Go's ParseInt accepts a plus sign
    bool sign_ok = s == b || (s < e && *s >= '0' && *s <= '9');
    auto [ptr, ec] = std::from_chars(s, e, *ms);
    if (sign_ok && ec == std::errc() && ptr == e) return "";
    return "invalid timestamp " + Quote(tok) + " (text 0.0.4 expects integer milliseconds)";
  }
  if (ParseDecimalSecondsAsMs(b, e, ms)) return "";
  double seconds;
  auto [ptr, ec] = std::from_chars(b, e, seconds);
  if (ec != std::errc() || ptr != e || !std::isfinite(seconds)) {
    return "invalid timestamp " + Quote(tok) + " (OpenMetrics expects seconds)";
  }
  // int64 milliseconds span about +-292 million years.
  if (std::fabs(seconds) >= 9.2e15) return "timestamp out of range " + Quote(tok);
  *ms = std::llround(seconds * 1000.0);
  return "";
}

// "# HELP name text", "# TYPE name type", "# UNIT name unit", "# EOF"; other
// comments are ignored.
bool Parser::ParseCommentLine(const char* p, const char* end) {
  const char* hash = p;
  p = SkipBlanks(p + 1, end);
  const char* kw_begin = p;
  while (p < end && !Is(*p, kBlank)) ++p;
  std::string_view keyword(kw_begin, static_cast<size_t>(p - kw_begin));
  if (keyword == "EOF" && SkipBlanks(p, end) == end && kw_begin == hash + 2) {
    stats_.saw_eof = true;
    return true;
  }
  ExpoMetaKind kind;
  if (keyword == "HELP") {
    kind = ExpoMetaKind::kHelp;
  } else if (keyword == "TYPE") {
    kind = ExpoMetaKind::kType;
  } else if (keyword == "UNIT") {
    kind = ExpoMetaKind::kUnit;
  } else {
    return true;  // a plain comment
  }
  p = SkipBlanks(p, end);
  const char* name_begin = p;
  if (p == end) return Fail(p, "missing metric name after " + std::string(keyword));
  if (!Is(*p, kMetricStart)) return Fail(p, "invalid character at the start of a metric name");
  ++p;
  while (p < end && Is(*p, kMetricChar)) ++p;
  std::string_view family(name_begin, static_cast<size_t>(p - name_begin));
  if (p < end && !Is(*p, kBlank)) {
    return Fail(p, "invalid character in metric name " + Quote(family));
  }
  p = SkipBlanks(p, end);
  std::string_view text;
  if (kind == ExpoMetaKind::kHelp) {
    const char* b = p;
    const char* bs = static_cast<const char*>(std::memchr(b, '\\', static_cast<size_t>(end - b)));
    if (bs == nullptr) {
      text = std::string_view(b, static_cast<size_t>(end - b));
    } else {
      Unescape(b, end, /*stop_at_quote=*/false, &text);
    }
  } else {
    const char* b = p;
    while (p < end && !Is(*p, kBlank)) ++p;
    text = std::string_view(b, static_cast<size_t>(p - b));
    const char* rest = SkipBlanks(p, end);
    if (rest != end) return Fail(rest, "unexpected text after " + std::string(keyword));
    if (kind == ExpoMetaKind::kType) {
      if (text.empty()) return Fail(b, "missing type name for " + Quote(family));
      if (!IsKnownType(text)) return Fail(b, "unknown metric type " + Quote(text));
    }
  }
  handler_.OnMeta(ExpoMeta{kind, family, text, line_no_});
  return true;
}

bool EndsWithEofLine(std::string_view text) {
  size_t e = text.size();
  while (e > 0 && (text[e - 1] == '\n' || text[e - 1] == '\r' || text[e - 1] == ' ' ||
                   text[e - 1] == '\t')) {
    --e;
  }
  constexpr std::string_view kEof = "# EOF";
  if (e < kEof.size() || text.substr(e - kEof.size(), kEof.size()) != kEof) return false;
  return e == kEof.size() || text[e - kEof.size() - 1] == '\n';
}

}  // namespace
}  // namespace expo_internal

bool ParseExpoSampleTail(std::string_view rest, bool openmetrics, std::string_view name,
                         ExpoSampleTail* out, ExpoTailError* error) {
  const char* const begin = rest.data();
  const char* const end = begin + rest.size();
  auto fail = [&](const char* at, std::string message) {
    error->offset = static_cast<size_t>(at - begin);
    error->message = std::move(message);
    return false;
  };
  const char* p = begin;
  if (p == end) return fail(p, "missing value for " + expo_internal::Quote(name));
  const char* value_begin = p;
  while (p < end && !expo_internal::Is(*p, expo_internal::kBlank)) ++p;
  if (!expo_internal::ParseValue(value_begin, p, &out->value)) {
    return fail(value_begin,
                "invalid value " + expo_internal::Quote(std::string_view(
                                       value_begin, static_cast<size_t>(p - value_begin))));
  }
  out->timestamp_ms.reset();
  p = expo_internal::SkipBlanks(p, end);
  if (p < end && *p != '#') {
    const char* ts_begin = p;
    while (p < end && !expo_internal::Is(*p, expo_internal::kBlank)) ++p;
    int64_t ms;
    std::string why = expo_internal::ParseTimestampToken(ts_begin, p, openmetrics, &ms);
    if (!why.empty()) return fail(ts_begin, std::move(why));
    out->timestamp_ms = ms;
    p = expo_internal::SkipBlanks(p, end);
  }
  // An OpenMetrics exemplar (" # {trace_id=...} 1 1.5") follows; we skip it.
  if (p < end && *p != '#') return fail(p, "unexpected text after the sample");
  return true;
}

ExpoParseStats ParseExposition(std::string_view text, ExpositionHandler& handler,
                               const ExpoParseOptions& options) {
  bool openmetrics =
      options.dialect == ExpoDialect::kOpenMetrics ||
      (options.dialect == ExpoDialect::kAuto && expo_internal::EndsWithEofLine(text));
  expo_internal::Parser parser(text, handler, openmetrics);
  return parser.Run();
}

}  // namespace gpufleet
