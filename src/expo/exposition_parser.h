// Streaming parser for the Prometheus text exposition format 0.0.4 and
// OpenMetrics 1.0 text. Zero-copy: names, label names and (unescaped) label
// values are string_views into the input or into a scratch buffer that stays
// valid only during the callback.
//
// Handles a real dcgm-exporter line such as
//   DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-960a...",pci_bus_id="00000000:00:1E.0"} 300
// Bad lines are reported through OnError (line, column, byte offset, message),
// skipped, and counted; parsing continues with the next line, so one broken
// line never loses the rest of a scrape.
//
// Thread safety: a parse call is self-contained; handlers run on the calling
// thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpufleet {

struct ExpoLabel {
  std::string_view name;
  std::string_view value;  // unescaped
};

struct ExpoSample {
  std::string_view name;
  std::span<const ExpoLabel> labels;  // in input order
  double value = 0;
  std::optional<int64_t> timestamp_ms;  // OpenMetrics seconds are converted to ms
  size_t line = 0;                      // 1-based
  // The label set exactly as written, between '{' and '}' ("" without one).
  // Equal raw text means equal labels, so it is a cheap cache key.
  std::string_view raw_labels;
  // False when the handler said it knows `raw_labels` (KnownLabelSet) and
  // the parser skipped them: `labels` is then empty.
  bool labels_parsed = true;
};

// The part of a sample line after its name, its label set and the blanks
// that follow them, up to the line's end (no newline): the value, an
// optional timestamp (integer milliseconds in text 0.0.4, seconds in
// OpenMetrics) and an optional exemplar (" # ...", skipped). ParseExposition
// parses every sample's tail with it; a caller that recognises a line's
// series by its text parses the rest of the line with it alone.
struct ExpoSampleTail {
  double value = 0;
  std::optional<int64_t> timestamp_ms;
};
struct ExpoTailError {
  size_t offset = 0;    // into the tail
  std::string message;  // as ParseExposition reports it
};
// False on a missing or bad value, a bad timestamp or text after the
// sample. `name` only names the metric in the missing-value message.
bool ParseExpoSampleTail(std::string_view rest, bool openmetrics, std::string_view name,
                         ExpoSampleTail* out, ExpoTailError* error);

enum class ExpoMetaKind { kHelp, kType, kUnit };

struct ExpoMeta {
  ExpoMetaKind kind;
  std::string_view family;
  std::string_view text;  // help text (unescaped), type name or unit
  size_t line = 0;
};

struct ExpoError {
  size_t line = 0;    // 1-based
  size_t column = 0;  // 1-based, in bytes
  size_t offset = 0;  // byte offset of the error from the start of the input
  std::string message;
  // "origin:line:column: message"
  std::string ToString(std::string_view origin) const;
};

class ExpositionHandler {
 public:
  virtual ~ExpositionHandler() = default;
  virtual void OnSample(const ExpoSample& sample) = 0;
  // Asked before a label set is parsed, with the rest of the line after
  // '{'. Return the length of a prefix of `rest` that an earlier sample
  // carried as its raw_labels and that `rest` follows with '}': identical
  // text parses identically (same labels, same errors), so the parser skips
  // parsing it and the next OnSample has labels_parsed == false. Return
  // npos to have it parsed (the default, for every label set).
  virtual size_t KnownLabelSet(std::string_view /*rest*/) { return std::string_view::npos; }
  virtual void OnMeta(const ExpoMeta& /*meta*/) {}
  virtual void OnError(const ExpoError& /*error*/) {}
};

struct ExpoParseStats {
  size_t lines = 0;
  size_t samples = 0;
  size_t errors = 0;     // lines skipped
  bool saw_eof = false;  // OpenMetrics "# EOF" seen
};

// Which text syntax to expect. They differ only where the same bytes mean
// different things: a timestamp is integer milliseconds in text 0.0.4 and
// (possibly fractional) seconds in OpenMetrics.
enum class ExpoDialect {
  // OpenMetrics when the input's last non-blank line is "# EOF" (which
  // OpenMetrics requires and text 0.0.4 never needs), else text 0.0.4.
  kAuto,
  kPrometheusText,
  kOpenMetrics,
};

struct ExpoParseOptions {
  ExpoDialect dialect = ExpoDialect::kAuto;
};

// Parses all of `text`, calling `handler` for each sample, metadata line and
// error, in input order. Never throws, never crashes on any byte sequence.
//
// Accepted beyond the strict grammars (as Prometheus' own scrape parser does):
// blank lines, CRLF line ends, blanks around tokens and between labels, a
// trailing comma in a label set, comments other than HELP/TYPE/UNIT, unknown
// escapes in label values (kept verbatim), exemplars (skipped, not checked).
// Rejected (error, line skipped): bad names, duplicate label names, missing
// quotes or '=', unparsable values or timestamps, invalid UTF-8 in label
// values, unknown TYPE names. Anything after "# EOF" is reported once and
// ignored.
ExpoParseStats ParseExposition(std::string_view text, ExpositionHandler& handler,
                               const ExpoParseOptions& options);
inline ExpoParseStats ParseExposition(std::string_view text, ExpositionHandler& handler) {
  return ParseExposition(text, handler, ExpoParseOptions{});
}

}  // namespace gpufleet
