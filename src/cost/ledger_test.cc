#include "cost/ledger.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace gpufleet::cost {
namespace {

// Two negotiated rates and an on-premises rule, so the tests do not depend
// on catalog prices.
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
usd_per_gpu_hour = 2.0
source = "test"
date = "2026-12-01"

[[node]]
match = "onprem-*"
pricing = "onprem"
capital_usd_per_gpu = 26298
depreciation_years = 1
usd_per_kwh = 0.36
)";

PriceBook Book() {
  StatusOr<PriceBook> b = PriceBook::Parse(kSite, "site.toml");
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

MeteredDevice Device(int64_t id, std::string node, std::string model = "h100-sxm") {
  MeteredDevice d;
  d.id = id;
  d.node = std::move(node);
  d.key = d.node + "/0";
  d.gpu_uuid = "GPU-" + std::to_string(id);
  d.model = std::move(model);
  return d;
}

Holder MakeHolder(int64_t id, std::string pod, std::string ns = "ns") {
  Holder h;
  h.id = id;
  h.pod = std::move(pod);
  h.namespace_ = std::move(ns);
  h.key = h.namespace_ + "/" + h.pod + "/c";
  return h;
}

MinuteScan ScanOf(const std::vector<DeviceMinute>& minutes) {
  return [minutes](const std::function<void(const DeviceMinute&)>& fn) {
    for (const DeviceMinute& m : minutes) fn(m);
    return OkStatus();
  };
}

using Sums = std::map<std::pair<int64_t, Category>, int64_t>;

int64_t At(Sums& s, int64_t holder, Category c) { return s[std::make_pair(holder, c)]; }

Sums Sum(const Ledger& l) {
  std::map<std::pair<int64_t, Category>, int64_t> out;
  for (const ChargeLine& c : l.lines) out[{c.holder, c.category}] += c.micro_usd;
  return out;
}

// Worked by hand: one GPU at $6/GPU-h = $0.10 a minute = 100,000 micro-$.
// Minutes 0-29: pod a alone, utilization 0.5. Minutes 30-59: nobody.
//   allocation: a pays 30 x $0.10 = $3.00; unallocated idle $3.00.
//   usage:      a pays $1.50; a's allocated-but-idle $1.50; unallocated $3.00.
//   usage-mean with bandwidth 0.9: u = (0.5 + 0.9) / 2 = 0.7 -> a pays $2.10.
TEST(LedgerTest, WorkedExampleBases) {
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 60; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = 1'800'000'000 + 60 * i;
    if (i < 30) {
      m.util_mean = 0.5;
      m.bw_mean = 0.9;
      m.holders.push_back({7, -1});
    }
    minutes.push_back(m);
  }
  std::vector<MeteredDevice> devices = {Device(1, "n6-a")};
  std::vector<Holder> holders = {MakeHolder(7, "a")};
  PriceBook book = Book();
  for (auto [basis, base, idle_alloc] : {std::tuple{Basis::kAllocation, 3'000'000, 0},
                                         std::tuple{Basis::kUsage, 1'500'000, 1'500'000},
                                         std::tuple{Basis::kUsageMean, 2'100'000, 900'000}}) {
    LedgerPolicy p;
    p.basis = basis;
    StatusOr<Ledger> l =
        ComputeLedger(devices, holders, ScanOf(minutes), book, {}, {}, p, 0, 2'000'000'000);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    auto s = Sum(*l);
    EXPECT_EQ(At(s, 7, Category::kBase), base) << BasisName(basis);
    EXPECT_EQ(At(s, 7, Category::kIdleAllocated), idle_alloc) << BasisName(basis);
    EXPECT_EQ(At(s, kNoHolder, Category::kIdleUnallocated), 3'000'000);
    EXPECT_EQ(l->device_costs[1].cost_micro, 6'000'000);
  }
}

// Worked by hand: $6/GPU-h, 10 minutes, victim v and neighbour n time-share
// the GPU with utilizations 0.6 and 0.2, so v holds 3/4 and n 1/4 of each
// $0.10 minute (allocation: v $0.75, n $0.25). An incident on the device
// names v with slowdown 0.4: transfer moves 0.4 x $0.75 = $0.30 from v to n.
// Surcharge at $0.20 per 10% per GPU-hour: v's GPU time is 10 min x 3/4 =
// 0.125 h, so 4 x $0.20 x 0.125 = $0.10.
TEST(LedgerTest, ContentionMovesLossToTheNeighbour) {
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 10; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = 6000 + 60 * i;
    m.holders = {{1, 0.6}, {2, 0.2}};
    minutes.push_back(m);
  }
  std::vector<Holder> holders = {MakeHolder(1, "v"), MakeHolder(2, "n")};
  ContentionWindow w;
  w.devices = {"n6-a/0"};
  w.workloads = {"v"};
  w.start_s = 6000;
  w.end_s = 6600;
  w.slowdown = 0.4;
  for (auto [rule, moved] : {std::pair{ContentionRule::kTransfer, 300'000},
                             std::pair{ContentionRule::kSurcharge, 100'000}}) {
    LedgerPolicy p;
    p.contention = rule;
    StatusOr<Ledger> l =
        ComputeLedger({Device(1, "n6-a")}, holders, ScanOf(minutes), Book(), {w}, {}, p, 0, 10'000);
    ASSERT_TRUE(l.ok());
    auto s = Sum(*l);
    EXPECT_EQ(At(s, 1, Category::kBase), 750'000);
    EXPECT_EQ(At(s, 2, Category::kBase), 250'000);
    EXPECT_EQ(At(s, 1, Category::kContention), -moved);
    EXPECT_EQ(At(s, 2, Category::kContention), moved);
  }
}

// Alone on its device, a victim's loss goes to "(unattributed contention)".
TEST(LedgerTest, ContentionWithoutNeighbourIsUnattributed) {
  DeviceMinute m;
  m.device = 1;
  m.minute_s = 60;
  m.holders = {{1, -1}};
  ContentionWindow w;
  w.devices = {"GPU-1"};  // by uuid
  w.start_s = 0;
  w.end_s = 120;
  w.slowdown = 0.5;
  StatusOr<Ledger> l = ComputeLedger({Device(1, "n6-a")}, {MakeHolder(1, "v")}, ScanOf({m}), Book(),
                                     {w}, {}, LedgerPolicy(), 0, 1000);
  ASSERT_TRUE(l.ok());
  auto s = Sum(*l);
  EXPECT_EQ(At(s, 1, Category::kContention), -50'000);
  EXPECT_EQ(At(s, kUnattributed, Category::kContention), 50'000);
}

// The incident names both holders (the detector sees the device, not who
// slowed whom): a was there first, b moved in a minute before the incident,
// so b is the neighbour. Minutes 6-9, each $0.10 split equally (no
// per-holder utilization): a's $0.05 x 0.5 = $0.025 moves to b per minute.
TEST(LedgerTest, NewcomerIsTheNeighbourWhenAllAreNamed) {
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 10; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = 60 * i;
    m.holders = {{1, -1}};
    if (i >= 5) m.holders.push_back({2, -1});
    minutes.push_back(m);
  }
  ContentionWindow w;
  w.devices = {"n6-a/0"};
  w.workloads = {"a", "b"};
  w.start_s = 360;
  w.end_s = 600;
  w.slowdown = 0.5;
  StatusOr<Ledger> l = ComputeLedger({Device(1, "n6-a")}, {MakeHolder(1, "a"), MakeHolder(2, "b")},
                                     ScanOf(minutes), Book(), {w}, {}, LedgerPolicy(), 0, 1000);
  ASSERT_TRUE(l.ok());
  auto s = Sum(*l);
  EXPECT_EQ(At(s, 1, Category::kContention), -100'000);
  EXPECT_EQ(At(s, 2, Category::kContention), 100'000);
}

// On premises: $26,298 over one year (8,766 h) is $3/h = 50,000 micro-$ a
// minute, plus energy: 100 kJ at $0.36/kWh = $0.01 = 10,000 micro-$.
TEST(LedgerTest, OnPremEnergyIsPartOfTheCost) {
  DeviceMinute m;
  m.device = 1;
  m.minute_s = 60;
  m.energy_j = 100'000;
  StatusOr<Ledger> l = ComputeLedger({Device(1, "onprem-0")}, std::vector<Holder>{}, ScanOf({m}), Book(), {}, {},
                                     LedgerPolicy(), 0, 1000);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->device_costs[1].cost_micro, 60'000);
}

TEST(LedgerTest, MigProfilesAndXcpModesAreFractions) {
  MeteredDevice d = Device(1, "n6-a");
  d.partition_kind = "mig";
  d.partition_profile = "3g.40gb";
  EXPECT_DOUBLE_EQ(PartitionFraction(d, 2), 3.0 / 7);
  d.partition_kind = "xcp";
  d.partition_profile = "CPX";
  EXPECT_DOUBLE_EQ(PartitionFraction(d, 8), 1.0 / 8);
  d.partition_kind = "intel_tile";
  d.partition_profile = "";
  EXPECT_DOUBLE_EQ(PartitionFraction(d, 2), 0.5);
}

TEST(LedgerTest, UnpricedDeviceMakesThePartialFlag) {
  DeviceMinute m;
  m.device = 1;
  m.minute_s = 60;
  MeteredDevice d = Device(1, "mystery-0", "gpu-from-the-future");
  d.cloud = "aws";
  d.region = "us-east-1";
  StatusOr<Ledger> l = ComputeLedger({d}, std::vector<Holder>{}, ScanOf({m}), Book(), {}, {},
                                       LedgerPolicy(), 0, 1000);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE(l->partial());
  EXPECT_NE(l->warnings[0].find("mystery-0"), std::string::npos) << l->warnings[0];
  EXPECT_TRUE(l->lines.empty());
}

TEST(LedgerTest, SplitExactSumsExactly) {
  std::vector<int64_t> p = SplitExact(100, {1, 1, 1});
  EXPECT_EQ(p[0] + p[1] + p[2], 100);
  EXPECT_EQ(SplitExact(-7, {0.5, 0.25, 0.25})[0] + SplitExact(-7, {0.5, 0.25, 0.25})[1] +
                SplitExact(-7, {0.5, 0.25, 0.25})[2],
            -7);
  EXPECT_EQ(SplitExact(5, {0, 0})[0] + SplitExact(5, {0, 0})[1], 5);
}

// Reconciliation on random fleets: for every device and every policy, the
// device's lines sum to its cost to the micro-dollar; base never exceeds the
// allocation basis; contention credits and charges cancel.
TEST(LedgerTest, ReconcilesToTheMicroDollarOnRandomFleets) {
  std::mt19937_64 rng(20261204);
  PriceBook book = Book();
  for (int fleet = 0; fleet < 40; ++fleet) {
    std::uniform_int_distribution<int> n_dev(1, 6), n_hold(1, 5), n_min(1, 90);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<MeteredDevice> devices;
    int nd = n_dev(rng);
    for (int i = 1; i <= nd; ++i) {
      const char* nodes[] = {"n6-x", "n2-y", "onprem-z"};
      MeteredDevice d = Device(i, nodes[rng() % 3]);
      d.key = d.node + "/" + std::to_string(i);
      if (rng() % 3 == 0) {
        d.partition_kind = "mig";
        d.partition_profile = std::to_string(1 + rng() % 7) + "g.10gb";
      }
      devices.push_back(d);
    }
    std::vector<Holder> holders;
    int nh = n_hold(rng);
    for (int h = 1; h <= nh; ++h) holders.push_back(MakeHolder(h, "p" + std::to_string(h)));
    std::vector<DeviceMinute> minutes;
    for (const MeteredDevice& d : devices) {
      int nm = n_min(rng);
      for (int k = 0; k < nm; ++k) {
        DeviceMinute m;
        m.device = d.id;
        m.minute_s = 60 * k;
        if (unit(rng) < 0.8) m.util_mean = unit(rng);
        if (unit(rng) < 0.8) m.bw_mean = unit(rng);
        m.energy_j = unit(rng) * 60 * 700;
        for (int h = 1; h <= nh; ++h) {
          if (unit(rng) < 0.4) m.holders.push_back({h, unit(rng) < 0.7 ? unit(rng) : -1});
        }
        minutes.push_back(m);
      }
    }
    std::vector<ContentionWindow> windows;
    for (int k = 0; k < 3; ++k) {
      ContentionWindow w;
      w.devices = {devices[rng() % devices.size()].key};
      w.workloads = {"p" + std::to_string(1 + rng() % nh)};
      w.start_s = 60 * static_cast<int64_t>(rng() % 60);
      w.end_s = w.start_s + 60 * static_cast<int64_t>(1 + rng() % 30);
      w.slowdown = unit(rng);
      windows.push_back(w);
    }
    for (Basis basis : {Basis::kAllocation, Basis::kUsage, Basis::kUsageMean}) {
      for (IdleRule idle : {IdleRule::kNone, IdleRule::kProportional, IdleRule::kOwner}) {
        for (ContentionRule cr :
             {ContentionRule::kOff, ContentionRule::kTransfer, ContentionRule::kSurcharge}) {
          LedgerPolicy p{basis, idle, cr, 0.2};
          StatusOr<Ledger> l = ComputeLedger(devices, holders, ScanOf(minutes), book, windows,
                                             {{"n6-*", "platform"}}, p, 0, 1'000'000);
          ASSERT_TRUE(l.ok());
          ASSERT_FALSE(l->partial());
          std::map<int64_t, int64_t> per_device;
          int64_t contention = 0, base = 0, alloc = 0;
          for (const ChargeLine& c : l->lines) {
            per_device[c.device] += c.micro_usd;
            if (c.category == Category::kContention) contention += c.micro_usd;
            if (c.category == Category::kBase) {
              base += c.micro_usd;
              alloc += c.allocation_micro;
            }
          }
          for (const auto& [id, dc] : l->device_costs) {
            EXPECT_EQ(per_device[id], dc.cost_micro) << "fleet " << fleet << " device " << id;
          }
          EXPECT_EQ(contention, 0) << "fleet " << fleet;
          EXPECT_LE(base, alloc);
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpufleet::cost
