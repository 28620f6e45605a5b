// What the two rocprofiler-sdk importers (rocprofv3 CSV, rocpd SQLite)
// share: how their names map to EventKind, and how their clock is described.
// Private to src/trace. Both formats carry the same rocprofiler-sdk domains
// and CLOCK_BOOTTIME times, so one rule serves both; pure functions, no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/timeline.h"

namespace gpufleet::trace {

// A kernel dispatch: kCommKernel for NCCL/RCCL kernels ("ncclDevKernel_...",
// "ncclKernel_...", "rccl..."), else kKernel.
EventKind RocprofKernelKind(std::string_view kernel_name);

// A host call: `domain` is the CSV Domain column or the rocpd event category
// ("HIP_RUNTIME_API", "MARKER_CORE_API"), `function` the call or region name.
// Markers are kInstant when zero-length, else kAnnotation; calls whose name
// contains "Synchronize" are kSync; every other call is kRuntime.
EventKind RocprofCallKind(std::string_view domain, std::string_view function, int64_t dur_ns);

// The SourceFile for a rocprofiler-sdk file: native CLOCK_BOOTTIME ns, not
// epoch, so alignment has to place it.
SourceFile RocprofSourceFile(const std::string& path, std::string_view format);

}  // namespace gpufleet::trace
