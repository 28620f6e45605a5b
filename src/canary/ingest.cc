#include "canary/ingest.h"

#include "canary/magnitude.h"
#include "core/file_util.h"

namespace gpufleet::canary {

StatusOr<std::vector<BenchmarkResult>> LoadResultFiles(const std::vector<std::string>& paths,
                                                       ResultFormat format,
                                                       const HardwareTarget& target,
                                                       ParseReport* report) {
  std::vector<BenchmarkResult> all;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    ASSIGN_OR_RETURN(std::vector<BenchmarkResult> results,
                     ParseResults(text, path, format, report));
    for (BenchmarkResult& r : results) {
      r.target.MergeFrom(target);
      MergeResult(std::move(r), &all);
    }
  }
  return all;
}

StatusOr<std::vector<Baseline>> SetBaselines(const std::vector<BenchmarkResult>& results,
                                             BaselineStore& store, const HardwareCatalog* catalog,
                                             bool force, int64_t now_ns) {
  std::vector<Baseline> baselines;
  for (const BenchmarkResult& r : results) {
    if (r.unit == kUnitPass || r.values.empty()) continue;
    if (catalog != nullptr && !force) {
      std::optional<PeakBound> bound = PeakFor(*catalog, r.target.model, r.benchmark_id, r.unit);
      for (double v : r.values) {
        if (!bound) break;
        if (Status st = CheckMagnitude(*bound, v); !st.ok()) {
          return InvalidArgumentError(r.source + ": " + r.benchmark_id + ": refusing baseline: " +
                                      st.message() + " (--force to store it anyway)");
        }
      }
    }
    baselines.push_back(BaselineFromResult(r, now_ns));
  }
  for (const Baseline& b : baselines) RETURN_IF_ERROR(store.PutBaseline(b));
  return baselines;
}

}  // namespace gpufleet::canary
