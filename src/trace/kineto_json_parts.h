// Private to the Kineto JSON importer: reading one event object into a
// Staged record, and turning staged records of one file into Timeline
// processes, tracks, events and collectives.
//
// Staged records hold string_views into the simdjson parser's buffers; they
// are valid until the parser parses the next run, so Apply() must run before.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "trace/importer.h"
#include "trace/timeline.h"
#include "trace/trace_file_reader.h"

namespace gpufleet::trace::kineto {

// Converts a JSON number text in microseconds ("4458677009853.422",
// "1665536373729077", "68.0", "1.5e3") to integer nanoseconds. Digits past
// the third decimal are rounded half up; exponents go through double.
bool MicrosTextToNs(std::string_view text, int64_t* ns);
// Parses an integer JSON token or a quoted decimal / "0x.." hex string.
bool TokenToInt(std::string_view token, int64_t* out);

// The importer after reading the file. Exposed for the fuzz target.
Status ImportKinetoJsonBytes(const std::string& path, const TraceBytes& bytes,
                             TimelineBuilder& builder, ImportProgress* progress);

struct Staged {
  std::string_view cat;
  std::string_view name;
  std::string_view pid_text;  // raw token: 597913 or "Spans"
  std::string_view tid_text;
  std::string_view comm;      // "Process Group Name"
  std::string_view coll_op;   // "Collective name"
  std::string_view dtype;
  std::string_view meta;      // args.name (process/thread name) or args.labels
  int64_t ts_ns = 0;
  int64_t dur_ns = -1;
  int64_t correlation = -1;
  int64_t bytes = -1;
  int64_t flow_id = -1;
  int64_t stream = -1;  // args.stream (number or "0x.." string)
  int64_t nelems = -1;
  int64_t seq = -1;
  int device = -1;      // args.device
  int group_size = -1;
  char ph = 0;
  bool has_ts = false;
  bool bad_number = false;
};

class EventReader {
 public:
  // Reads one traceEvents element. Returns a simdjson error only for
  // malformed JSON; semantically odd events come back with fields unset.
  simdjson::error_code Read(simdjson::ondemand::value v, Staged& s);

 private:
  simdjson::error_code ReadArgs(simdjson::ondemand::object args, Staged& s);
};

// Accumulates one file's staged events into the builder.
class FileState {
 public:
  FileState(TimelineBuilder& builder, uint32_t file_index);

  void Apply(const std::vector<Staged>& run);
  // Reads baseTimeNanoseconds, distributedInfo and deviceProperties from the
  // document with its traceEvents emptied (`skeleton`, unpadded).
  void ReadTopLevel(std::string& skeleton, simdjson::ondemand::parser& parser,
                    const std::function<void(std::string)>& note);
  // Creates processes and tracks, links flows, applies the epoch base and
  // infers collective sequence numbers. Call once, last.
  void Finish();

 private:
  struct PidInfo {
    int64_t pid = -1;
    std::string text;  // string pids ("Spans")
    bool gpu = false;
    uint64_t events = 0;
    StringId process_name = kNoString;
  };
  struct RawTrack {
    uint32_t pid = 0;  // index into pids_
    int64_t tid = 0;
    int device = -1;
    int64_t queue = -1;
    StringId thread_name = kNoString;
    uint64_t events = 0;
  };
  struct Open {
    Staged s;  // string views cleared: they die with the run
    StringId name;
    StringId cat;
  };

  uint32_t PidIndex(std::string_view text);
  uint32_t PidIndexSlow(std::string_view text);
  uint32_t RawTrackIndex(uint32_t pid, std::string_view tid_text);
  void AddEvent(const Staged& s, uint32_t raw_track, StringId name, int64_t dur_ns);
  void Skip(const std::string& why);

  TimelineBuilder& b_;
  uint32_t file_;
  size_t first_event_;
  size_t first_collective_;
  std::vector<PidInfo> pids_;
  std::unordered_map<int64_t, uint32_t> numeric_pids_;
  std::unordered_map<std::string, uint32_t> string_pids_;
  std::vector<RawTrack> tracks_;
  std::unordered_map<uint64_t, uint32_t> track_index_;
  std::unordered_map<std::string, int64_t> string_tids_;
  uint64_t last_track_key_ = UINT64_MAX;
  uint32_t last_track_ = 0;
  std::unordered_map<uint64_t, std::vector<Open>> open_;  // B without E, per raw track
  // Flow ends keyed by (raw track, ts): ids to link launches to device ops
  // when the correlation arg is missing.
  std::vector<std::pair<uint64_t, int64_t>> flow_starts_;
  std::vector<std::pair<uint64_t, int64_t>> flow_ends_;
  std::string last_pid_text_;
  uint32_t last_pid_ = UINT32_MAX;
  std::vector<std::pair<int64_t, uint32_t>> collective_starts_;  // (native start, index)
  int64_t base_ns_ = 0;
  bool has_base_ = false;
  int rank_ = -1;
  int world_size_ = -1;
  std::unordered_map<int, std::string> device_names_;
  bool saw_hip_ = false;
  bool saw_cuda_ = false;
  int64_t max_ts_ns_ = INT64_MIN;
};

}  // namespace gpufleet::trace::kineto
