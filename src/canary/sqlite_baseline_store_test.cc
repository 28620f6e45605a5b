#include "canary/sqlite_baseline_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace gpufleet::canary {
namespace {

std::string TempDb(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("gpufleet_canary_store_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove(p);
  std::filesystem::remove(p.string() + "-wal");
  std::filesystem::remove(p.string() + "-shm");
  return p.string();
}

BenchmarkResult Busbw(std::vector<double> values) {
  BenchmarkResult r;
  r.target.model = "h100-sxm";
  r.target.libraries = "nccl-2.21.5";
  r.benchmark_id = "nccl.all_reduce.busbw@8589934592";
  r.unit = "bytes_per_second";
  r.values = std::move(values);
  r.source = "run1.txt:54";
  return r;
}

TEST(CanaryStoreTest, BaselinesSurviveReopen) {
  std::string path = TempDb("reopen.db");
  Baseline b = BaselineFromResult(Busbw({338.82e9, 337.35e9, 0.1 + 3e11}), 42);
  {
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, CanaryMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    SqliteBaselineStore store(db->get());
    ASSERT_TRUE(store.PutBaseline(b).ok());
  }
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, CanaryMigrations());
  ASSERT_TRUE(db.ok());
  SqliteBaselineStore store(db->get());
  StatusOr<std::optional<Baseline>> got = store.GetBaseline(b.target_key, b.benchmark_id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->values, b.values);  // exact round trip of doubles
  EXPECT_DOUBLE_EQ((*got)->median, b.median);
  EXPECT_EQ((*got)->created_ns, 42);
  EXPECT_FALSE(store.GetBaseline("model=other", b.benchmark_id)->has_value());
  std::filesystem::remove(path);
}

TEST(CanaryStoreTest, PutReplacesAndListIsOrdered) {
  std::string path = TempDb("list.db");
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, CanaryMigrations());
  ASSERT_TRUE(db.ok());
  SqliteBaselineStore store(db->get());
  Baseline b = BaselineFromResult(Busbw({1e11}), 1);
  ASSERT_TRUE(store.PutBaseline(b).ok());
  b.median = 2e11;
  ASSERT_TRUE(store.PutBaseline(b).ok());
  Baseline a = b;
  a.benchmark_id = "nccl.all_reduce.busbw@4294967296";
  ASSERT_TRUE(store.PutBaseline(a).ok());
  StatusOr<std::vector<Baseline>> all = store.ListBaselines();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].benchmark_id, "nccl.all_reduce.busbw@4294967296");
  EXPECT_DOUBLE_EQ((*all)[1].median, 2e11);
  std::filesystem::remove(path);
}

TEST(CanaryStoreTest, ResultsAccumulatePerTarget) {
  std::string path = TempDb("results.db");
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, CanaryMigrations());
  ASSERT_TRUE(db.ok());
  SqliteBaselineStore store(db->get());
  ASSERT_TRUE(store.AddResult(Busbw({1, 2}), 10).ok());
  ASSERT_TRUE(store.AddResult(Busbw({3}), 20).ok());
  BenchmarkResult other = Busbw({9});
  other.target.driver = "550.54.15";
  ASSERT_TRUE(store.AddResult(other, 30).ok());
  StatusOr<std::vector<BenchmarkResult>> got = store.Results(Busbw({}).target.Key());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].values, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ((*got)[0].target.libraries, "nccl-2.21.5");
  EXPECT_EQ(*(*db)->SchemaVersion("canary"), 1);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpufleet::canary
