// Report writers for AnalysisReport: a terminal summary, Markdown, JSON and a
// self-contained HTML page (inline CSS and SVG; no scripts, fonts or links).
//
// All writers take the Timeline the report was computed from (for file
// names, clock offsets, partial flags and, in HTML, the timeline plot) and
// return the whole document as a string. Pure functions; thread-compatible.
// Durations are printed with adaptive units (ns/us/ms/s) in text and
// Markdown, and as integer ns in JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/format.h"  // FormatFixed, used with the helpers below
#include "trace/analysis.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct ReportOptions {
  int summary_kernels = 10;  // kernel rows in the terminal summary
  int html_width_px = 1200;  // timeline plot width; also its time resolution (1 px buckets)
  int html_max_lanes = 48;   // device queues drawn; the busiest are kept
};

std::string FormatSummary(const Timeline& timeline, const AnalysisReport& report,
                          const ReportOptions& options = {});
std::string ReportMarkdown(const Timeline& timeline, const AnalysisReport& report);
// Stable keys, documented in docs/trace.md; times in ns.
std::string ReportJson(const Timeline& timeline, const AnalysisReport& report);
// The timeline plot is downsampled to one rectangle per lane and pixel bucket
// at most (dominant kind wins), so size is bounded by lanes x width, not by
// the number of events.
std::string ReportHtml(const Timeline& timeline, const AnalysisReport& report,
                       const ReportOptions& options = {});

// "950 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string FormatDuration(double ns);

// Kernel name for tables: without a leading "void " and the trailing
// parameter list, "void at::native::f<4>(int, float*)" -> "at::native::f<4>".
std::string ShortKernelName(std::string_view name);

}  // namespace gpufleet::trace
