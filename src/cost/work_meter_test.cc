#include "cost/work_meter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cost/meter.h"

namespace gpufleet::cost {
namespace {

RemoteWriteSeries Series(std::string name, std::vector<std::pair<int64_t, double>> points,
                         std::vector<std::pair<std::string, std::string>> labels) {
  RemoteWriteSeries s;
  s.labels = Labels{{"__name__", name}};
  for (const auto& [k, v] : labels) s.labels.Set(k, v);
  for (auto [ts, v] : points) s.samples.push_back({ts, v});
  return s;
}

std::string TempDb(const char* name) {
  std::string path = ::testing::TempDir() + name;
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  return path;
}

const std::vector<std::pair<std::string, std::string>> kTrain = {
    {"workload_name", "train"}, {"workload_team", "research"}, {"workload_pod", "train-0"}};

TEST(WorkMeterTest, CountsStepsAndTokenIncreasesOnceAcrossRestarts) {
  std::string path = TempDb("work_meter.db");
  std::vector<RemoteWriteSeries> write = {
      Series("gpu_workload_step_duration_seconds", {{60'000, 2.0}, {62'000, 2.5}, {121'000, 3}},
             kTrain),
      // Tokens: 1000 is the baseline, +500, then a reset to 200 (+200).
      Series("gpu_workload_tokens_total", {{60'000, 1000}, {90'000, 1500}, {130'000, 200}}, kTrain),
      Series("gpu_workload_step_duration_seconds", {{60'000, 1}}, {}),  // no workload: skipped
      Series("gpu_temperature_celsius", {{60'000, 50}}, kTrain)};
  {
    auto db = StateDb::Open(path, CostMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    WorkMeter w(db->get());
    ASSERT_TRUE(w.Record(write).ok());
    ASSERT_TRUE(w.Record(write).ok());  // a retry: all duplicates
    EXPECT_EQ(w.counters().samples_metered, 6u);
    EXPECT_EQ(w.counters().samples_duplicate, 6u);
    EXPECT_EQ(w.counters().samples_skipped, 2u);  // counted once per write
  }
  auto db = StateDb::Open(path, CostMigrations());
  ASSERT_TRUE(db.ok());
  WorkMeter w(db->get());
  ASSERT_TRUE(w.Record(write).ok());  // replayed after a restart
  write[0].samples = {{181'000, 4}};
  write[1].samples = {{181'000, 300}};
  ASSERT_TRUE(w.Record({write[0], write[1]}).ok());
  auto all = w.Totals(0, 1'000'000);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);  // by workload and by pod
  EXPECT_EQ(all->at("pod:train-0").steps, 4);
  const WorkTotals& t = all->at("train");
  EXPECT_EQ(t.team, "research");
  EXPECT_EQ(t.steps, 4);
  EXPECT_DOUBLE_EQ(t.step_seconds, 11.5);
  EXPECT_DOUBLE_EQ(t.tokens, 500 + 200 + 100);
  auto first_minute = w.Totals(60, 120);
  ASSERT_TRUE(first_minute.ok());
  EXPECT_EQ(first_minute->at("train").steps, 2);
  EXPECT_DOUBLE_EQ(first_minute->at("train").tokens, 500);
}

// Prometheus remote-writes a staleness marker (a NaN) when a recorded
// series disappears, e.g. a serving pod's token rule between restarts: it is
// no work, and the next real point continues from the last real value
// instead of counting the whole counter as a reset.
TEST(WorkMeterTest, StalenessMarkersAreNotWork) {
  auto db = StateDb::Open(TempDb("work_meter_nan.db"), CostMigrations());
  ASSERT_TRUE(db.ok());
  WorkMeter w(db->get());
  const double stale = std::nan("");
  ASSERT_TRUE(w.Record({Series("gpu_workload_tokens_total",
                               {{60'000, 1000}, {70'000, 1100}, {80'000, stale}, {90'000, 1250}},
                               {{"workload_pod", "chat-0"}}),
                        Series("gpu_workload_step_duration_seconds", {{60'000, stale}}, kTrain)})
                  .ok());
  EXPECT_EQ(w.counters().samples_skipped, 2u);
  auto t = w.Totals(0, 1'000'000);
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->at("chat-0").tokens, 250);
  EXPECT_EQ(t->count("train"), 0u);
}

TEST(WorkMeterTest, MeterKeepsHamiLimitsOfAHolder) {
  auto db = StateDb::Open(TempDb("meter_hami.db"), CostMigrations());
  ASSERT_TRUE(db.ok());
  Meter m(db->get());
  std::vector<std::pair<std::string, std::string>> labels = {
      {"node", "n1"},
      {"gpu", "0"},
      {"gpu_uuid", "GPU-a"},
      {"workload_pod", "infer-0"},
      {"workload_namespace", "serve"},
      {"workload_container", "c"},
      {"workload_hami_gpucores", "25"},
      {"workload_hami_gpumem_percentage", "30"}};
  ASSERT_TRUE(m.Record({Series("gpu_workload_info", {{60'000, 1}}, labels)}).ok());
  auto holders = m.Holders();
  ASSERT_TRUE(holders.ok());
  ASSERT_EQ((*holders)->size(), 1u);
  EXPECT_EQ((**holders)[0].hami_gpucores, "25");
  EXPECT_EQ((**holders)[0].hami_gpumem_percentage, "30");
}

}  // namespace
}  // namespace gpufleet::cost
