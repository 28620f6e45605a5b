#include "trace/perfetto_writer.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpufleet::trace {
namespace {

// Appends to a string and, when a FILE is attached, flushes it in ~1 MB
// blocks so a merged multi-GB trace never sits in memory twice.
class Sink {
 public:
  explicit Sink(FILE* f) : f_(f) {}
  std::string& buf() { return buf_; }
  void Maybe() {
    if (f_ != nullptr && buf_.size() > (1u << 20)) Flush();
  }
  void Flush() {
    if (f_ == nullptr || buf_.empty()) return;
    if (std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) ok_ = false;
    buf_.clear();
  }
  bool ok() const { return ok_; }

 private:
  FILE* f_;
  std::string buf_;
  bool ok_ = true;
};

void AppendEscaped(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

// ns -> "µs.nnn" exactly (no double rounding).
void AppendMicros(std::string& out, int64_t ns) {
  char buf[40];
  uint64_t a = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  std::snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000,
                a % 1000);
  out += buf;
}

std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct PidMap {
  std::vector<uint32_t> host_pid;                     // per process
  std::map<std::pair<uint32_t, int>, uint32_t> device_pid;  // (process, device)
  std::vector<std::pair<uint32_t, int64_t>> track_pid_tid;  // per track
};

PidMap AssignPids(const Timeline& t) {
  PidMap m;
  uint32_t next = 1;
  m.host_pid.resize(t.processes.size());
  for (size_t i = 0; i < t.processes.size(); ++i) m.host_pid[i] = next++;
  m.track_pid_tid.resize(t.tracks.size());
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    if (tr.kind == TrackKind::kDeviceQueue) {
      auto key = std::make_pair(tr.process, tr.device);
      auto it = m.device_pid.find(key);
      if (it == m.device_pid.end()) it = m.device_pid.emplace(key, next++).first;
      m.track_pid_tid[i] = {it->second, tr.queue};
    } else {
      m.track_pid_tid[i] = {m.host_pid[tr.process], tr.tid};
    }
  }
  return m;
}

std::string ProcessLabel(const Timeline& t, const Process& p) {
  std::string s = p.name.empty() ? "process" : p.name;
  if (p.pid >= 0) s += " (pid " + std::to_string(p.pid) + ")";
  if (p.rank >= 0) s += " rank " + std::to_string(p.rank);
  if (!p.host.empty()) s += " @" + p.host;
  if (p.file < t.files.size()) s += " [" + Basename(t.files[p.file].path) + "]";
  return s;
}

void Metadata(std::string& out, const char* what, uint32_t pid, int64_t tid, const char* key,
              std::string_view value) {
  out += "{\"ph\":\"M\",\"name\":\"";
  out += what;
  out += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
         ",\"args\":{\"";
  out += key;
  out += "\":";
  AppendEscaped(out, value);
  out += "}},\n";
}

void SortIndex(std::string& out, uint32_t pid, int64_t index) {
  out += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(index) + "}},\n";
}

void WriteDocument(const Timeline& t, const PerfettoOptions& options, Sink& sink) {
  std::string& out = sink.buf();
  out += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpufleet trace merge\","
         "\"files\":[";
  for (size_t i = 0; i < t.files.size(); ++i) {
    const SourceFile& f = t.files[i];
    if (i > 0) out += ",";
    out += "{\"path\":";
    AppendEscaped(out, f.path);
    out += ",\"format\":";
    AppendEscaped(out, f.format);
    out += ",\"clock_offset_ns\":" + std::to_string(f.clock_offset_ns);
    char drift[40];
    std::snprintf(drift, sizeof(drift), "%.6f", f.clock_drift_ppm);
    out += ",\"clock_drift_ppm\":";
    out += drift;
    out += ",\"clock_anchor_ns\":" + std::to_string(f.clock_anchor_ns) + ",\"alignment\":";
    AppendEscaped(out, f.alignment);
    out += ",\"partial\":";
    out += f.partial ? "true" : "false";
    out += ",\"events\":" + std::to_string(f.events) + "}";
  }
  out += "]},\n\"traceEvents\":[\n";

  PidMap pids = AssignPids(t);
  for (size_t i = 0; i < t.processes.size(); ++i) {
    const Process& p = t.processes[i];
    uint32_t pid = pids.host_pid[i];
    Metadata(out, "process_name", pid, 0, "name", ProcessLabel(t, p));
    std::string labels = "CPU";
    if (p.rank >= 0) labels += ", rank " + std::to_string(p.rank);
    if (p.file < t.files.size()) {
      labels += ", clock offset " + std::to_string(t.files[p.file].clock_offset_ns) + " ns";
    }
    Metadata(out, "process_labels", pid, 0, "labels", labels);
    SortIndex(out, pid, (p.rank >= 0 ? p.rank : 0) * 1000 + static_cast<int64_t>(pid));
  }
  for (const auto& [key, pid] : pids.device_pid) {
    const Process& p = t.processes[key.first];
    std::string name = "GPU " + std::to_string(key.second);
    if (!p.device_name.empty()) name += " " + p.device_name;
    if (p.rank >= 0) name += " rank " + std::to_string(p.rank);
    if (!p.host.empty()) name += " @" + p.host;
    if (p.file < t.files.size()) name += " [" + Basename(t.files[p.file].path) + "]";
    Metadata(out, "process_name", pid, 0, "name", name);
    Metadata(out, "process_labels", pid, 0, "labels",
             std::string(VendorName(p.vendor)) + " GPU " + std::to_string(key.second));
    SortIndex(out, pid, (p.rank >= 0 ? p.rank : 0) * 1000 + static_cast<int64_t>(pid));
  }
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    auto [pid, tid] = pids.track_pid_tid[i];
    std::string name = tr.name;
    if (name.empty()) {
      name = tr.kind == TrackKind::kDeviceQueue ? "stream " + std::to_string(tr.queue)
                                                : "thread " + std::to_string(tr.tid);
    }
    Metadata(out, "thread_name", pid, tid, "name", name);
  }

  // Launch -> device op links within one process.
  std::unordered_map<uint64_t, uint32_t> launch_of;  // (process, correlation) -> event
  auto corr_key = [&](const Event& e) {
    return (static_cast<uint64_t>(t.tracks[e.track].process) << 40) ^
           static_cast<uint64_t>(e.correlation);
  };
  if (options.flows) {
    for (size_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (e.correlation >= 0 && (e.kind == EventKind::kRuntime || e.kind == EventKind::kSync)) {
        launch_of.emplace(corr_key(e), static_cast<uint32_t>(i));
      }
    }
  }

  uint64_t flow_id = 1;
  bool first = true;
  for (const Event& e : t.events) {
    auto [pid, tid] = pids.track_pid_tid[e.track];
    if (!first) out += ",\n";
    first = false;
    bool instant = e.kind == EventKind::kInstant;
    out += instant ? "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"" : "{\"ph\":\"X\",\"cat\":\"";
    out += EventKindName(e.kind);
    out += "\",\"name\":";
    AppendEscaped(out, t.name(e));
    out += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
    AppendMicros(out, e.start_ns);
    if (!instant) {
      out += ",\"dur\":";
      AppendMicros(out, e.dur_ns);
    }
    bool args = e.correlation >= 0 || e.bytes >= 0 || e.collective != kNoCollective;
    if (args) {
      out += ",\"args\":{";
      bool comma = false;
      auto field = [&](const char* k, const std::string& v) {
        if (comma) out += ",";
        comma = true;
        out += "\"";
        out += k;
        out += "\":" + v;
      };
      if (e.correlation >= 0) field("correlation", std::to_string(e.correlation));
      if (e.bytes >= 0) field("bytes", std::to_string(e.bytes));
      if (e.collective != kNoCollective) {
        const Collective& c = t.collectives[e.collective];
        std::string s;
        AppendEscaped(s, t.strings.Get(c.op));
        field("collective", s);
        s.clear();
        AppendEscaped(s, t.strings.Get(c.comm));
        field("comm", s);
        field("seq", std::to_string(c.seq));
        if (c.bytes >= 0) field("collective_bytes", std::to_string(c.bytes));
      }
      out += "}";
    }
    out += "}";
    if (options.flows && IsDeviceKind(e.kind) && e.correlation >= 0) {
      auto it = launch_of.find(corr_key(e));
      if (it != launch_of.end()) {
        const Event& launch = t.events[it->second];
        auto [lpid, ltid] = pids.track_pid_tid[launch.track];
        std::string id = std::to_string(flow_id++);
        out += ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":" + id +
               ",\"pid\":" + std::to_string(lpid) + ",\"tid\":" + std::to_string(ltid) +
               ",\"ts\":";
        AppendMicros(out, launch.start_ns);
        out += "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":" + id +
               ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
               ",\"ts\":";
        AppendMicros(out, e.start_ns);
        out += "}";
      }
    }
    sink.Maybe();
  }
  out += "\n]}\n";
}

}  // namespace

std::string PerfettoJson(const Timeline& t, const PerfettoOptions& options) {
  Sink sink(nullptr);
  WriteDocument(t, options, sink);
  return std::move(sink.buf());
}

Status WritePerfettoJson(const Timeline& t, const std::string& path,
                         const PerfettoOptions& options) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return PermissionDeniedError(tmp + ": " + std::strerror(errno));
  Sink sink(f);
  WriteDocument(t, options, sink);
  sink.Flush();
  bool ok = sink.ok() && std::fclose(f) == 0;
  if (!ok) {
    std::remove(tmp.c_str());
    return DataLossError(path + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return PermissionDeniedError(path + ": " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace gpufleet::trace
