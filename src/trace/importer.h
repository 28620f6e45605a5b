// TraceImporter: one per input format (Kineto/Chrome JSON, Nsight Systems
// SQLite, rocprofv3 CSV and rocpd SQLite, NCCL/RCCL logs, NCCL RAS and
// Inspector JSON, PyTorch flight-recorder dumps). Importers sniff the first
// bytes, read the file, and append to a TimelineBuilder; they never write
// reports or storage themselves.
//
// Errors: Import() returns a non-OK Status only when the file is structurally
// unusable and nothing was imported (not this format, unreadable, empty);
// the Status names the file and the place (line, byte offset, table, column).
// Bad records are skipped and counted in SourceFile::skipped with the first
// few reasons in SourceFile::errors; a file cut short (truncated gzip, JSON
// ending mid-array) keeps what was read and is marked SourceFile::partial.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

// Receives byte progress of a long import (for a progress bar). May be null.
class ImportProgress {
 public:
  virtual ~ImportProgress() = default;
  virtual void Advance(uint64_t bytes_done, uint64_t bytes_total) = 0;
};

class TraceImporter {
 public:
  virtual ~TraceImporter() = default;
  virtual std::string_view format() const = 0;  // "kineto_json", "nsys_sqlite", ...
  // True when `head` (the first bytes of the file, already gunzipped when the
  // file is gzip) looks like this format. `path` helps for CSV/log names.
  virtual bool Sniff(std::string_view path, std::string_view head) const = 0;
  virtual Status Import(const std::string& path, TimelineBuilder& builder,
                        ImportProgress* progress) = 0;
};

// Factories (one per importer file).
std::unique_ptr<TraceImporter> NewKinetoJsonImporter();
std::unique_ptr<TraceImporter> NewNsysSqliteImporter();
std::unique_ptr<TraceImporter> NewRocprofCsvImporter();
std::unique_ptr<TraceImporter> NewRocpdImporter();
std::unique_ptr<TraceImporter> NewNcclLogImporter();
std::unique_ptr<TraceImporter> NewNcclJsonImporter();  // RAS status and Inspector JSON(L)
std::unique_ptr<TraceImporter> NewFlightRecorderImporter();

// Every importer, in sniffing order (importer_registry.cc).
std::vector<std::unique_ptr<TraceImporter>> AllImporters();

}  // namespace gpufleet::trace
