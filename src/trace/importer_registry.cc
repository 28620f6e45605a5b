// Sniffing order: the most specific formats first. Kineto JSON is first
// because its sniff (a JSON object with Kineto's top-level keys, or a bare
// array of "ph" events) cannot match the other formats.
#include "trace/importer.h"

namespace gpufleet::trace {

std::vector<std::unique_ptr<TraceImporter>> AllImporters() {
  std::vector<std::unique_ptr<TraceImporter>> all;
  all.push_back(NewKinetoJsonImporter());
  all.push_back(NewNsysSqliteImporter());
  all.push_back(NewRocpdImporter());
  all.push_back(NewFlightRecorderImporter());
  all.push_back(NewNcclJsonImporter());
  all.push_back(NewRocprofCsvImporter());
  all.push_back(NewNcclLogImporter());
  return all;
}

}  // namespace gpufleet::trace
