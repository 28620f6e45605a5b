#include "cost/meter.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace gpufleet::cost {
namespace {

RemoteWriteSeries Series(std::string name, std::vector<std::pair<int64_t, double>> points,
                         std::vector<std::pair<std::string, std::string>> extra = {}) {
  RemoteWriteSeries s;
  s.labels = Labels{{"__name__", name},    {"node", "n1"},   {"gpu", "0"},
                    {"gpu_uuid", "GPU-a"}, {"cloud", "aws"}, {"region", "us-east-1"},
                    {"model", "h100-sxm"}};
  for (const auto& [k, v] : extra) s.labels.Set(k, v);
  for (auto [ts, v] : points) s.samples.push_back({ts, v});
  return s;
}

// One write: minute [60 s, 120 s) with two scrapes 30 s apart.
std::vector<RemoteWriteSeries> Write(int64_t minute_ms, double energy0, double energy1) {
  std::vector<std::pair<std::string, std::string>> pod = {
      {"workload_pod", "train-0"}, {"workload_namespace", "research"}, {"workload_container", "c"}};
  return {Series("gpu_up", {{minute_ms, 1}, {minute_ms + 30000, 1}}),
          Series("gpu_utilization_ratio", {{minute_ms, 0.4}, {minute_ms + 30000, 0.8}}),
          Series("gpu_memory_bandwidth_utilization_ratio", {{minute_ms, 0.9}}),
          Series("gpu_energy_joules_total", {{minute_ms, energy0}, {minute_ms + 30000, energy1}}),
          Series("gpu_workload_info", {{minute_ms, 1}}, pod),
          Series("gpu_temperature_celsius", {{minute_ms, 50}})};
}

struct Db {
  explicit Db(const std::string& path) {
    auto db = StateDb::Open(path, CostMigrations());
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    state = std::move(*db);
    meter = std::make_unique<Meter>(state.get());
  }
  std::vector<DeviceMinute> All() {
    std::vector<DeviceMinute> out;
    EXPECT_TRUE(
        meter->Scan(0, 1'000'000'000, [&](const DeviceMinute& m) { out.push_back(m); }).ok());
    return out;
  }
  std::unique_ptr<StateDb> state;
  std::unique_ptr<Meter> meter;
};

std::string TempDb(const char* name) {
  std::string path = ::testing::TempDir() + name;
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  return path;
}

TEST(MeterTest, RollsUpOneMinute) {
  Db db(TempDb("meter_rollup.db"));
  ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
  std::vector<DeviceMinute> m = db.All();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].minute_s, 60);
  EXPECT_DOUBLE_EQ(m[0].util_mean, 0.6);
  EXPECT_DOUBLE_EQ(m[0].bw_mean, 0.9);
  EXPECT_DOUBLE_EQ(m[0].energy_j,
                   900);  // the first point of a counter only sets its cursor
  ASSERT_EQ(m[0].holders.size(), 1u);
  auto holders = db.meter->Holders();
  ASSERT_TRUE(holders.ok());
  ASSERT_EQ((*holders)->size(), 1u);
  EXPECT_EQ((**holders)[0].pod, "train-0");
  EXPECT_EQ((**holders)[0].namespace_, "research");
}

// Holders() keeps what it read and adds the holders written since; a vector
// handed out earlier does not change under its reader.
TEST(MeterTest, HoldersListGrowsWithNewHolders) {
  Db db(TempDb("meter_holders.db"));
  ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
  auto first = db.meter->Holders();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ((*first)->size(), 1u);
  ASSERT_TRUE(db.meter
                  ->Record({Series("gpu_workload_info", {{120'000, 1}},
                                   {{"workload_pod", "eval-1"},
                                    {"workload_namespace", "research"},
                                    {"workload_container", "c"}})})
                  .ok());
  auto second = db.meter->Holders();
  ASSERT_TRUE(second.ok());
  ASSERT_EQ((*second)->size(), 2u);
  EXPECT_EQ((**second)[1].pod, "eval-1");
  EXPECT_EQ((*first)->size(), 1u);
  auto third = db.meter->Holders();  // nothing new: the same list
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->get(), second->get());
}

// A retried write (the response was lost) and a replay after a restart
// change nothing; a counter reset counts the new value as the delta.
TEST(MeterTest, RetriesAndRestartsDoNotDoubleCount) {
  std::string path = TempDb("meter_idem.db");
  {
    Db db(path);
    ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
    ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
    EXPECT_EQ(db.meter->counters().samples_duplicate, 8u);
  }
  Db again(path);  // a new process: cursors come from the database
  ASSERT_TRUE(again.meter->Record(Write(60'000, 1000, 1900)).ok());
  ASSERT_TRUE(again.meter->Record(Write(120'000, 100, 400)).ok());  // reset: 100, then +300
  std::vector<DeviceMinute> m = again.All();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0].energy_j, 900);
  EXPECT_DOUBLE_EQ(m[0].util_mean, 0.6);
  EXPECT_DOUBLE_EQ(m[1].energy_j, 400);
  EXPECT_EQ(again.meter->counters().counter_resets, 1u);
}

// kill -9 while metering: a child meters minute after minute and reports
// each acknowledged write through a pipe; the parent kills it, then does
// what a remote-write sender does (sends again everything from the first
// unacknowledged write, and the last acknowledged one once more). The
// result equals an uninterrupted run: nothing acknowledged is lost and
// nothing is counted twice.
TEST(MeterTest, KillNineLosesNothingAcknowledged) {
  constexpr int kWrites = 400;
  auto write_k = [](int k) { return Write(60'000LL * (k + 1), 1000.0 * k, 1000.0 * k + 500); };
  std::string killed = TempDb("meter_kill.db");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    Db db(killed);
    for (int k = 0; k < kWrites; ++k) {
      if (!db.meter->Record(write_k(k)).ok()) _exit(2);
      if (write(fds[1], &k, sizeof k) != sizeof k) _exit(3);
    }
    pause();
    _exit(0);
  }
  close(fds[1]);
  int acked = -1, k = 0;
  while (acked < kWrites / 3 && read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  while (read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  close(fds[0]);
  ASSERT_GE(acked, kWrites / 3);

  Db after(killed);
  for (int i = std::max(0, acked); i < kWrites; ++i)
    ASSERT_TRUE(after.meter->Record(write_k(i)).ok());
  Db clean(TempDb("meter_clean.db"));
  for (int i = 0; i < kWrites; ++i) ASSERT_TRUE(clean.meter->Record(write_k(i)).ok());
  std::vector<DeviceMinute> a = after.All(), b = clean.All();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].minute_s, b[i].minute_s);
    EXPECT_DOUBLE_EQ(a[i].energy_j, b[i].energy_j) << "minute " << a[i].minute_s;
    EXPECT_DOUBLE_EQ(a[i].util_mean, b[i].util_mean);
    EXPECT_EQ(a[i].holders.size(), b[i].holders.size());
  }
}

}  // namespace
}  // namespace gpufleet::cost
