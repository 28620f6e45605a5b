// The rollup against the per-minute truth: random fleets metered through
// Meter::Record, random periods and policies; the ledger read from whole
// days and hours (plus minutes at the edges) must equal the ledger read
// minute by minute, to the micro-dollar, also after late writes into spans
// already rolled up and after a restart, with and without HAMi slices.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "cost/cost_query.h"
#include "cost/meter.h"

namespace gpufleet::cost {
namespace {

constexpr char kSite[] = R"(
[[node]]
match = "n6-*"
pricing = "negotiated"
usd_per_gpu_hour = 6.0
source = "test"
date = "2026-12-01"

[[node]]
match = "n2-*"
pricing = "negotiated"
usd_per_gpu_hour = 2.37
source = "test"
date = "2026-12-01"

[[node]]
match = "onprem-*"
pricing = "onprem"
capital_usd_per_gpu = 26298
depreciation_years = 1
usd_per_kwh = 0.36
)";

std::string TempDb(const std::string& name) {
  std::string path = ::testing::TempDir() + name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

Labels DeviceLabels(const std::string& name, const std::string& node, int gpu) {
  return Labels{{"__name__", name},
                {"node", node},
                {"gpu", std::to_string(gpu)},
                {"gpu_uuid", "GPU-" + node + "-" + std::to_string(gpu)},
                {"cloud", "aws"},
                {"region", "us-east-1"},
                {"model", "h100-sxm"}};
}

RemoteWriteSeries Sample(Labels labels, int64_t ts_ms, double v) {
  RemoteWriteSeries s;
  s.labels = std::move(labels);
  s.samples = {{ts_ms, v}};
  return s;
}

// `hami`: pods 1, 4, 7... hold a HAMi core slice, pods 2, 5, 8... a memory
// slice (cost/shares.h), the rest none.
RemoteWriteSeries HolderSample(const std::string& metric, const std::string& node, int gpu, int pod,
                               int64_t ts_ms, double v, bool hami = false) {
  Labels l = DeviceLabels(metric, node, gpu);
  l.Set("workload_pod", "p" + std::to_string(pod));
  l.Set("workload_namespace", "ns");
  l.Set("workload_container", "c");
  l.Set("workload_team", pod % 2 ? "red" : "blue");
  if (hami && pod % 3 == 1) l.Set("workload_hami_gpucores", std::to_string(15 + 10 * pod));
  if (hami && pod % 3 == 2) l.Set("workload_hami_gpumem_percentage", "35");
  return Sample(std::move(l), ts_ms, v);
}

using LineKey = std::tuple<int64_t, int64_t, int>;

// Both ledgers, line by line: money exactly, GPU-hours to rounding.
void ExpectSameLedger(const Ledger& minutes, const Ledger& hours, const std::string& where) {
  std::map<LineKey, ChargeLine> a, b;
  for (const ChargeLine& l : minutes.lines)
    a[{l.device, l.holder, static_cast<int>(l.category)}] = l;
  for (const ChargeLine& l : hours.lines) b[{l.device, l.holder, static_cast<int>(l.category)}] = l;
  ASSERT_EQ(a.size(), b.size()) << where;
  for (const auto& [k, la] : a) {
    auto it = b.find(k);
    ASSERT_NE(it, b.end()) << where;
    const ChargeLine& lb = it->second;
    EXPECT_EQ(la.micro_usd, lb.micro_usd) << where << " device " << std::get<0>(k);
    EXPECT_EQ(la.allocation_micro, lb.allocation_micro) << where;
    EXPECT_NEAR(la.gpu_hours, lb.gpu_hours, 1e-9) << where;
    EXPECT_NEAR(la.lost_gpu_hours, lb.lost_gpu_hours, 1e-9) << where;
  }
  for (const auto& [id, dc] : minutes.device_costs) {
    EXPECT_EQ(dc.cost_micro, hours.device_costs.at(id).cost_micro) << where;
    EXPECT_EQ(dc.minutes, hours.device_costs.at(id).minutes) << where;
  }
  EXPECT_EQ(minutes.first_minute_s, hours.first_minute_s) << where;
}

// Random fleets metered minute by minute through Record (see the file's
// comment); `hours` long each, starting `start_offset_s` after an hour or day
// boundary, pods changing with probability `change` a minute. Counts the
// held blocks of more than one hour / one day the rollup served.
struct RandomFleets {
  int fleets = 10;
  int min_hours = 3, max_hours = 6;
  int64_t t0_base_s = 1'796'000'400;
  double change = 0.01;
  bool hami = false;
  uint64_t seed = 20261205;
};

void CheckRandomFleets(const RandomFleets& cfg, int64_t& blocks_seen, int64_t& day_blocks_seen) {
  StatusOr<PriceBook> book = PriceBook::Parse(kSite, "site.toml");
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  std::mt19937_64 rng(cfg.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int fleet = 0; fleet < cfg.fleets; ++fleet) {
    const std::string path =
        TempDb("meter_hours_" + std::to_string(cfg.seed) + "_" + std::to_string(fleet) + ".db");
    auto opened = StateDb::Open(path, CostMigrations());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    std::unique_ptr<StateDb> db = std::move(*opened);
    auto meter = std::make_unique<Meter>(db.get());

    const char* nodes[] = {"n6-a", "n2-b", "onprem-c"};
    const int n_dev = 1 + static_cast<int>(rng() % 4);
    const int n_pods = 1 + static_cast<int>(rng() % 4);
    const bool weighted = rng() % 3 == 0;  // holders report their own utilization
    const int hours =
        cfg.min_hours + static_cast<int>(rng() % (cfg.max_hours - cfg.min_hours + 1));
    const int64_t t0_s = cfg.t0_base_s + 60 * static_cast<int64_t>(rng() % 90);
    std::vector<std::vector<int>> held(n_dev);
    std::vector<double> energy(n_dev, 0);
    auto write_minute = [&](int k) {
      std::vector<RemoteWriteSeries> w;
      const int64_t ts = (t0_s + 60LL * k) * 1000 + 7000;
      for (int d = 0; d < n_dev; ++d) {
        const std::string node = nodes[d % 3] + std::string(d >= 3 ? "x" : "");
        if (k == 0 || unit(rng) < cfg.change) {
          held[d].clear();
          for (int p = 0; p < n_pods; ++p) {
            if (unit(rng) < 0.5) held[d].push_back(p);
          }
        }
        if (unit(rng) < 0.08) continue;  // a minute without a scrape
        w.push_back(Sample(DeviceLabels("gpu_up", node, d), ts, 1));
        if (unit(rng) < 0.8)
          w.push_back(Sample(DeviceLabels("gpu_utilization_ratio", node, d), ts, unit(rng)));
        if (unit(rng) < 0.8) {
          w.push_back(Sample(DeviceLabels("gpu_memory_bandwidth_utilization_ratio", node, d), ts,
                             unit(rng)));
        }
        energy[d] += unit(rng) < 0.3 ? 0 : unit(rng) * 40000;
        w.push_back(Sample(DeviceLabels("gpu_energy_joules_total", node, d), ts, energy[d]));
        for (int p : held[d]) {
          w.push_back(HolderSample("gpu_workload_info", node, d, p, ts, 1, cfg.hami));
          if (weighted) {
            w.push_back(HolderSample("gpu_process_utilization_ratio", node, d, p, ts, unit(rng),
                                     cfg.hami));
          }
        }
      }
      ASSERT_TRUE(meter->Record(w).ok());
    };

    std::vector<ContentionWindow> windows;
    if (rng() % 2 == 0) {
      ContentionWindow cw;
      cw.devices = {std::string(nodes[0]) + "/0"};
      cw.workloads = {"p0"};
      cw.start_s = t0_s + 60 * static_cast<int64_t>(rng() % (60 * hours));
      cw.end_s = cw.start_s + 60 * static_cast<int64_t>(1 + rng() % 90);
      cw.slowdown = 0.3;
      windows.push_back(cw);
    }
    const int64_t closed_before = t0_s + 3600 * (hours + 24);
    auto compare = [&](const std::string& stage) {
      for (int period = 0; period < 6; ++period) {
        int64_t from = t0_s + 60 * (static_cast<int64_t>(rng() % (60 * hours + 60)) - 30);
        int64_t to = from + 60 * static_cast<int64_t>(1 + rng() % (60 * hours + 30));
        if (period == 0) {
          from = t0_s - 3600;
          to = t0_s + 3600 * (hours + 1);
        }
        for (Basis basis : {Basis::kAllocation, Basis::kUsage}) {
          for (ContentionRule cr : {ContentionRule::kOff, ContentionRule::kTransfer}) {
            for (IdleRule idle : {IdleRule::kNone, IdleRule::kProportional}) {
              LedgerPolicy policy{basis, idle, cr, 0.2};
              StatusOr<Ledger> a =
                  LedgerFromMeter(*meter, windows, *book, policy, from, to, Rollup::kMinutes, 0);
              StatusOr<Ledger> b = LedgerFromMeter(*meter, windows, *book, policy, from, to,
                                                   Rollup::kHours, closed_before);
              ASSERT_TRUE(a.ok()) << a.status().ToString();
              ASSERT_TRUE(b.ok()) << b.status().ToString();
              ExpectSameLedger(*a, *b,
                               stage + " fleet " + std::to_string(fleet) + " [" +
                                   std::to_string(from - t0_s) + ", " + std::to_string(to - t0_s) +
                                   ")");
            }
          }
        }
      }
    };

    const int total = 60 * hours;
    for (int k = 0; k < total / 2; ++k) write_minute(k);
    compare("first half");
    for (int k = total / 2; k < total; ++k) write_minute(k);
    // A late write into hours (and days) already rolled up: a pod first
    // reported now for minutes of the first hour.
    std::vector<RemoteWriteSeries> late;
    for (int k = 5; k < 40; ++k) {
      late.push_back(HolderSample("gpu_workload_info", nodes[0], 0, 9, (t0_s + 60LL * k) * 1000, 1,
                                  cfg.hami));
    }
    for (RemoteWriteSeries& s : late) ASSERT_TRUE(meter->Record({s}).ok());
    compare("late write");

    // Restart: a new meter over the same database.
    meter.reset();
    db.reset();
    opened = StateDb::Open(path, CostMigrations());
    ASSERT_TRUE(opened.ok());
    db = std::move(*opened);
    meter = std::make_unique<Meter>(db.get());
    compare("restart");

    // The rollup did serve held blocks (the comparison is not minutes vs minutes).
    ASSERT_TRUE(meter
                    ->ScanHours(t0_s - 3600, closed_before, closed_before,
                                [](int64_t, int64_t, int64_t, double) { return true; },
                                [&](const DeviceMinute& m) {
                                  if (m.holders.empty()) return;
                                  blocks_seen += m.repeat > 1;
                                  day_blocks_seen += m.repeat > 60;
                                })
                    .ok());
  }
}

TEST(MeterHoursTest, HoursEqualMinutesOnRandomFleetsAndPeriods) {
  int64_t blocks = 0, day_blocks = 0;
  CheckRandomFleets(RandomFleets(), blocks, day_blocks);
  EXPECT_GT(blocks, 0);
}

// Fleets of one to three days, so that whole UTC days come from the daily
// rollup, with HAMi slices (shares charged per block): the same equality.
TEST(MeterHoursTest, DaysAndHamiSlicesEqualMinutes) {
  RandomFleets cfg;
  cfg.fleets = 3;
  cfg.min_hours = 26;
  cfg.max_hours = 60;
  cfg.t0_base_s = 1'796'083'200 - 5 * 3600;  // 2026-11-30T19:00Z: a day starts 5 h in
  cfg.change = 0.002;
  cfg.hami = true;
  cfg.seed = 20261206;
  int64_t blocks = 0, day_blocks = 0;
  CheckRandomFleets(cfg, blocks, day_blocks);
  EXPECT_GT(blocks, 0);
  EXPECT_GT(day_blocks, 0);
}

// kill -9 while metering and rolling up: a child meters minute after minute
// (two pods swapping every 50 minutes), builds the hourly rollup every 37
// writes, and reports each acknowledged write; the parent kills it, sends
// again from the last acknowledged write (as a remote-write sender does),
// and the hourly ledger equals both the minute ledger and a clean run's.
TEST(MeterHoursTest, KillNineDuringRollupLosesAndDoublesNothing) {
  StatusOr<PriceBook> book = PriceBook::Parse(kSite, "site.toml");
  ASSERT_TRUE(book.ok());
  constexpr int kWrites = 600;
  constexpr int64_t kT0 = 1'796'004'000;
  auto write_k = [](int k) {
    const int64_t ts = (kT0 + 60LL * k) * 1000;
    return std::vector<RemoteWriteSeries>{
        Sample(DeviceLabels("gpu_up", "n6-a", 0), ts, 1),
        Sample(DeviceLabels("gpu_energy_joules_total", "n6-a", 0), ts, 1000.0 * k),
        HolderSample("gpu_workload_info", "n6-a", 0, (k / 50) % 2, ts, 1)};
  };
  auto open = [](const std::string& path) {
    auto db = StateDb::Open(path, CostMigrations());
    EXPECT_TRUE(db.ok());
    return std::move(*db);
  };
  const BlockOk all = [](int64_t, int64_t, int64_t, double) { return true; };
  const int64_t kDay0 = kT0 / 86400 * 86400;
  const std::string killed = TempDb("meter_hours_kill.db");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    std::unique_ptr<StateDb> db = open(killed);
    Meter meter(db.get());
    for (int k = 0; k < kWrites; ++k) {
      if (!meter.Record(write_k(k)).ok()) _exit(2);
      // Over the whole UTC days around the writes: days are rolled up too.
      if (k % 37 == 0 && !meter
                              .ScanHours(kDay0, kDay0 + 2 * 86400, kDay0 + 2 * 86400, all,
                                         [](const DeviceMinute&) {})
                              .ok()) {
        _exit(4);
      }
      if (write(fds[1], &k, sizeof k) != sizeof k) _exit(3);
    }
    pause();
    _exit(0);
  }
  close(fds[1]);
  int acked = -1, k = 0;
  while (acked < kWrites / 2 && read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  while (read(fds[0], &k, sizeof k) == sizeof k) acked = k;
  close(fds[0]);
  ASSERT_GE(acked, kWrites / 2);

  std::unique_ptr<StateDb> after_db = open(killed);
  Meter after(after_db.get());
  for (int i = acked; i < kWrites; ++i) ASSERT_TRUE(after.Record(write_k(i)).ok());
  std::unique_ptr<StateDb> clean_db = open(TempDb("meter_hours_clean.db"));
  Meter clean(clean_db.get());
  for (int i = 0; i < kWrites; ++i) ASSERT_TRUE(clean.Record(write_k(i)).ok());
  LedgerPolicy policy;
  for (auto [from, to] : {std::pair<int64_t, int64_t>{kT0, kT0 + 60LL * kWrites + 60},
                          {kT0 + 1800, kT0 + 60LL * kWrites + 60},
                          {kDay0, kDay0 + 2 * 86400}}) {
    StatusOr<Ledger> hours =
        LedgerFromMeter(after, {}, *book, policy, from, to, Rollup::kHours, kDay0 + 2 * 86400);
    StatusOr<Ledger> minutes =
        LedgerFromMeter(after, {}, *book, policy, from, to, Rollup::kMinutes, 0);
    StatusOr<Ledger> clean_minutes =
        LedgerFromMeter(clean, {}, *book, policy, from, to, Rollup::kMinutes, 0);
    ASSERT_TRUE(hours.ok() && minutes.ok() && clean_minutes.ok());
    ExpectSameLedger(*minutes, *hours, "after kill -9");
    ExpectSameLedger(*clean_minutes, *hours, "against a clean run");
  }
}

// gpufleet cost report --db builds rows in the server's database from another
// process: the server's next write into such an hour must still drop them.
TEST(MeterHoursTest, RowsBuiltByAnotherConnectionAreDroppedByLateWrites) {
  StatusOr<PriceBook> book = PriceBook::Parse(kSite, "site.toml");
  ASSERT_TRUE(book.ok());
  constexpr int64_t kT0 = 1'796'004'000;
  const std::string path = TempDb("meter_hours_two.db");
  auto server_db = StateDb::Open(path, CostMigrations());
  ASSERT_TRUE(server_db.ok());
  Meter server((*server_db).get());
  auto write = [&](int k, int pod) {
    const int64_t ts = (kT0 + 60LL * k) * 1000;
    ASSERT_TRUE(server
                    .Record({Sample(DeviceLabels("gpu_up", "n6-a", 0), ts, 1),
                             HolderSample("gpu_workload_info", "n6-a", 0, pod, ts, 1)})
                    .ok());
  };
  for (int k = 0; k < 180; ++k) write(k, 0);  // the server has written into every hour
  auto reader_db = StateDb::Open(path, CostMigrations());
  ASSERT_TRUE(reader_db.ok());
  Meter reader((*reader_db).get());
  LedgerPolicy policy;
  const int64_t to = kT0 + 3 * 3600;
  StatusOr<Ledger> before =
      LedgerFromMeter(reader, {}, *book, policy, kT0, to, Rollup::kHours, kT0 + 86400);
  ASSERT_TRUE(before.ok());
  for (int k = 10; k < 20; ++k) write(k, 1);  // late: a second pod in the first hour
  StatusOr<Ledger> hours =
      LedgerFromMeter(reader, {}, *book, policy, kT0, to, Rollup::kHours, kT0 + 86400);
  StatusOr<Ledger> minutes =
      LedgerFromMeter(reader, {}, *book, policy, kT0, to, Rollup::kMinutes, 0);
  ASSERT_TRUE(hours.ok() && minutes.ok());
  ExpectSameLedger(*minutes, *hours, "rows built by another connection");
  EXPECT_NE(before->lines.size(), hours->lines.size());  // pod 1 appears
}

}  // namespace
}  // namespace gpufleet::cost
