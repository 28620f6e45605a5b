// What a deep capture measured, as the incident's device's own series at the
// capture's end: rocprofv3's counter collection on AMD
// (collect/rocprof_counters.h), Nsight Compute's CSV on NVIDIA
// (collect/ncu_metrics.h) and unitrace's metric report on Intel
// (collect/unitrace_metrics.h), the sources of the L2-miss and memory-stall
// signals that no always-on interface reports, and the Unified Memory page
// faults of an Nsight Systems export on NVIDIA (trace/nsys_page_faults.h).
// Root cause and the capture triggers read them like any other sample.
#pragma once

#include <cstdint>

#include "core/labels.h"
#include "server/capture_runner.h"
#include "store/window_store.h"

namespace gpufleet {

// Reads what the capture `r` left ({output}, the files beside it, the
// command's output {output}.log) and appends the signals found for the
// device `subject` names at `now_ns`, labelled with the method (e.g.
// method="ncu_capture"). Nothing when the command failed or left none of
// these; a malformed report is named on stderr. Thread-safe as the window
// store is (it runs on the capture runner's thread).
void RecordCaptureSignals(const CaptureResult& r, const Labels& subject, int64_t now_ns,
                          WindowStore& window);

}  // namespace gpufleet
