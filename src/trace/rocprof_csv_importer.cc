// rocprofv3 (ROCprofiler-SDK) CSV and rocprof v1 results.csv importer.
//
// One CSV per domain and process (`<pid>_kernel_trace.csv`,
// `<pid>_hip_api_trace.csv`, `_hsa_api_trace`, `_marker_api_trace`,
// `_memory_copy_trace`, `_rccl_api_trace`...). Columns are read by header
// name, never by position: ROCm <= 6.3 kernel traces have no Stream_Id and
// Private/Group_Segment_Size instead of LDS/Scratch/VGPR columns. A row this
// handles (kernel_trace.csv, ROCm 6.2 doc example):
//   "KERNEL_DISPATCH",1,1,69,1,16,"void addition_kernel<float>(float*, float const*,
//   float const*, int, int)",1451,8819330200067564,8819330200116308,0,0,64,1,1,1024,1024,1
// Times are CLOCK_BOOTTIME ns, not epoch: they are left native and the file
// says so (alignment on collectives or a boottime offset happens later).
//
// Families (issue 19; format_version names the one read):
//   ROCm 6.2/6.3: kernel rows without Stream_Id, memory copies without
//     Stream_Id, Agent_Id an integer.
//   ROCm 6.4+: Stream_Id after Queue_Id (kernels) and after Direction (memory
//     copies); LDS_Block_Size/Scratch_Size/VGPR/Accum_VGPR/SGPR columns.
//   ROCm 7.x: Agent_Id is the agent index as text, "Agent 2" (absolute or
//     relative indexing) or "GPU 0" / "CPU 0" (--agent-index type-relative);
//     files converted from a rocpd database lead with a Guid column.
// A row whose agent field is none of these is counted with its file:line.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_util.h"
#include "core/strings.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/rocprof_util.h"

namespace gpufleet::trace {
namespace {

enum class CsvKind { kKernel, kApi, kMemcpy, kRocprofV1 };

std::string_view DirectionName(std::string_view dir) {
  if (dir.find("HOST_TO_DEVICE") != std::string_view::npos) return "Memcpy HtoD";
  if (dir.find("DEVICE_TO_HOST") != std::string_view::npos) return "Memcpy DtoH";
  if (dir.find("DEVICE_TO_DEVICE") != std::string_view::npos) return "Memcpy DtoD";
  if (dir.find("HOST_TO_HOST") != std::string_view::npos) return "Memcpy HtoH";
  return "Memcpy";
}

// An Agent_Id field: "2", "Agent 2", "GPU 0" or "CPU 0". `cpu` is set for a
// "CPU n" agent. nullopt when the field is none of these or out of range.
struct AgentField {
  int index = 0;
  bool cpu = false;
  bool text = false;  // written as "<word> n" (ROCm 7.x), not a bare integer
};
std::optional<AgentField> ParseAgentField(std::string_view field) {
  field = TrimWhitespace(field);
  AgentField a;
  size_t sp = field.rfind(' ');
  if (sp != std::string_view::npos) {
    std::string_view word = field.substr(0, sp);
    if (word == "CPU") {
      a.cpu = true;
    } else if (word != "Agent" && word != "GPU") {
      return std::nullopt;
    }
    a.text = true;
    field = field.substr(sp + 1);
  }
  auto n = ParseInt64(field);
  if (!n || *n < 0 || *n > 65535) return std::nullopt;
  a.index = static_cast<int>(*n);
  return a;
}

// "<pid>_kernel_trace.csv" -> pid.
int64_t PidFromFileName(std::string_view path) {
  std::string_view base = BaseName(path);
  size_t us = base.find('_');
  if (us == std::string_view::npos) return -1;
  auto pid = ParseInt64(base.substr(0, us));
  return pid && *pid >= 0 ? *pid : -1;
}

// The format_version of one file: which family its header shows.
std::string FamilyName(CsvKind kind, bool stream_id, bool guid) {
  if (kind == CsvKind::kRocprofV1) return "rocprof v1 results.csv";
  std::string name = "rocprofv3 CSV, ";
  if (guid) name += "ROCm 7.x rocpd convert (Guid), ";
  switch (kind) {
    case CsvKind::kKernel:
      return name + (stream_id ? "ROCm 6.4+ kernel columns (Stream_Id)"
                               : "ROCm <= 6.3 kernel columns (no Stream_Id)");
    case CsvKind::kMemcpy:
      return name + (stream_id ? "ROCm 6.4+ memory copy columns (Stream_Id)"
                               : "ROCm <= 6.3 memory copy columns (no Stream_Id)");
    default:
      return name + "API columns (Domain, Function; unchanged 6.2-7.x)";
  }
}

class RocprofCsvImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "rocprofv3_csv"; }

  bool Sniff(std::string_view path, std::string_view head) const override {
    if (!EndsWith(ToLower(path), ".csv")) return false;
    std::string_view first = head.substr(0, head.find('\n'));
    return first.find("Start_Timestamp") != std::string_view::npos ||
           first.find("BeginNs") != std::string_view::npos;
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    LineReader reader(text);
    std::string_view line;
    if (!reader.Next(line)) return InvalidArgumentError(path + ": empty CSV file");
    if (line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    std::vector<std::string> header;
    if (!SplitCsvLine(line, header))
      return InvalidArgumentError(path + ":1: unterminated quote in header");
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < header.size(); ++i) col[std::string(TrimWhitespace(header[i]))] = i;

    CsvKind kind;
    std::vector<std::string> required;
    if (col.count("Counter_Name") || col.count("Calls")) {
      return InvalidArgumentError(path +
                                  ":1: not a rocprof trace CSV (a counter or stats file: "
                                  "no per-event timestamps)");
    } else if (col.count("KernelName") && col.count("BeginNs")) {
      kind = CsvKind::kRocprofV1;
      required = {"KernelName", "BeginNs", "EndNs", "gpu-id", "queue-id"};
    } else if (col.count("Kernel_Name")) {
      kind = CsvKind::kKernel;
      required = {"Kernel_Name", "Start_Timestamp", "End_Timestamp", "Agent_Id", "Queue_Id"};
    } else if (col.count("Direction")) {
      kind = CsvKind::kMemcpy;
      required = {"Direction", "Start_Timestamp", "End_Timestamp"};
    } else if (col.count("Function")) {
      kind = CsvKind::kApi;
      required = {"Domain", "Function", "Thread_Id", "Start_Timestamp", "End_Timestamp"};
    } else {
      return InvalidArgumentError(
          path +
          ":1: not a rocprof trace CSV (no Kernel_Name, Function, Direction or KernelName "
          "column; stats and counter files carry no events)");
    }
    for (const std::string& r : required) {
      if (col.count(r) == 0) {
        return InvalidArgumentError(path + ":1: missing required column '" + r + "'");
      }
    }
    auto idx = [&](const char* name) -> std::optional<size_t> {
      auto it = col.find(name);
      if (it == col.end()) return std::nullopt;
      return it->second;
    };

    uint32_t file = b.AddFile(RocprofSourceFile(path, "rocprofv3_csv"));
    b.timeline().files[file].format_version =
        FamilyName(kind, idx("Stream_Id").has_value(), idx("Guid").has_value());
    bool text_agents = false;
    const int64_t file_pid = PidFromFileName(path);

    std::vector<std::string> f;
    while (reader.Next(line)) {
      if (TrimWhitespace(line).empty()) continue;
      std::string where = path + ":" + std::to_string(reader.line_no());
      SourceFile& sfile = b.timeline().files[file];
      if (!SplitCsvLine(line, f)) {
        NoteSkipped(sfile, where + ": unterminated quote");
        continue;
      }
      if (f.size() < header.size()) {
        NoteSkipped(sfile, where + ": " + std::to_string(f.size()) + " fields, header has " +
                               std::to_string(header.size()));
        continue;
      }
      auto num = [&](std::optional<size_t> i) -> std::optional<int64_t> {
        if (!i) return std::nullopt;
        return ParseInt64(TrimWhitespace(f[*i]));
      };
      bool v1 = kind == CsvKind::kRocprofV1;
      auto start = num(idx(v1 ? "BeginNs" : "Start_Timestamp"));
      auto end = num(idx(v1 ? "EndNs" : "End_Timestamp"));
      if (!start || !end || *end < *start) {
        NoteSkipped(sfile, where + ": bad or reversed Start/End timestamps");
        continue;
      }
      Event e;
      e.start_ns = *start;
      e.dur_ns = *end - *start;
      e.correlation = num(idx(v1 ? "Index" : "Correlation_Id")).value_or(-1);
      int64_t pid = num(idx(v1 ? "pid" : "Process_Id")).value_or(file_pid);
      uint32_t proc = b.Process(file, "", pid);
      b.timeline().processes[proc].vendor = Vendor::kAmd;
      switch (kind) {
        case CsvKind::kKernel:
        case CsvKind::kRocprofV1: {
          std::string_view name = f[*idx(v1 ? "KernelName" : "Kernel_Name")];
          e.name = b.Intern(name);
          e.kind = RocprofKernelKind(name);
          std::optional<AgentField> agent = ParseAgentField(f[*idx(v1 ? "gpu-id" : "Agent_Id")]);
          // Stream_Id (ROCm >= 6.4) names the HIP stream; older files only
          // have the HSA queue.
          auto queue = num(idx("Stream_Id"));
          if (!queue || *queue == 0) queue = num(idx(v1 ? "queue-id" : "Queue_Id"));
          if (!agent) {
            std::string_view bad = f[*idx(v1 ? "gpu-id" : "Agent_Id")];
            NoteSkipped(sfile, where + ": bad agent id '" + std::string(bad.substr(0, 40)) + "'");
            continue;
          }
          text_agents |= agent->text;
          e.track = b.DeviceQueue(proc, agent->index, queue.value_or(0));
          break;
        }
        case CsvKind::kMemcpy: {
          std::string_view dir = f[*idx("Direction")];
          e.name = b.Intern(DirectionName(dir));
          e.kind = EventKind::kMemcpy;
          // The device end of the copy: the source for copies to the host,
          // else the destination; a "CPU n" agent (type-relative indexing)
          // yields to the other end.
          bool to_host = dir.find("TO_HOST") != std::string_view::npos;
          auto src =
              idx("Source_Agent_Id") ? ParseAgentField(f[*idx("Source_Agent_Id")]) : std::nullopt;
          auto dst = idx("Destination_Agent_Id") ? ParseAgentField(f[*idx("Destination_Agent_Id")])
                                                 : std::nullopt;
          std::optional<AgentField> agent = to_host ? src : dst;
          if (agent && agent->cpu) agent = to_host ? dst : src;
          if ((idx("Source_Agent_Id") && !src) || (idx("Destination_Agent_Id") && !dst)) {
            NoteSkipped(sfile, where + ": bad Source_Agent_Id or Destination_Agent_Id");
            continue;
          }
          if (agent) text_agents |= agent->text;
          int device = agent ? agent->index : 0;
          e.track = b.DeviceQueue(proc, device, num(idx("Stream_Id")).value_or(-1));
          break;
        }
        case CsvKind::kApi: {
          std::string_view domain = f[*idx("Domain")];
          std::string_view fn = f[*idx("Function")];
          e.name = b.Intern(fn);
          e.kind = RocprofCallKind(domain, fn, e.dur_ns);
          auto tid = num(idx("Thread_Id"));
          if (!tid) {
            NoteSkipped(sfile, where + ": bad Thread_Id");
            continue;
          }
          e.track = b.HostThread(proc, *tid);
          break;
        }
      }
      b.AddEvent(e);
    }
    if (text_agents) {
      b.timeline().files[file].format_version += ", Agent_Id as text (ROCm 7.x)";
    }
    if (progress != nullptr) progress->Advance(text.size(), text.size());
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<TraceImporter> NewRocprofCsvImporter() {
  return std::make_unique<RocprofCsvImporter>();
}

}  // namespace gpufleet::trace
