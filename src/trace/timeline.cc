#include "trace/timeline.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpufleet::trace {

StringPool::StringPool() { Intern(""); }

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  strings_.emplace_back(s);
  auto id = static_cast<StringId>(strings_.size() - 1);
  index_.emplace(std::string_view(strings_.back()), id);
  return id;
}

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kKernel: return "kernel";
    case EventKind::kCommKernel: return "comm_kernel";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kSync: return "sync";
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kAnnotation: return "annotation";
    case EventKind::kInstant: return "instant";
    case EventKind::kOther: break;
  }
  return "other";
}

bool IsDeviceKind(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kCommKernel || k == EventKind::kMemcpy ||
         k == EventKind::kMemset;
}

bool Timeline::partial() const {
  return std::any_of(files.begin(), files.end(), [](const SourceFile& f) { return f.partial; });
}

uint32_t TimelineBuilder::AddFile(SourceFile file) {
  t_.files.push_back(std::move(file));
  return static_cast<uint32_t>(t_.files.size() - 1);
}

uint32_t TimelineBuilder::Process(uint32_t file, std::string_view host, int64_t pid) {
  std::string key = std::to_string(file) + '\n' + std::string(host) + '\n' + std::to_string(pid);
  auto it = process_index_.find(key);
  if (it != process_index_.end()) return it->second;
  trace::Process p;
  p.file = file;
  p.host = std::string(host);
  p.pid = pid;
  t_.processes.push_back(std::move(p));
  auto id = static_cast<uint32_t>(t_.processes.size() - 1);
  process_index_.emplace(std::move(key), id);
  return id;
}

uint32_t TimelineBuilder::HostThread(uint32_t process, int64_t tid) {
  // Thread ids are OS tids (< 2^32 after Kineto's sanitizing); pack with the
  // process index into one key.
  uint64_t key = (static_cast<uint64_t>(process) << 32) ^ static_cast<uint32_t>(tid);
  auto it = thread_index_.find(key);
  if (it != thread_index_.end()) return it->second;
  Track t;
  t.process = process;
  t.kind = TrackKind::kHostThread;
  t.tid = tid;
  t_.tracks.push_back(std::move(t));
  auto id = static_cast<uint32_t>(t_.tracks.size() - 1);
  thread_index_.emplace(key, id);
  return id;
}

uint32_t TimelineBuilder::DeviceQueue(uint32_t process, int device, int64_t queue) {
  std::string key =
      std::to_string(process) + '/' + std::to_string(device) + '/' + std::to_string(queue);
  auto it = queue_index_.find(key);
  if (it != queue_index_.end()) return it->second;
  Track t;
  t.process = process;
  t.kind = TrackKind::kDeviceQueue;
  t.device = device;
  t.queue = queue;
  t_.tracks.push_back(std::move(t));
  auto id = static_cast<uint32_t>(t_.tracks.size() - 1);
  queue_index_.emplace(std::move(key), id);
  return id;
}

uint32_t TimelineBuilder::AddCollective(const Collective& c) {
  t_.collectives.push_back(c);
  return static_cast<uint32_t>(t_.collectives.size() - 1);
}

void TimelineBuilder::Finish() {
  auto file_of = [this](const Event& e) { return t_.processes[t_.tracks[e.track].process].file; };
  for (auto& f : t_.files) f.events = f.out_of_order = f.queue_overlaps = f.max_queue_overlap_ns = 0;
  // Input order first: importers append in file order.
  std::vector<int64_t> last(t_.tracks.size(), INT64_MIN);
  for (const Event& e : t_.events) {
    if (e.start_ns < last[e.track]) {
      if (uint32_t file = file_of(e); file < t_.files.size()) ++t_.files[file].out_of_order;
    }
    last[e.track] = std::max(last[e.track], e.start_ns);
  }
  // Stable order by (start, track): sort 16-byte keys (track and input
  // position packed, so keys are unique) and permute once, instead of
  // stable-sorting the 48-byte events themselves (far fewer bytes moved).
  if (t_.events.size() < UINT32_MAX) {
    std::vector<std::pair<int64_t, uint64_t>> keys(t_.events.size());
    for (size_t i = 0; i < t_.events.size(); ++i) {
      keys[i] = {t_.events[i].start_ns, (static_cast<uint64_t>(t_.events[i].track) << 32) | i};
    }
    std::sort(keys.begin(), keys.end());
    std::vector<Event> sorted;
    sorted.reserve(t_.events.size());
    for (const auto& k : keys) sorted.push_back(t_.events[k.second & 0xFFFFFFFFu]);
    t_.events = std::move(sorted);
  } else {
    std::stable_sort(t_.events.begin(), t_.events.end(), [](const Event& a, const Event& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      return a.track < b.track;
    });
  }
  // A device queue runs one op at a time; an op starting before the previous
  // one ended is a clock or export artefact (host threads nest legitimately).
  std::vector<int64_t> queue_end(t_.tracks.size(), INT64_MIN);
  for (const Event& e : t_.events) {
    uint32_t file = file_of(e);
    if (file >= t_.files.size()) continue;
    SourceFile& f = t_.files[file];
    ++f.events;
    if (!IsDeviceKind(e.kind) || t_.tracks[e.track].kind != TrackKind::kDeviceQueue) continue;
    int64_t& end = queue_end[e.track];
    if (e.start_ns < end) {
      ++f.queue_overlaps;
      f.max_queue_overlap_ns = std::max(f.max_queue_overlap_ns, end - e.start_ns);
    }
    end = std::max(end, e.end_ns());
  }
}

}  // namespace gpufleet::trace
