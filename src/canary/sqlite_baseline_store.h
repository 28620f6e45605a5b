// canary::BaselineStore on the SQLite state database (canary owns these
// tables; store/state_db provides the database and migrations): tables
// canary_baselines (one row per target key and benchmark) and canary_results
// (every ingested result, for history and "baseline set --from-db").
// Repetition values are stored as space-separated shortest round-trip
// decimals.
//
// Thread safety: as StateDb (one per thread).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "canary/baseline_store.h"
#include "store/state_db.h"

namespace gpufleet::canary {

// The canary component's schema migrations; pass them (with other
// components' lists) to StateDb::Open.
const std::vector<Migration>& CanaryMigrations();

class SqliteBaselineStore : public BaselineStore {
 public:
  // `db` must outlive the store and have CanaryMigrations() applied.
  explicit SqliteBaselineStore(StateDb* db) : db_(db) {}

  Status PutBaseline(const Baseline& b) override;
  StatusOr<std::optional<Baseline>> GetBaseline(const std::string& target_key,
                                                        const std::string& benchmark_id) override;
  StatusOr<std::vector<Baseline>> ListBaselines() override;
  Status AddResult(const BenchmarkResult& r, int64_t ingested_ns) override;
  StatusOr<std::vector<BenchmarkResult>> Results(const std::string& target_key) override;

 private:
  StateDb* db_;
};

}  // namespace gpufleet::canary
