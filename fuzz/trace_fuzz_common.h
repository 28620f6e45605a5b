// Shared body of the trace importer fuzz targets: importers read files, so
// each input is written to a per-process temp file (SQLite formats need a
// real file), sniffed, imported, and the resulting timeline checked for
// dangling indices.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "trace/hang.h"
#include "trace/importer.h"

namespace gpufleet::trace {

inline std::string FuzzWriteTemp(const uint8_t* data, size_t size, std::string_view name) {
  std::string path = "/tmp/gpufleet_fuzz_" + std::to_string(getpid()) + "_" + std::string(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "";
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

inline void FuzzImport(TraceImporter& importer, const uint8_t* data, size_t size,
                       std::string_view name, bool also_hang) {
  std::string path = FuzzWriteTemp(data, size, name);
  if (path.empty()) return;
  std::string_view head(reinterpret_cast<const char*>(data), size < 4096 ? size : 4096);
  (void)importer.Sniff(path, head);
  Timeline t;
  TimelineBuilder b(t);
  Status st = importer.Import(path, b, nullptr);
  if (st.ok()) {
    b.Finish();
    for (const Event& e : t.events) {
      if (e.track >= t.tracks.size() || e.dur_ns < 0) __builtin_trap();
      if (e.collective != kNoCollective && e.collective >= t.collectives.size()) __builtin_trap();
    }
    for (const Track& tr : t.tracks) {
      if (tr.process >= t.processes.size()) __builtin_trap();
    }
  }
  if (also_hang) {
    auto r = AnalyzeHang({path});
    if (r.ok()) {
      (void)FormatHangText(*r);
      (void)HangReportJson(*r);
    }
  }
  std::remove(path.c_str());
}

}  // namespace gpufleet::trace
