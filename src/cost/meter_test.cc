#include "cost/meter.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>

#include "cost/meter_journal.h"

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

// kill -9 while metering: a child meters write after write and reports
// each acknowledged write through a pipe; the parent kills it, then does
// what a remote-write sender does (sends again everything from the first
// unacknowledged write, and the last acknowledged one once more). The
// result equals an uninterrupted run: nothing acknowledged is lost and
// nothing is counted twice.
void KillNineAndCompare(const std::function<std::vector<RemoteWriteSeries>(int)>& write_k,
                        int writes, const char* name) {
  std::string killed = TempDb((std::string(name) + "_kill.db").c_str());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    Db db(killed);
    for (int k = 0; k < writes; ++k) {
      if (!db.meter->Record(write_k(k)).ok()) _exit(2);
      if (write(fds[1], &k, sizeof k) != sizeof k) _exit(3);
    }
    pause();
    _exit(0);
  }
  close(fds[1]);
  int acked = -1, k = 0;
  while (acked < writes / 3 && read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  while (read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  close(fds[0]);
  ASSERT_GE(acked, writes / 3);

  Db after(killed);
  for (int i = std::max(0, acked); i < writes; ++i)
    ASSERT_TRUE(after.meter->Record(write_k(i)).ok());
  Db clean(TempDb((std::string(name) + "_clean.db").c_str()));
  for (int i = 0; i < writes; ++i) ASSERT_TRUE(clean.meter->Record(write_k(i)).ok());
  std::vector<DeviceMinute> a = after.All(), b = clean.All();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].minute_s, b[i].minute_s);
    EXPECT_DOUBLE_EQ(a[i].energy_j, b[i].energy_j) << "minute " << a[i].minute_s;
    EXPECT_DOUBLE_EQ(a[i].util_mean, b[i].util_mean);
    EXPECT_EQ(a[i].holders.size(), b[i].holders.size());
  }
}

// One write per minute: the journal folds every other write.
TEST(MeterTest, KillNineLosesNothingAcknowledged) {
  KillNineAndCompare([](int k) { return Write(60'000LL * (k + 1), 1000.0 * k, 1000.0 * k + 500); },
                     400, "meter_minutes");
}

// One scrape per write, 15 s apart: several writes of each minute wait in
// the journal, and the kill finds some of them there.
TEST(MeterTest, KillNineWithWritesInTheJournalLosesNothing) {
  auto write_k = [](int k) {
    const int64_t ts = 60'000 + 15'000LL * k;
    std::vector<std::pair<std::string, std::string>> pod = {{"workload_pod", "train-0"},
                                                            {"workload_namespace", "research"},
                                                            {"workload_container", "c"}};
    return std::vector<RemoteWriteSeries>{Series("gpu_up", {{ts, 1}}),
                                          Series("gpu_utilization_ratio", {{ts, 0.1 * (k % 10)}}),
                                          Series("gpu_energy_joules_total", {{ts, 250.0 * k}}),
                                          Series("gpu_workload_info", {{ts, 1}}, pod)};
  };
  KillNineAndCompare(write_k, 600, "meter_journal");
}

int64_t JournalRows(StateDb* db) {
  auto q = db->Prepare("SELECT COUNT(*) FROM cost_journal");
  EXPECT_TRUE(q.ok());
  auto row = q->Step();
  EXPECT_TRUE(row.ok() && *row);
  return q->ColumnInt64(0);
}

// Writes wait in the journal while their minutes are open; a write two
// minutes on folds them into the minute tables, and so does any read.
TEST(MeterTest, JournalFoldsClosedMinutesAndBeforeReads) {
  Db db(TempDb("meter_fold.db"));
  for (int k = 0; k < 4; ++k) {  // minute 60 s, four scrapes
    const int64_t ts = 60'000 + 15'000LL * k;
    ASSERT_TRUE(db.meter->Record({Series("gpu_up", {{ts, 1}})}).ok());
  }
  EXPECT_EQ(JournalRows(db.state.get()), 4);
  ASSERT_TRUE(db.meter->Record({Series("gpu_up", {{120'000, 1}})}).ok());
  EXPECT_EQ(JournalRows(db.state.get()), 5);  // minute 60 s may still get late samples
  ASSERT_TRUE(db.meter->Record({Series("gpu_up", {{180'000, 1}})}).ok());
  EXPECT_EQ(JournalRows(db.state.get()), 0);
  ASSERT_TRUE(db.meter->Record({Series("gpu_up", {{195'000, 1}})}).ok());
  EXPECT_EQ(JournalRows(db.state.get()), 1);
  std::vector<DeviceMinute> m = db.All();
  EXPECT_EQ(JournalRows(db.state.get()), 0);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].minute_s, 60);
  EXPECT_EQ(m[2].minute_s, 180);
  // A write that only sets a counter's cursor names no minute (under
  // UBSan this once overflowed the journal's minute span).
  ASSERT_TRUE(db.meter->Record({Series("gpu_energy_joules_total", {{200'000, 5}})}).ok());
  EXPECT_EQ(JournalRows(db.state.get()), 1);
  ASSERT_TRUE(db.meter->Record({Series("gpu_energy_joules_total", {{215'000, 9}})}).ok());
  EXPECT_EQ(db.All().back().energy_j, 4);
}

// A journal row that does not decode is an error naming the file, the row
// and the byte, not a silent loss.
TEST(MeterTest, CorruptJournalRowIsNamed) {
  std::string path = TempDb("meter_corrupt.db");
  {
    Db db(path);
    ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
    ASSERT_TRUE(db.state->Exec("INSERT INTO cost_journal (id, body) VALUES (77, x'01ffff')").ok());
  }
  Db again(path);
  Status st = again.meter->Record(Write(120'000, 2000, 2900));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("cost_journal row 77"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("byte"), std::string::npos) << st.message();
}

// Counter cursors written before migration "cost" 4 carry device 0; a
// series' newest row wins on load, so a stale carried-over row next to a
// newer one does not count energy twice.
TEST(MeterTest, NewestCounterCursorWinsAfterMigration) {
  std::string old_path = TempDb("meter_migrate.db");
  {
    std::vector<Migration> before;
    for (const Migration& m : CostMigrations()) {
      if (m.component != "cost" || m.version <= 3) before.push_back(m);
    }
    auto db = StateDb::Open(old_path, before);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->Exec("INSERT INTO cost_cursors VALUES (42, 5000, 7.5)").ok());
  }
  {
    Db migrated(old_path);
    auto q = migrated.state->Prepare(
        "SELECT device, series, last_ms, last_value FROM cost_counter_cursors");
    ASSERT_TRUE(q.ok());
    auto row = q->Step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(q->ColumnInt64(0), 0);
    EXPECT_EQ(q->ColumnInt64(1), 42);
    EXPECT_EQ(q->ColumnInt64(2), 5000);
    EXPECT_DOUBLE_EQ(q->ColumnDouble(3), 7.5);
  }

  std::string path = TempDb("meter_newest.db");
  {
    Db db(path);
    ASSERT_TRUE(db.meter->Record(Write(60'000, 1000, 1900)).ok());
    ASSERT_EQ(db.meter->Scan(0, 1, [](const DeviceMinute&) {}).ok(), true);  // folds
    // A stale row for the same series, as a migration would leave it.
    ASSERT_TRUE(db.state
                    ->Exec("INSERT INTO cost_counter_cursors SELECT 0, series, 1000, 100 "
                           "FROM cost_counter_cursors")
                    .ok());
  }
  Db again(path);
  ASSERT_TRUE(again.meter->Record(Write(120'000, 2000, 2900)).ok());
  std::vector<DeviceMinute> m = again.All();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[1].energy_j, 1000);  // 1900 -> 2000 -> 2900, not from the stale 100
}

// The ingester computes each series' key while storing it; metering with
// those keys equals metering without them, and keys that do not match the
// series are refused.
TEST(MeterTest, KeysFromTheCallerMeterTheSame) {
  Db plain(TempDb("meter_keys_plain.db")), keyed(TempDb("meter_keys.db"));
  std::vector<RemoteWriteSeries> w = Write(60'000, 1000, 1900);
  std::vector<MeterKey> keys;
  for (const RemoteWriteSeries& s : w) keys.push_back(MeterKeyOf(s.labels));
  EXPECT_EQ(keys.back().kind, 0);  // gpu_temperature_celsius is not metered
  EXPECT_NE(keys.front().kind, 0);
  ASSERT_TRUE(plain.meter->Record(w).ok());
  ASSERT_TRUE(keyed.meter->Record(w, keys).ok());
  std::vector<DeviceMinute> a = plain.All(), b = keyed.All();
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(a[0].util_mean, b[0].util_mean);
  EXPECT_DOUBLE_EQ(a[0].energy_j, b[0].energy_j);
  EXPECT_EQ(a[0].holders.size(), b[0].holders.size());
  keys.pop_back();
  Status st = keyed.meter->Record(w, keys);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
}

// A receiver that holds a series passes it as its key and samples once the
// meter knows its cursor: the second write metered that way gives the same
// minutes as with labels; the key from label views equals the one from
// Labels; an unknown key fails the write (Unavailable, metering nothing)
// and the meter forgets what it knew, so the sender's retry takes labels.
TEST(MeterTest, KeyedSamplesMeterThroughKnownCursors) {
  Db plain(TempDb("meter_keyed_plain.db")), keyed(TempDb("meter_keyed.db"));
  std::vector<RemoteWriteSeries> first = Write(60'000, 1000, 1900);
  std::vector<RemoteWriteSeries> second = Write(120'000, 2000, 2600);
  for (const RemoteWriteSeries& s : first) {
    std::vector<LabelView> views;
    for (const auto& [n, v] : s.labels.pairs()) views.emplace_back(n, v);
    EXPECT_EQ(MeterKeyOf(views).series, MeterKeyOf(s.labels).series);
    EXPECT_EQ(MeterKeyOf(views).kind, MeterKeyOf(s.labels).kind);
  }
  ASSERT_TRUE(plain.meter->Record(first).ok());
  ASSERT_TRUE(plain.meter->Record(second).ok());

  EXPECT_FALSE(keyed.meter->Knows(MeterKeyOf(first[0].labels).series));
  ASSERT_TRUE(keyed.meter->Record(first).ok());
  std::vector<KeyedSamples> as_keys;
  for (const RemoteWriteSeries& s : second) {
    const MeterKey key = MeterKeyOf(s.labels);
    if (key.kind == 0) continue;
    EXPECT_TRUE(keyed.meter->Knows(key.series));
    as_keys.push_back({key, s.samples});
  }
  ASSERT_EQ(as_keys.size(), 5u);
  ASSERT_TRUE(keyed.meter->Record({}, {}, as_keys).ok());
  std::vector<DeviceMinute> a = plain.All(), b = keyed.All();
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].minute_s, b[i].minute_s);
    EXPECT_DOUBLE_EQ(a[i].util_mean, b[i].util_mean);
    EXPECT_DOUBLE_EQ(a[i].bw_mean, b[i].bw_mean);
    EXPECT_DOUBLE_EQ(a[i].energy_j, b[i].energy_j);  // the counter's cursor carried over
    EXPECT_EQ(a[i].holders.size(), b[i].holders.size());
  }
  const uint64_t metered = keyed.meter->counters().samples_metered;

  MeterKey unknown = as_keys[0].key;
  unknown.series ^= 1;
  std::vector<KeyedSamples> stray = {{unknown, {{180'000, 1}}}};
  Status st = keyed.meter->Record({}, {}, stray);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ(keyed.meter->counters().samples_metered, metered);
  EXPECT_FALSE(keyed.meter->Knows(as_keys[0].key.series));
}

// Two writes of one device-minute fold into one delta: sums add, last
// timestamps take the maximum, a counter cursor takes the later write's.
TEST(MeterJournalTest, RoundTripsAndMerges) {
  MeterDeltas a, b;
  a.minutes[{3, 60}] = {2, 0.5, 2, 1.2, 2, 100, 75'000, 75'000, 60'000};
  a.holders[{3, 60, 7}] = {1, 0.3, 1, 75'000, 75'000};
  a.cursors[{3, 99}] = {75'000, 1100};
  b.minutes[{3, 60}] = {1, 0.25, 1, 0.5, 1, 40, 90'000, 90'000, 90'000};
  b.minutes[{4, 60}] = {1, 0.1, 1, 0.1, 1, 5, 90'000, 90'000, 90'000};
  b.cursors[{3, 99}] = {90'000, 1140};
  MeterDeltas folded;
  ASSERT_TRUE(DecodeDeltasInto(EncodeDeltas(a), "a", folded).ok());
  ASSERT_TRUE(DecodeDeltasInto(EncodeDeltas(b), "b", folded).ok());
  ASSERT_EQ(folded.minutes.size(), 2u);
  const MinuteDelta& m = folded.minutes.at({3, 60});
  EXPECT_EQ(m.present, 3);
  EXPECT_DOUBLE_EQ(m.util_sum, 0.75);
  EXPECT_EQ(m.util_n, 3);
  EXPECT_DOUBLE_EQ(m.energy_j, 140);
  EXPECT_EQ(m.last_up_ms, 90'000);
  EXPECT_EQ(folded.holders.at({3, 60, 7}).present, 1);
  EXPECT_EQ(folded.cursors.at({3, 99}).last_ms, 90'000);
  EXPECT_DOUBLE_EQ(folded.cursors.at({3, 99}).last_value, 1140);
  EXPECT_EQ(folded.MinuteRange(), std::make_pair(int64_t{60}, int64_t{60}));
  MeterDeltas again;
  ASSERT_TRUE(DecodeDeltasInto(EncodeDeltas(folded), "folded", again).ok());
  EXPECT_EQ(EncodeDeltas(again), EncodeDeltas(folded));
}

TEST(MeterJournalTest, TruncatedBodyNamesTheByte) {
  MeterDeltas a;
  a.minutes[{3, 60}] = {2, 0.5, 2, 1.2, 2, 100, 75'000, 75'000, 60'000};
  const std::string body = EncodeDeltas(a);
  MeterDeltas out;
  Status st = DecodeDeltasInto(body.substr(0, 50), "row 9", out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "row 9: truncated minute deltas at byte 5 of 50");
  st = DecodeDeltasInto(std::string("\x02", 1), "row 10", out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unknown journal version 2"), std::string::npos);
  st = DecodeDeltasInto(body + "x", "row 11", out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("trailing bytes"), std::string::npos);

  // Counts are never negative, and two deltas of one minute cannot add up
  // past int64 (found by cost_journal_fuzz: a corrupt body overflowed).
  MeterDeltas negative;
  negative.minutes[{3, 60}] = {-1, 0, 0, 0, 0, 0, -1, -1, -1};
  st = DecodeDeltasInto(EncodeDeltas(negative), "row 12", out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("count out of range"), std::string::npos) << st.message();
  MeterDeltas huge;
  huge.holders[{3, 60, 7}] = {INT64_MAX, 0, 0, -1, -1};
  MeterDeltas twice;
  ASSERT_TRUE(DecodeDeltasInto(EncodeDeltas(huge), "row 13", twice).ok());
  st = DecodeDeltasInto(EncodeDeltas(huge), "row 14", twice);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("row 14: holder delta count out of range"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace gpufleet::cost
