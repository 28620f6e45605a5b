#include "trace/kineto_file_state.h"

#include <algorithm>
#include <map>

#include "core/strings.h"
#include "trace/kineto_event_kind.h"

namespace gpufleet::trace::kineto {
namespace {

namespace od = simdjson::ondemand;

uint64_t TrackKey(uint32_t pid, int64_t tid) {
  return (static_cast<uint64_t>(pid) << 40) ^ static_cast<uint64_t>(tid & 0xFFFFFFFFFFll);
}

uint64_t FlowKey(uint32_t track, int64_t ts_ns) {
  return (static_cast<uint64_t>(track) * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(ts_ns);
}

}  // namespace

FileState::FileState(TimelineBuilder& builder, uint32_t file_index)
    : b_(builder),
      file_(file_index),
      first_event_(builder.timeline().events.size()),
      first_collective_(builder.timeline().collectives.size()) {}

void FileState::Skip(const std::string& why) {
  SourceFile& f = b_.timeline().files[file_];
  ++f.skipped;
  if (f.errors.size() < 8) f.errors.push_back(f.path + ": skipped: " + why);
}

uint32_t FileState::PidIndex(std::string_view text) {
  // Consecutive events mostly share a pid: skip the parse and lookup then.
  if (last_pid_ != UINT32_MAX && text == last_pid_text_) return last_pid_;
  last_pid_text_.assign(text);
  last_pid_ = PidIndexSlow(text);
  return last_pid_;
}

uint32_t FileState::PidIndexSlow(std::string_view text) {
  int64_t pid = 0;
  if (!text.empty() && text[0] != '"' && TokenToInt(text, &pid)) {
    auto it = numeric_pids_.find(pid);
    if (it != numeric_pids_.end()) return it->second;
    PidInfo info;
    info.pid = pid;
    pids_.push_back(std::move(info));
    auto id = static_cast<uint32_t>(pids_.size() - 1);
    numeric_pids_.emplace(pid, id);
    return id;
  }
  std::string key(Unquote(text));
  auto it = string_pids_.find(key);
  if (it != string_pids_.end()) return it->second;
  PidInfo info;
  info.text = key;
  pids_.push_back(std::move(info));
  auto id = static_cast<uint32_t>(pids_.size() - 1);
  string_pids_.emplace(std::move(key), id);
  return id;
}

uint32_t FileState::RawTrackIndex(uint32_t pid, std::string_view tid_text) {
  int64_t tid = 0;
  if (!tid_text.empty() && tid_text[0] != '"' && TokenToInt(tid_text, &tid)) {
    // Kineto writes negative tids as their absolute value; keep them as given.
  } else {
    std::string key(Unquote(tid_text));
    auto it = string_tids_.find(key);
    if (it == string_tids_.end()) {
      // String tids ("PyTorch Profiler") get ids that no OS tid uses.
      it = string_tids_.emplace(std::move(key), -2 - static_cast<int64_t>(string_tids_.size()))
               .first;
    }
    tid = it->second;
  }
  uint64_t key = TrackKey(pid, tid);
  if (key == last_track_key_) return last_track_;
  auto it = track_index_.find(key);
  uint32_t id;
  if (it != track_index_.end()) {
    id = it->second;
  } else {
    RawTrack t;
    t.pid = pid;
    t.tid = tid;
    tracks_.push_back(t);
    id = static_cast<uint32_t>(tracks_.size() - 1);
    track_index_.emplace(key, id);
  }
  last_track_key_ = key;
  last_track_ = id;
  return id;
}

void FileState::AddEvent(const Staged& s, uint32_t raw_track, StringId name, int64_t dur_ns) {
  std::string_view name_text = b_.timeline().strings.Get(name);
  Event e;
  e.start_ns = s.ts_ns;
  e.dur_ns = std::max<int64_t>(dur_ns, 0);
  e.correlation = s.correlation;
  e.bytes = s.bytes;
  e.track = raw_track;
  e.name = name;
  e.kind = Classify(s.ph, s.cat, name_text);
  RawTrack& t = tracks_[raw_track];
  PidInfo& p = pids_[t.pid];
  ++p.events;
  ++t.events;
  if (IsDeviceCategory(s.cat)) {
    p.gpu = true;
    if (t.device < 0) t.device = s.device >= 0 ? s.device : static_cast<int>(p.pid);
    if (t.queue < 0) t.queue = s.stream >= 0 ? s.stream : t.tid;
  } else if (e.kind == EventKind::kRuntime) {
    if (StartsWith(name_text, "hip")) saw_hip_ = true;
    if (StartsWith(name_text, "cu")) saw_cuda_ = true;
  }
  if (e.kind == EventKind::kCommKernel) {
    Collective c;
    c.op = b_.Intern(s.coll_op.empty() ? OpFromKernelName(name_text) : s.coll_op);
    c.comm = b_.Intern(s.comm);
    c.seq = s.seq;
    int64_t size = DtypeBytes(s.dtype);
    if (s.nelems >= 0 && size > 0) c.bytes = s.nelems * size;
    c.nranks = s.group_size;
    e.collective = b_.AddCollective(c);
    collective_starts_.emplace_back(s.ts_ns, e.collective);
  }
  max_ts_ns_ = std::max(max_ts_ns_, s.ts_ns);
  b_.AddEvent(e);
}

void FileState::Apply(const std::vector<Staged>& run) {
  for (const Staged& s : run) {
    switch (s.ph) {
      case 'X':
      case 'B':
      case 'E':
      case 'i':
      case 'I':
      case 'R':
      case 's':
      case 'f':
      case 'M':
        break;
      case 't':
      case 'C':
      case 'b':
      case 'e':
      case 'n':
      case 'N':
      case 'O':
      case 'D':
      case 'P':
        continue;  // flow steps, counters, async and object events are not modelled
      default:
        Skip("element without a known \"ph\"");
        continue;
    }
    if (!s.has_ts && s.ph != 'M') {
      Skip(std::string("'") + s.ph + "' event without a numeric ts" +
           (s.name.empty() ? "" : " (" + std::string(s.name.substr(0, 60)) + ")"));
      continue;
    }
    uint32_t pid = PidIndex(s.pid_text);
    uint32_t track = RawTrackIndex(pid, s.tid_text);
    switch (s.ph) {
      case 'X':
        if (s.dur_ns < 0) {
          Skip("X event without dur (" + std::string(s.name.substr(0, 60)) + ")");
          break;
        }
        AddEvent(s, track, b_.Intern(s.name), s.dur_ns);
        break;
      case 'B': {
        Open o{s, b_.Intern(s.name), b_.Intern(s.cat)};
        o.s.cat = o.s.name = o.s.pid_text = o.s.tid_text = {};
        o.s.comm = o.s.coll_op = o.s.dtype = o.s.meta = {};
        open_[track].push_back(o);
        break;
      }
      case 'E': {
        auto& stack = open_[track];
        if (stack.empty()) {
          Skip("E event without a matching B");
          break;
        }
        Open o = stack.back();
        stack.pop_back();
        o.s.cat = b_.timeline().strings.Get(o.cat);
        if (s.ts_ns < o.s.ts_ns) {
          Skip("E event before its B");
          break;
        }
        AddEvent(o.s, track, o.name, s.ts_ns - o.s.ts_ns);
        break;
      }
      case 'i':
      case 'I':
      case 'R':
        AddEvent(s, track, b_.Intern(s.name), 0);
        break;
      case 's':
        if (s.flow_id >= 0) flow_starts_.emplace_back(FlowKey(track, s.ts_ns), s.flow_id);
        break;
      case 'f':
        if (s.flow_id >= 0) flow_ends_.emplace_back(FlowKey(track, s.ts_ns), s.flow_id);
        break;
      case 'M':
        if (s.name == "process_name" && !s.meta.empty()) {
          pids_[pid].process_name = b_.Intern(s.meta);
        } else if (s.name == "process_labels" && StartsWith(s.meta, "GPU")) {
          pids_[pid].gpu = true;
        } else if (s.name == "thread_name" && !s.meta.empty()) {
          tracks_[track].thread_name = b_.Intern(s.meta);
        }
        break;
      default:
        break;
    }
  }
}

void FileState::ReadTopLevel(std::string& skeleton, od::parser& parser,
                             const std::function<void(std::string)>& note) {
  size_t n = skeleton.size();
  skeleton.reserve(n + simdjson::SIMDJSON_PADDING);
  od::document doc;
  auto err = parser.iterate(simdjson::padded_string_view(skeleton.data(), n, skeleton.capacity()))
                 .get(doc);
  od::object top;
  if (!err) err = doc.get_object().get(top);
  if (err) {
    if (!skeleton.empty() && skeleton[0] == '[') return;  // bare array: no metadata
    note("top-level metadata unreadable: " + std::string(simdjson::error_message(err)));
    return;
  }
  for (auto fr : top) {
    od::field f;
    if ((err = std::move(fr).get(f))) break;
    std::string_view key = KeyOf(f);
    od::value val = f.value();
    std::string_view sv;
    int64_t n64 = 0;
    if (key == "baseTimeNanoseconds") {
      if (TokenToInt(val.raw_json_token(), &n64)) {
        base_ns_ = n64;
        has_base_ = true;
      }
    } else if (key == "distributedInfo") {
      od::object di;
      if (val.get_object().get(di)) continue;
      for (auto dfr : di) {
        od::field df;
        if ((err = std::move(dfr).get(df))) break;
        std::string_view dk = KeyOf(df);
        if (dk != "rank" && dk != "world_size") continue;
        if (!TokenToInt(df.value().raw_json_token(), &n64)) continue;
        if (n64 < 0 || n64 > 1 << 24) continue;
        (dk == "rank" ? rank_ : world_size_) = static_cast<int>(n64);
      }
    } else if (key == "deviceProperties") {
      od::array arr;
      if (val.get_array().get(arr)) continue;
      int ordinal = 0;
      for (auto item : arr) {
        od::object dev;
        if (item.get_object().get(dev)) break;
        int id = ordinal++;
        std::string name;
        for (auto dfr : dev) {
          od::field df;
          if (std::move(dfr).get(df)) break;
          std::string_view dk = KeyOf(df);
          if (dk == "id" && TokenToInt(df.value().raw_json_token(), &n64)) {
            id = static_cast<int>(n64);
          } else if (dk == "name" && !df.value().get_string().get(sv)) {
            name = std::string(sv);
          }
        }
        if (!name.empty()) device_names_[id] = name;
      }
    }
  }
  if (err) note("top-level metadata: " + std::string(simdjson::error_message(err)));
}

void FileState::Finish() {
  Timeline& t = b_.timeline();
  for (auto& [track, stack] : open_) {
    for (const Open& o : stack) {
      Skip("B event without E (" + std::string(t.strings.Get(o.name)) + ")");
    }
  }

  // Device and vendor for the whole file.
  int device_index = -1;
  for (const RawTrack& rt : tracks_) {
    if (pids_[rt.pid].gpu && rt.device >= 0) {
      device_index = rt.device;
      break;
    }
  }
  std::string device_name;
  if (auto it = device_names_.find(device_index); it != device_names_.end()) {
    device_name = it->second;
  } else if (!device_names_.empty()) {
    device_name = device_names_.begin()->second;
  }
  Vendor vendor = VendorFromDeviceName(device_name);
  if (vendor == Vendor::kUnknown && saw_hip_) vendor = Vendor::kAmd;
  if (vendor == Vendor::kUnknown && saw_cuda_) vendor = Vendor::kNvidia;

  // The host process that owns the device queues: the busiest numeric CPU pid.
  int main_pid = -1;
  for (size_t i = 0; i < pids_.size(); ++i) {
    const PidInfo& p = pids_[i];
    if (p.gpu || !p.text.empty()) continue;
    if (main_pid < 0 || p.events > pids_[main_pid].events) main_pid = static_cast<int>(i);
  }
  std::vector<uint32_t> process_of(pids_.size(), UINT32_MAX);
  auto make_process = [&](int64_t pid, StringId name, std::string_view text) {
    uint32_t proc = b_.Process(file_, "", pid);
    trace::Process& p = t.processes[proc];
    if (name != kNoString) p.name = std::string(t.strings.Get(name));
    if (p.name.empty()) p.name = std::string(text);
    p.rank = rank_;
    p.world_size = world_size_;
    p.vendor = vendor;
    p.device_name = device_name;
    return proc;
  };
  for (size_t i = 0; i < pids_.size(); ++i) {
    const PidInfo& p = pids_[i];
    // Metadata-only pids (Kineto labels every visible GPU) get no process.
    if (p.gpu || (p.events == 0 && static_cast<int>(i) != main_pid)) continue;
    int64_t pid = p.text.empty() ? p.pid : -2 - static_cast<int64_t>(i);
    process_of[i] = make_process(pid, p.process_name, p.text);
  }
  uint32_t main_process = main_pid >= 0 ? process_of[main_pid] : UINT32_MAX;
  std::vector<uint32_t> track_of(tracks_.size());
  for (size_t i = 0; i < tracks_.size(); ++i) {
    const RawTrack& rt = tracks_[i];
    const PidInfo& p = pids_[rt.pid];
    track_of[i] = UINT32_MAX;
    if (rt.events == 0) continue;  // named by metadata only
    uint32_t id;
    if (p.gpu) {
      if (main_process == UINT32_MAX) main_process = make_process(-1, p.process_name, "");
      int device = rt.device >= 0 ? rt.device : static_cast<int>(p.pid);
      id = b_.DeviceQueue(main_process, device, rt.queue >= 0 ? rt.queue : rt.tid);
    } else {
      id = b_.HostThread(process_of[rt.pid], rt.tid);
    }
    if (rt.thread_name != kNoString && t.tracks[id].name.empty()) {
      t.tracks[id].name = std::string(t.strings.Get(rt.thread_name));
    }
    track_of[i] = id;
  }

  // Flows only matter for launches and device ops that lack a correlation
  // arg (legacy traces); index them only then.
  bool need_flows = false;
  for (size_t i = first_event_; i < t.events.size() && !need_flows; ++i) {
    const Event& e = t.events[i];
    need_flows = e.correlation < 0 && (IsDeviceKind(e.kind) || e.kind == EventKind::kRuntime);
  }
  std::unordered_map<uint64_t, int64_t> starts, ends;
  if (need_flows) {
    starts.insert(flow_starts_.begin(), flow_starts_.end());
    ends.insert(flow_ends_.begin(), flow_ends_.end());
  }
  flow_starts_.clear();
  flow_ends_.clear();
  const int64_t base = has_base_ ? base_ns_ : 0;
  for (size_t i = first_event_; i < t.events.size(); ++i) {
    Event& e = t.events[i];
    if (need_flows && e.correlation < 0) {
      const auto& flows = IsDeviceKind(e.kind) ? ends : starts;
      if (auto it = flows.find(FlowKey(e.track, e.start_ns)); it != flows.end()) {
        e.correlation = it->second;
      }
    }
    e.track = track_of[e.track];
    e.start_ns += base;
  }

  // Collectives: rank, and per-(comm, op) ordinals where Seq was not logged.
  std::sort(collective_starts_.begin(), collective_starts_.end());
  std::map<std::pair<StringId, StringId>, int64_t> next_seq;
  for (const auto& [start, index] : collective_starts_) {
    Collective& c = t.collectives[index];
    c.rank = rank_;
    if (c.nranks < 0) c.nranks = world_size_;
    if (c.seq < 0) {
      c.seq = next_seq[{c.comm, c.op}]++;
      c.seq_inferred = true;
    }
  }

  SourceFile& f = t.files[file_];
  if (has_base_) {
    f.epoch_clock = true;
    f.clock_source = "baseTimeNanoseconds";
    // kineto #928 (May 2024): first in PyTorch 2.4.
    f.format_version = "Kineto float us + baseTimeNanoseconds (PyTorch 2.4+)";
  } else if (max_ts_ns_ > 100'000'000'000'000'000) {  // later than 1973 as epoch ns
    f.epoch_clock = true;
    f.clock_source = "epoch us";
    f.format_version = "Kineto epoch us, no baseTimeNanoseconds (PyTorch <= 2.3)";
  } else {
    f.clock_source = "relative us (no baseTimeNanoseconds)";
    // kineto #910/#919 made ts relative in April 2024, #928 added the base a
    // month later: only nightlies of that month, or a trace re-based by a tool.
    f.format_version =
        "Kineto relative us, no baseTimeNanoseconds (April 2024 nightlies, or re-based)";
  }
}

}  // namespace gpufleet::trace::kineto
