// Timeline: every imported trace file on one clock-aligned model.
//
// Importers (one per format, see importer.h) append processes, tracks and
// events through TimelineBuilder; analyses and writers read the finished
// Timeline. Times are int64 nanoseconds since the Unix epoch AFTER alignment
// (`start_ns`); each file's applied clock offset is kept in SourceFile so
// reports can say what was shifted and by how much.
//
// Memory: events are plain 48-byte structs in one vector; names and argument
// strings are interned once in a StringPool, so a 500 MB JSON trace becomes
// far less than 500 MB in memory. Not thread-safe; one builder per import.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schema/vendor.h"

namespace gpufleet::trace {

using StringId = uint32_t;
inline constexpr StringId kNoString = 0;  // interned "" is always id 0

// Interns strings; ids are dense and stable for the pool's lifetime.
class StringPool {
 public:
  StringPool();
  StringId Intern(std::string_view s);
  std::string_view Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // a deque never moves its elements
  std::unordered_map<std::string_view, StringId> index_;  // views into strings_
};

// Vendors are schema's (schema/vendor.h): `Vendor` and `VendorName` here are
// gpufleet::Vendor and gpufleet::VendorName ("nvidia", "amd", "intel",
// "unknown"), the names reports, JSON and Perfetto tracks print.
using gpufleet::Vendor;
using gpufleet::VendorName;

// What an event is, independent of the vendor vocabulary it came in.
enum class EventKind : uint8_t {
  kKernel,         // compute kernel on a device queue
  kCommKernel,     // communication kernel (nccl*/rccl*), see Event::collective
  kMemcpy,         // device copy (HtoD, DtoH, DtoD, PtoP)
  kMemset,
  kRuntime,        // host runtime/driver API call (cudaLaunchKernel, hipMemcpyAsync...)
  kSync,           // host or device synchronization wait (cudaStreamSynchronize, cuda_sync)
  kCpuOp,          // framework operator on a host thread (aten::mm)
  kAnnotation,     // user range (NVTX, roctx, record_function, ProfilerStep#N)
  kInstant,        // zero-duration marker
  kOther,
};
std::string_view EventKindName(EventKind k);
bool IsDeviceKind(EventKind k);  // kernel, comm kernel, memcpy, memset

enum class TrackKind : uint8_t { kHostThread, kDeviceQueue };

// A source file as imported; `partial` when the importer stopped early or
// skipped records (details in `errors`).
struct SourceFile {
  std::string path;
  std::string format;          // "kineto_json", "nsys_sqlite", "rocprofv3_csv", ...
  int64_t clock_offset_ns = 0; // added to this file's native times by alignment
  double clock_drift_ppm = 0;  // linear drift applied by alignment, if any
  std::string alignment;       // how the offset was chosen ("epoch base", "collective ends", ...)
  // Drift is applied around this native time: aligned = native + offset +
  // drift_ppm * 1e-6 * (native - clock_anchor_ns).
  int64_t clock_anchor_ns = 0;
  // True when native times are already Unix epoch ns (Kineto baseTimeNanoseconds
  // or absolute epoch µs); false for session-relative clocks.
  bool epoch_clock = false;
  std::string clock_source;    // how native times were read ("baseTimeNanoseconds", "epoch us", ...)
  // The producer version family the importer recognised ("NCCL 2.21.5+cuda12.4; init: NCCL
  // 2.19+ (...)", "nsys 2024.x schema", ...); "" when the importer cannot tell.
  std::string format_version;
  bool partial = false;
  uint64_t events = 0;
  uint64_t skipped = 0;
  // Data quality, counted by TimelineBuilder::Finish. Neither makes a file
  // partial: events are sorted, and busy time counts the union of overlaps.
  uint64_t out_of_order = 0;     // events starting before the previous one on their track, in file order
  uint64_t queue_overlaps = 0;   // device ops starting before the previous op on their queue ended
  int64_t max_queue_overlap_ns = 0;
  std::vector<std::string> errors;  // "file:line/offset: what", first few only
};

// One OS process of one rank on one host.
struct Process {
  uint32_t file = 0;       // index into Timeline::files
  std::string host;        // "" when unknown
  int64_t pid = -1;
  int rank = -1;           // -1 when unknown
  int world_size = -1;
  Vendor vendor = Vendor::kUnknown;
  std::string device_name;  // "NVIDIA A100-SXM4-80GB", "AMD Instinct MI250X"
  std::string name;         // process_name metadata, or a string pid ("Spans")
};

struct Track {
  uint32_t process = 0;  // index into Timeline::processes
  TrackKind kind = TrackKind::kHostThread;
  int64_t tid = -1;      // host thread id (kHostThread)
  int device = -1;       // device index (kDeviceQueue)
  int64_t queue = -1;    // CUDA stream / HIP stream or HSA queue / SYCL queue
  std::string name;
};

// A collective or point-to-point operation (from kernel args, logs or
// flight-recorder dumps). `comm` identifies the communicator across ranks
// (commId hash, process-group name); `seq` is its per-communicator sequence.
struct Collective {
  StringId op = kNoString;   // "AllReduce", "AllGather", "Send", ...
  StringId comm = kNoString;
  int64_t seq = -1;
  int64_t bytes = -1;
  int nranks = -1;
  int rank = -1;
  bool seq_inferred = false;  // seq is the op's ordinal on its comm in this file, not logged
};

inline constexpr uint32_t kNoCollective = UINT32_MAX;

struct Event {
  int64_t start_ns = 0;      // aligned epoch ns (native until alignment runs)
  int64_t dur_ns = 0;
  int64_t correlation = -1;  // launch <-> device op link within one process
  int64_t bytes = -1;        // memcpy/memset size when known
  uint32_t track = 0;        // index into Timeline::tracks
  StringId name = kNoString;
  uint32_t collective = kNoCollective;  // index into Timeline::collectives
  EventKind kind = EventKind::kOther;
  int64_t end_ns() const { return start_ns + dur_ns; }
};

struct Timeline {
  StringPool strings;
  std::vector<SourceFile> files;
  std::vector<Process> processes;
  std::vector<Track> tracks;
  std::vector<Event> events;  // any order while building; sorted by Finish()
  std::vector<Collective> collectives;

  bool partial() const;  // any file partial
  std::string_view name(const Event& e) const { return strings.Get(e.name); }
  const Track& track(const Event& e) const { return tracks[e.track]; }
  const Process& process(const Event& e) const { return processes[tracks[e.track].process]; }
};

// Appends into a Timeline, deduplicating processes and tracks by key.
class TimelineBuilder {
 public:
  explicit TimelineBuilder(Timeline& timeline) : t_(timeline) {}

  uint32_t AddFile(SourceFile file);
  // Returns the process for (file, host, pid), creating it on first use.
  uint32_t Process(uint32_t file, std::string_view host, int64_t pid);
  uint32_t HostThread(uint32_t process, int64_t tid);
  uint32_t DeviceQueue(uint32_t process, int device, int64_t queue);
  uint32_t AddCollective(const Collective& c);
  void AddEvent(const Event& e) { t_.events.push_back(e); }
  StringId Intern(std::string_view s) { return t_.strings.Intern(s); }
  Timeline& timeline() { return t_; }

  // Sorts events by (start, track), counts per-file events and the data
  // quality counters (out-of-order input, overlapping ops on one device
  // queue). Call once after all importers and before alignment/analyses.
  void Finish();

 private:
  Timeline& t_;
  std::unordered_map<std::string, uint32_t> process_index_;
  std::unordered_map<uint64_t, uint32_t> thread_index_;
  std::unordered_map<std::string, uint32_t> queue_index_;
};

}  // namespace gpufleet::trace
