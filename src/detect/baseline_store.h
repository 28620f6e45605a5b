// BaselineStore: durable learned baselines (running mean and variance per
// (key, metric)), so that baselines survive restarts.
//
// Two implementations: in memory (tests, one-shot evaluation) and SQLite via
// StateDb (WAL), migration component "detect". Keys are opaque strings built
// by the baseline detector ("model=h100-sxm/cloud=aws/workload=llm").
//
// Thread safety: not thread-safe; the detection engine owns the calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpufleet::detect {

struct Baseline {
  std::string key;
  std::string metric;
  int64_t count = 0;
  double mean = 0;
  double m2 = 0;  // sum of squared deviations (Welford)
  int64_t updated_ns = 0;

  double variance() const { return count > 1 ? m2 / static_cast<double>(count - 1) : 0; }
  void Add(double x, int64_t timestamp_ns);
};

class BaselineStore {
 public:
  virtual ~BaselineStore() = default;
  // Every stored baseline.
  virtual StatusOr<std::vector<Baseline>> LoadAll() = 0;
  // Inserts or replaces the given baselines (one transaction).
  virtual Status Save(const std::vector<Baseline>& baselines) = 0;
};

std::unique_ptr<BaselineStore> NewMemoryBaselineStore();
// Opens (or creates) the SQLite state database at `path`, applying the
// "detect" migrations.
StatusOr<std::unique_ptr<BaselineStore>> OpenSqliteBaselineStore(const std::string& path);

}  // namespace gpufleet::detect
