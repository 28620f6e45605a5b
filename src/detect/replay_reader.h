// ReplayReader: the samples of recorded series files, merged in data time.
//
// Formats (told apart per file by its first non-blank byte):
//   - OpenMetrics text with timestamps, the input of `promtool tsdb
//     create-blocks-from openmetrics`, e.g.
//       gpu_memory_bandwidth_utilization_ratio{gpu="0",node="n1"} 0.91 1733300000.000
//     (seconds; Prometheus text with integer-millisecond timestamps is also
//     read when the file has no "# EOF");
//   - VictoriaMetrics /api/v1/export JSON lines, e.g.
//       {"metric":{"__name__":"gpu_utilization_ratio","node":"n1"},
//        "values":[0.5,0.6],"timestamps":[1733300000000,1733300010000]}
//   - `promtool tsdb dump` output (a Prometheus TSDB's samples; text with the
//     name among the labels and millisecond timestamps), e.g.
//       {__name__="gpu_utilization_ratio", gpu="0", node="n1"} 0.91 1733300000000
//
// Streaming: a file is memory-mapped and indexed once into runs, stretches
// whose timestamps never decrease (a series-by-series file has one run per
// series, a file of successive snapshots a single run; a VictoriaMetrics
// line is one run). Runs are then merged with a heap, one cursor each, so
// memory grows with the number of runs and distinct series, never with the
// length of the recording.
//
// Bad input is counted, never fatal: malformed lines (first messages kept
// with file:line), samples without a timestamp, NaN values, runs broken by
// a backwards timestamp. A text sample older than its own series' previous
// sample in the file (a node whose clock stepped back) arrived late and is
// dropped, as a TSDB rejects an out-of-order sample: merged in, it would
// interleave two stretches of the series' time. Runs still merge across
// series, so a series-by-series file stays whole. Memory: one entry per
// distinct series, plus 8 bytes per late line. Only an unreadable file is
// an error.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_util.h"
#include "core/labels.h"
#include "core/status.h"

namespace gpufleet::detect {

// How a recording is written, told by its first non-blank bytes: export
// lines open with {"metric"...; a `promtool tsdb dump` line with its label
// set ({__name__="m", ...}); anything else is OpenMetrics or Prometheus text.
enum class RecordingForm { kText, kExportLines, kTsdbDump };
RecordingForm FormOf(std::string_view text);

struct ReplayInputStats {
  uint64_t files = 0;
  uint64_t runs = 0;              // time-ordered stretches merged
  uint64_t samples = 0;           // samples delivered
  uint64_t malformed = 0;         // lines / JSON values skipped
  uint64_t no_timestamp = 0;      // samples without a timestamp (skipped)
  uint64_t nan = 0;               // NaN / non-numeric values (skipped)
  uint64_t backwards = 0;         // a timestamp lower than its predecessor (starts a run)
  uint64_t late = 0;              // samples older than their series' previous one (dropped)
  std::vector<std::string> errors;  // first messages, "file:line: what"
};

class ReplayReader {
 public:
  ReplayReader();
  ~ReplayReader();

  // Adds a file (memory-mapped). Errors: the file cannot be opened.
  Status AddFile(const std::string& path);
  // Adds text the caller keeps alive (tests, fuzzing); `name` names it in errors.
  void AddBuffer(std::string_view name, std::string_view text);

  // Calls `fn(labels, timestamp_ns, value)` for every sample of every input,
  // oldest first (equal timestamps in input order). `labels` include
  // __name__ and stay valid until the reader is destroyed.
  void ForEach(const std::function<void(const Labels&, int64_t, double)>& fn);

  const ReplayInputStats& stats() const { return stats_; }

 private:
  struct Input;
  struct Cursor;
  void Index(Input& in);
  bool Advance(Cursor& c);
  bool NextText(Cursor& c);
  bool NextJson(Cursor& c);
  struct Known;
  Known* Intern(std::string_view key, Labels labels);
  void Error(const Input& in, size_t line, std::string_view what);

  std::vector<std::unique_ptr<Input>> inputs_;
  std::vector<FileContents> files_;
  ReplayInputStats stats_;
  struct Interned;
  std::unique_ptr<Interned> interned_;
};

}  // namespace gpufleet::detect
