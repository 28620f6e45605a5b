// Test-only helpers: build small Timelines by hand with known answers.
#pragma once

#include <string_view>
#include <utility>

#include "trace/timeline.h"

namespace gpufleet::trace::testing {

class HandTrace {
 public:
  HandTrace() : b_(t_) {
    SourceFile f;
    f.path = "hand.json";
    f.format = "hand";
    file_ = b_.AddFile(std::move(f));
  }

  // Process for `rank` (created on first use; pid = 1000 + rank).
  uint32_t Rank(int rank) {
    uint32_t p = b_.Process(file_, "host", 1000 + rank);
    t_.processes[p].rank = rank;
    t_.processes[p].vendor = Vendor::kNvidia;
    return p;
  }
  uint32_t Stream(int rank, int64_t queue) { return b_.DeviceQueue(Rank(rank), 0, queue); }
  uint32_t Thread(int rank) { return b_.HostThread(Rank(rank), 1); }

  void Op(uint32_t track, std::string_view name, EventKind kind, int64_t start, int64_t dur,
          int64_t correlation = -1, int64_t bytes = -1) {
    Event e;
    e.track = track;
    e.name = b_.Intern(name);
    e.kind = kind;
    e.start_ns = start;
    e.dur_ns = dur;
    e.correlation = correlation;
    e.bytes = bytes;
    b_.AddEvent(e);
  }
  // A runtime launch call on rank's host thread and the device op it launched.
  void Launch(int rank, int64_t queue, std::string_view name, EventKind kind, int64_t rt_start,
              int64_t rt_dur, int64_t start, int64_t dur, int64_t bytes = -1) {
    int64_t corr = next_correlation_++;
    Op(Thread(rank), kind == EventKind::kMemcpy ? "cudaMemcpyAsync" : "cudaLaunchKernel",
       EventKind::kRuntime, rt_start, rt_dur, corr);
    Op(Stream(rank, queue), name, kind, start, dur, corr, bytes);
  }
  Timeline& Finish() {
    b_.Finish();
    return t_;
  }
  Timeline& timeline() { return t_; }

 private:
  Timeline t_;
  TimelineBuilder b_;
  uint32_t file_ = 0;
  int64_t next_correlation_ = 1;
};

}  // namespace gpufleet::trace::testing
