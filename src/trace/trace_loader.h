// Loads trace files of any supported format onto one clock-aligned Timeline:
// sniff each file (gunzipping the head of gzip files), import it with the
// matching importer, finish the timeline, then align clocks (see
// clock_alignment.h).
//
// Errors: NotFound / PermissionDenied for unreadable paths, InvalidArgument
// naming the file for unknown formats or structurally unusable files. A file
// that is cut short or has bad records still loads; it is marked partial in
// Timeline::files with the reasons.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "trace/clock_alignment.h"
#include "trace/importer.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct LoadOptions {
  bool align = true;
  AlignmentOptions alignment;
  std::string force_format;  // importer format name; "" sniffs
};

// `progress` (may be null) receives byte progress of each file in turn.
StatusOr<Timeline> LoadTraces(const std::vector<std::string>& paths, const LoadOptions& options,
                              ImportProgress* progress = nullptr);

// The importer whose Sniff() accepts the head of `path`; NotFound listing the
// known formats otherwise.
StatusOr<std::unique_ptr<TraceImporter>> DetectImporter(const std::string& path);

}  // namespace gpufleet::trace
