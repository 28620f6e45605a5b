// The Kineto / Chrome trace JSON importer's entry point on bytes already
// read (and gunzipped) from a file; the importer itself is registered
// through importer.h (NewKinetoJsonImporter). Exposed for the fuzz target.
#pragma once

#include <string>

#include "core/status.h"
#include "trace/importer.h"
#include "trace/timeline.h"
#include "trace/trace_file_reader.h"

namespace gpufleet::trace::kineto {

// Imports `bytes` (the content of `path`) into `builder`. Errors as
// TraceImporter::Import (importer.h).
Status ImportKinetoJsonBytes(const std::string& path, const TraceBytes& bytes,
                             TimelineBuilder& builder, ImportProgress* progress);

}  // namespace gpufleet::trace::kineto
