// The files a profiler capture left: its output path itself, or the files
// below that folder that a reader wants. Shared by the readers of profiler
// output (collect/rocprof_counters.h, collect/ncu_metrics.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_util.h"
#include "core/status.h"

namespace gpufleet::collect {

// What a reader of profiler output counts besides its figures.
struct CaptureReadTally {
  int64_t rows = 0;       // data rows read
  int64_t bad_rows = 0;   // rows skipped
  std::string first_bad;  // "file:line: why" of the first skipped row
  int64_t files = 0;
  void MergeTally(const CaptureReadTally& o) {
    rows += o.rows;
    bad_rows += o.bad_rows;
    if (first_bad.empty()) first_bad = o.first_bad;
    files += o.files;
  }
};

// A per-kernel share (L2 hit rate, stall share) pooled over kernels, summed
// with duration weights and with weight 1.
struct KernelShare {
  double weighted = 0, weight = 0, sum = 0;
  int64_t kernels = 0;
  void Add(double share, double duration_s) {
    weighted += duration_s * share;
    weight += duration_s;
    sum += share;
    ++kernels;
  }
  void Merge(const KernelShare& o) {
    weighted += o.weighted;
    weight += o.weight;
    sum += o.sum;
    kernels += o.kernels;
  }
  // The duration-weighted mean when `by_duration`, else each kernel once;
  // nullopt without kernels.
  std::optional<double> Mean(bool by_duration) const;
};

// {path} when `path` is not a directory; otherwise the regular files at
// most 6 folders below it whose name `want` accepts, sorted (links to
// folders are not followed, unreadable folders are passed over). An error
// names the folder when it cannot be listed.
StatusOr<std::vector<std::string>> CaptureFiles(
    const std::string& path, const std::function<bool(std::string_view name)>& want);

// Reads the reports a capture left at `path` (the file itself, or the files
// under the folder that `want` accepts) with `parse(text, file)` and merges
// them. In a folder, a file `parse` refuses is another tool's output and is
// passed over; a lone file it refuses is the error. NotFound ("path: no
// <what> under it") when nothing was read.
template <typename Summary, typename Parse>
StatusOr<Summary> ReadCaptureReports(const std::string& path,
                                     const std::function<bool(std::string_view name)>& want,
                                     Parse parse, std::string_view what) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, CaptureFiles(path, want));
  const bool one_file = files.size() == 1 && files[0] == path;
  Summary total;
  for (const std::string& f : files) {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(f));
    StatusOr<Summary> one = parse(text, f);
    if (!one.ok()) {
      if (one_file) return one.status();
      continue;
    }
    total.Merge(*one);
  }
  if (total.files == 0) return NotFoundError(path + ": no " + std::string(what) + " under it");
  return total;
}

}  // namespace gpufleet::collect
