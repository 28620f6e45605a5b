#include "trace/trace_loader.h"

#include "trace/trace_file_reader.h"

namespace gpufleet::trace {

StatusOr<std::unique_ptr<TraceImporter>> DetectImporter(const std::string& path) {
  ASSIGN_OR_RETURN(std::string head, ReadTraceHead(path, 8192));
  std::string known;
  for (auto& importer : AllImporters()) {
    if (importer->Sniff(path, head)) return std::move(importer);
    if (!known.empty()) known += ", ";
    known += importer->format();
  }
  return InvalidArgumentError(path + ": unknown trace format (known: " + known + ")");
}

StatusOr<Timeline> LoadTraces(const std::vector<std::string>& paths, const LoadOptions& options,
                              ImportProgress* progress) {
  if (paths.empty()) return InvalidArgumentError("no trace files given");
  Timeline timeline;
  TimelineBuilder builder(timeline);
  for (const std::string& path : paths) {
    std::unique_ptr<TraceImporter> importer;
    if (options.force_format.empty()) {
      ASSIGN_OR_RETURN(importer, DetectImporter(path));
    } else {
      for (auto& candidate : AllImporters()) {
        if (candidate->format() == options.force_format) importer = std::move(candidate);
      }
      if (importer == nullptr) {
        return InvalidArgumentError("unknown trace format '" + options.force_format + "'");
      }
    }
    RETURN_IF_ERROR(importer->Import(path, builder, progress));
  }
  builder.Finish();
  if (options.align) AlignClocks(timeline, options.alignment);
  return timeline;
}

}  // namespace gpufleet::trace
