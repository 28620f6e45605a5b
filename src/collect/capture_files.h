// The files a profiler capture left: its output path itself, or the files
// below that folder that a reader wants. Shared by the readers of profiler
// output (collect/rocprof_counters.h, collect/ncu_metrics.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::collect {

// {path} when `path` is not a directory; otherwise the regular files at
// most 6 folders below it whose name `want` accepts, sorted (links to
// folders are not followed, unreadable folders are passed over). An error
// names the folder when it cannot be listed.
StatusOr<std::vector<std::string>> CaptureFiles(
    const std::string& path, const std::function<bool(std::string_view name)>& want);

}  // namespace gpufleet::collect
