// NCCL / RCCL `NCCL_DEBUG=INFO` log importer. Line formats of every version
// family are read by nccl_log_parse (see its header and docs/trace.md).
// The bracket is the CUDA/HIP device index, not the rank; the rank comes from
// the init line of the same (host, pid, comm pointer). opCount is hex and per
// communicator. INFO lines usually carry no timestamp (only levels in
// NCCL_DEBUG_TIMESTAMP_LEVELS do, default WARN); without one, events are
// placed in line order and SourceFile::alignment says so. The version and
// init-line family recognised per process are noted in SourceFile::errors
// (as messages, not skips).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "trace/hang_inputs.h"
#include "trace/import_util.h"
#include "trace/importer.h"
#include "trace/nccl_log_parse.h"

namespace gpufleet::trace {
namespace {

using nccl_log::CollRecord;
using nccl_log::CommInfo;
using nccl_log::NcclLog;
using nccl_log::ProcKey;
using nccl_log::WarnRecord;

// The communicator identity and rank of a COLL record.
CommInfo Resolve(const NcclLog& log, const CollRecord& c) {
  auto it = log.comms.find({c.proc, c.comm_ptr});
  CommInfo info;
  if (it != log.comms.end()) info = it->second;
  if (info.comm_id.empty()) {
    info.comm_id = it != log.comms.end()
                       ? "nranks=" + std::to_string(info.nranks)
                       : c.proc.host + ":" + std::to_string(c.proc.pid) + ":" + c.comm_ptr;
  }
  if (it == log.comms.end()) {
    info.rank = c.global_rank;
    info.nranks = c.nranks;
  }
  return info;
}

Vendor VendorOf(const NcclLog& log, const ProcKey& p) {
  auto it = log.vendor.find(p);
  return it == log.vendor.end() ? Vendor::kUnknown : it->second;
}

// "NCCL 2.21.5+cuda12.4, RCCL 2.18.3+hip6.0; init: NCCL 2.19+ (...), ...".
std::string RecognisedVersions(const NcclLog& log) {
  std::set<std::string> versions, families;
  for (const auto& [proc, v] : log.version) {
    versions.insert((VendorOf(log, proc) == Vendor::kAmd ? "RCCL " : "NCCL ") + v);
  }
  if (!log.file_version.empty()) versions.insert("NCCL " + log.file_version);
  for (const auto& [key, info] : log.comms) families.insert(nccl_log::InitFamily(info));
  if (!log.timeouts.empty()) families.insert("PyTorch ProcessGroupNCCL watchdog");
  std::string out;
  for (const std::string& v : versions) out += (out.empty() ? "" : ", ") + v;
  std::string fam;
  for (const std::string& v : families) fam += (fam.empty() ? "" : ", ") + v;
  if (!fam.empty()) out += (out.empty() ? "" : "; ") + std::string("init: ") + fam;
  return out;
}

class NcclLogImporter : public TraceImporter {
 public:
  std::string_view format() const override { return "nccl_log"; }
  bool Sniff(std::string_view, std::string_view head) const override {
    return LooksLikeNcclLog(head);
  }

  Status Import(const std::string& path, TimelineBuilder& b, ImportProgress* progress) override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    NcclLog log = nccl_log::ParseNcclLog(path, text);
    if (log.nccl_lines == 0 && log.timeouts.empty()) {
      return InvalidArgumentError(path + ": no NCCL INFO/WARN lines (not an NCCL_DEBUG log)");
    }
    SourceFile sf;
    sf.path = path;
    sf.format = "nccl_log";
    sf.alignment = log.any_timestamp
                       ? "log timestamps (local time read as UTC); untimed lines take the "
                         "previous timestamp"
                       : "no timestamps in log: times are line order, needs alignment";
    sf.epoch_clock = false;  // local wall time at best, second resolution by default
    sf.clock_source = log.any_timestamp ? "NCCL log timestamps (local time)" : "log line order";
    uint32_t file = b.AddFile(std::move(sf));
    SourceFile& f = b.timeline().files[file];
    f.skipped = static_cast<uint64_t>(log.bad_lines);
    for (auto& m : log.bad) NoteError(f, m);
    f.format_version = RecognisedVersions(log);
    for (const auto& t : log.timeouts) {
      NoteError(f, path + ":" + std::to_string(t.line) + ": PyTorch watchdog: rank " +
                       std::to_string(t.rank) + " timed out in " + t.op + " seq " +
                       std::to_string(t.seq));
    }

    // Untimed lines get the last timestamp seen + 1 ns per line, so order is kept.
    auto time_of = [&, last = int64_t{-1}](int64_t ts, int64_t line) mutable {
      if (!log.any_timestamp) return line;
      if (ts >= 0) last = ts;
      return (last < 0 ? 0 : last) + line;
    };
    auto process = [&](const ProcKey& pk) {
      uint32_t p = b.Process(file, pk.host, pk.pid);
      b.timeline().processes[p].vendor = VendorOf(log, pk);
      return p;
    };
    // Rank and world size: the largest communicator the process is in.
    for (const auto& [key, info] : log.comms) {
      uint32_t p = process(key.first);
      trace::Process& proc = b.timeline().processes[p];
      if (info.nranks > proc.world_size) {
        proc.world_size = info.nranks;
        proc.rank = info.rank;
      }
    }
    // Merge records by line so the time cursor moves forward.
    size_t wi = 0;
    for (size_t ci = 0; ci <= log.colls.size(); ++ci) {
      int64_t next_line = ci < log.colls.size() ? log.colls[ci].line : INT64_MAX;
      for (; wi < log.warns.size() && log.warns[wi].line < next_line; ++wi) {
        const WarnRecord& w = log.warns[wi];
        Event e;
        e.kind = EventKind::kInstant;
        e.start_ns = time_of(w.ts_ns, w.line);
        e.name = b.Intern("NCCL WARN " + w.msg);
        e.track = b.HostThread(process(w.proc), w.tid);
        b.AddEvent(e);
        NoteError(b.timeline().files[file],
                  path + ":" + std::to_string(w.line) + ": NCCL WARN " + w.msg);
      }
      if (ci == log.colls.size()) break;
      const CollRecord& c = log.colls[ci];
      CommInfo info = Resolve(log, c);
      Collective coll;
      coll.op = b.Intern(c.op);
      coll.comm = b.Intern(info.comm_id);
      coll.seq = c.op_count;
      coll.bytes = c.bytes;
      coll.nranks = c.nranks > 0 ? c.nranks : info.nranks;
      coll.rank = info.rank;
      Event e;
      e.kind = EventKind::kInstant;
      e.start_ns = time_of(c.ts_ns, c.line);
      e.name = coll.op;
      e.bytes = c.bytes;
      e.collective = b.AddCollective(coll);
      e.track = b.HostThread(process(c.proc), c.tid);
      b.AddEvent(e);
    }
    if (progress != nullptr) progress->Advance(text.size(), text.size());
    return OkStatus();
  }
};

}  // namespace

bool LooksLikeNcclLog(std::string_view head) { return nccl_log::LooksLikeNcclLogText(head); }

std::unique_ptr<TraceImporter> NewNcclLogImporter() { return std::make_unique<NcclLogImporter>(); }

}  // namespace gpufleet::trace
