// Baselines: the reference figure of one benchmark on one hardware target,
// and the store interface that keeps them with the results they came from.
// canary/sqlite_baseline_store.h implements this interface on the SQLite state
// database, and
// InMemoryBaselineStore serves tests and one-shot CLI runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

struct Baseline {
  std::string target_key;  // HardwareTarget::Key()
  std::string benchmark_id;
  std::string unit;
  double median = 0;      // in `unit`
  double scaled_mad = 0;  // in `unit`; 0 when made from < 2 values
  std::vector<double> values;
  std::string source;  // files or command that set it
  int64_t created_ns = 0;
};

// REQUIRES: !r.values.empty().
Baseline BaselineFromResult(const BenchmarkResult& r, int64_t created_ns);

// Thread safety: implementations need not be thread-safe; callers serialize.
class BaselineStore {
 public:
  virtual ~BaselineStore() = default;
  // Replaces any baseline of the same (target_key, benchmark_id).
  virtual Status PutBaseline(const Baseline& b) = 0;
  // nullopt when none is stored.
  virtual StatusOr<std::optional<Baseline>> GetBaseline(const std::string& target_key,
                                                        const std::string& benchmark_id) = 0;
  // All baselines, ordered by target key then benchmark id.
  virtual StatusOr<std::vector<Baseline>> ListBaselines() = 0;
  // Keeps an ingested result (history; "baseline set --from-db" reads it back).
  virtual Status AddResult(const BenchmarkResult& r, int64_t ingested_ns) = 0;
  // Stored results of one target, oldest first, repetitions merged per
  // benchmark.
  virtual StatusOr<std::vector<BenchmarkResult>> Results(const std::string& target_key) = 0;
};

class InMemoryBaselineStore : public BaselineStore {
 public:
  Status PutBaseline(const Baseline& b) override;
  StatusOr<std::optional<Baseline>> GetBaseline(const std::string& target_key,
                                                const std::string& benchmark_id) override;
  StatusOr<std::vector<Baseline>> ListBaselines() override;
  Status AddResult(const BenchmarkResult& r, int64_t ingested_ns) override;
  StatusOr<std::vector<BenchmarkResult>> Results(const std::string& target_key) override;

 private:
  std::map<std::pair<std::string, std::string>, Baseline> baselines_;
  std::vector<BenchmarkResult> results_;
};

}  // namespace gpufleet::canary
