// Private to the Kineto JSON importer: turns the staged records of one file
// (kineto_event_reader.h) into Timeline processes, tracks, events and
// collectives.
//
// Apply() consumes each run of Staged records before the parser moves on
// (their string_views die with the run); ReadTopLevel() reads the file's
// metadata; Finish() runs once, last. Bad events are skipped and counted in
// the file's SourceFile. Not thread-safe; one FileState per imported file.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/kineto_event_reader.h"
#include "trace/timeline.h"

namespace gpufleet::trace::kineto {

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
