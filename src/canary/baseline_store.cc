#include "canary/baseline_store.h"

#include "canary/stats.h"

namespace gpufleet::canary {

Baseline BaselineFromResult(const BenchmarkResult& r, int64_t created_ns) {
  Baseline b;
  b.target_key = r.target.Key();
  b.benchmark_id = r.benchmark_id;
  b.unit = r.unit;
  b.median = Median(r.values);
  b.scaled_mad = ScaledMad(r.values);
  b.values = r.values;
  b.source = r.source;
  b.created_ns = created_ns;
  return b;
}

Status InMemoryBaselineStore::PutBaseline(const Baseline& b) {
  baselines_[{b.target_key, b.benchmark_id}] = b;
  return OkStatus();
}

StatusOr<std::optional<Baseline>> InMemoryBaselineStore::GetBaseline(
    const std::string& target_key, const std::string& benchmark_id) {
  auto it = baselines_.find({target_key, benchmark_id});
  if (it == baselines_.end()) return std::optional<Baseline>();
  return std::optional<Baseline>(it->second);
}

StatusOr<std::vector<Baseline>> InMemoryBaselineStore::ListBaselines() {
  std::vector<Baseline> out;
  for (const auto& [key, b] : baselines_) out.push_back(b);
  return out;
}

Status InMemoryBaselineStore::AddResult(const BenchmarkResult& r, int64_t /*ingested_ns*/) {
  results_.push_back(r);
  return OkStatus();
}

StatusOr<std::vector<BenchmarkResult>> InMemoryBaselineStore::Results(
    const std::string& target_key) {
  std::vector<BenchmarkResult> out;
  for (const BenchmarkResult& r : results_) {
    if (r.target.Key() == target_key) MergeResult(r, &out);
  }
  return out;
}

}  // namespace gpufleet::canary
