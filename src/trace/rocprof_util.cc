#include "trace/rocprof_util.h"

#include "core/strings.h"

namespace gpufleet::trace {

EventKind RocprofKernelKind(std::string_view kernel_name) {
  return StartsWith(kernel_name, "ncclDevKernel") || StartsWith(kernel_name, "ncclKernel") ||
                 StartsWith(kernel_name, "rccl")
             ? EventKind::kCommKernel
             : EventKind::kKernel;
}

EventKind RocprofCallKind(std::string_view domain, std::string_view function, int64_t dur_ns) {
  if (StartsWith(domain, "MARKER")) {
    return dur_ns == 0 ? EventKind::kInstant : EventKind::kAnnotation;
  }
  if (function.find("Synchronize") != std::string_view::npos) return EventKind::kSync;
  return EventKind::kRuntime;
}

SourceFile RocprofSourceFile(const std::string& path, std::string_view format) {
  SourceFile sf;
  sf.path = path;
  sf.format = std::string(format);
  sf.epoch_clock = false;
  sf.clock_source = "CLOCK_BOOTTIME ns (rocprofiler-sdk)";
  sf.alignment = "native CLOCK_BOOTTIME ns, not epoch: needs alignment";
  return sf;
}

}  // namespace gpufleet::trace
