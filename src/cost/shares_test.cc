#include "cost/shares.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "cost/cost_report.h"
#include "cost/cost_test_util.h"
#include "cost/ledger.h"

namespace gpufleet::cost {
namespace {

MeteredDevice Gpu(int64_t id) {
  MeteredDevice d;
  d.id = id;
  d.node = "n6-" + std::to_string(id);
  d.key = d.node + "/0";
  d.gpu_uuid = "GPU-" + std::to_string(id);
  d.model = "h100-sxm";
  return d;
}

Holder HamiPod(int64_t id, std::string pod, std::string cores, std::string mem = "") {
  Holder h;
  h.id = id;
  h.pod = std::move(pod);
  h.namespace_ = "ns";
  h.key = "ns/" + h.pod + "/c";
  h.hami_gpucores = std::move(cores);
  h.hami_gpumem_percentage = std::move(mem);
  return h;
}

MinuteScan ScanOf(std::vector<DeviceMinute> minutes) {
  return [minutes](const std::function<void(const DeviceMinute&)>& fn) {
    for (const DeviceMinute& m : minutes) fn(m);
    return OkStatus();
  };
}

std::map<std::pair<int64_t, Category>, int64_t> Sums(const Ledger& l) {
  std::map<std::pair<int64_t, Category>, int64_t> out;
  for (const ChargeLine& c : l.lines) out[{c.holder, c.category}] += c.micro_usd;
  return out;
}

TEST(HamiShareTest, LargerOfCoresAndMemory) {
  EXPECT_DOUBLE_EQ(*HamiShare(HamiPod(1, "a", "25")), 0.25);
  EXPECT_DOUBLE_EQ(*HamiShare(HamiPod(1, "a", "25", "60")), 0.60);
  EXPECT_DOUBLE_EQ(*HamiShare(HamiPod(1, "a", "", "30")), 0.30);
  EXPECT_DOUBLE_EQ(*HamiShare(HamiPod(1, "a", "0")), -1);  // 0 = no core limit
  EXPECT_DOUBLE_EQ(*HamiShare(HamiPod(1, "a", "")), -1);
  for (const char* bad : {"101", "-5", "25%", "2.5", " 25"}) {
    StatusOr<double> s = HamiShare(HamiPod(1, "a", bad));
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("workload_hami_gpucores"), std::string::npos);
    EXPECT_NE(s.status().message().find("ns/a/c"), std::string::npos);
  }
}

// Worked by hand: $6/GPU-h = 100,000 micro-$ a minute, 10 minutes, basis
// allocation.
//   GPU 1: a (gpucores 25) and b (gpucores 50, gpumem 60%: share 0.6) share
//     it: a 10 x 0.25 x $0.10 = $0.25, b 10 x 0.6 x $0.10 = $0.60, and the
//     15% nobody holds is unallocated idle, $0.15.
//   GPU 2: c (gpucores 25) with d (no limit): c $0.25, d takes the rest,
//     $0.75.
//   GPU 3: e alone, gpucores 25, but a per-holder utilization of 0.9: still
//     $0.25 (the slice is what it bought), $0.75 unallocated.
// Without HAMi (the labels absent), a and b would pay $0.50 each.
TEST(HamiShareTest, WorkedFleetChargesTheSlice) {
  std::vector<MeteredDevice> devices = {Gpu(1), Gpu(2), Gpu(3)};
  std::vector<Holder> holders = {HamiPod(1, "a", "25"), HamiPod(2, "b", "50", "60"),
                                 HamiPod(3, "c", "25"), HamiPod(4, "d", ""), HamiPod(5, "e", "25")};
  std::vector<DeviceMinute> minutes;
  for (int64_t dev = 1; dev <= 3; ++dev) {
    for (int i = 0; i < 10; ++i) {
      DeviceMinute m;
      m.device = dev;
      m.minute_s = 1'800'000'000 + 60 * i;
      m.util_mean = 0.5;
      if (dev == 1) m.holders = {{1, -1}, {2, -1}};
      if (dev == 2) m.holders = {{3, -1}, {4, -1}};
      if (dev == 3) m.holders = {{5, 0.9}};
      minutes.push_back(m);
    }
  }
  PriceBook book = NegotiatedBook("n6-*", 6.0);
  StatusOr<Ledger> l =
      ComputeLedger(devices, holders, ScanOf(minutes), book, {}, {}, {}, 0, 2'000'000'000);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_FALSE(l->partial());
  auto s = Sums(*l);
  EXPECT_EQ((s[{1, Category::kBase}]), 250'000);
  EXPECT_EQ((s[{2, Category::kBase}]), 600'000);
  EXPECT_EQ((s[{3, Category::kBase}]), 250'000);
  EXPECT_EQ((s[{4, Category::kBase}]), 750'000);
  EXPECT_EQ((s[{5, Category::kBase}]), 250'000);
  EXPECT_EQ((s[{kNoHolder, Category::kIdleUnallocated}]), 150'000 + 750'000);
  // Grouped by pod, GPU-hours follow the slices too: a held 10 min x 0.25.
  StatusOr<CostReport> r = BuildReport(*l, {"pod"}, {});
  ASSERT_TRUE(r.ok());
  for (const CostRow& row : r->rows) {
    if (row.key[0] == "a") {
      EXPECT_NEAR(row.gpu_hours, 10 * 0.25 / 60, 1e-9);
    }
    if (row.key[0] == "(unallocated)") {
      EXPECT_NEAR(row.idle_gpu_hours, 10 * 0.9 / 60, 1e-9);
    }
  }
  EXPECT_EQ(r->total.total_micro, 3'000'000);
}

TEST(HamiShareTest, BadLabelIsAWarningNotASilentShare) {
  std::vector<MeteredDevice> devices = {Gpu(1)};
  std::vector<Holder> holders = {HamiPod(1, "a", "250")};
  DeviceMinute m;
  m.device = 1;
  m.minute_s = 1'800'000'000;
  m.holders = {{1, -1}};
  StatusOr<Ledger> l = ComputeLedger(devices, holders, ScanOf({m}), NegotiatedBook("n6-*", 6.0), {},
                                     {}, {}, 0, 2'000'000'000);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE(l->partial());
  EXPECT_NE(l->warnings[0].find("workload_hami_gpucores='250'"), std::string::npos);
  EXPECT_EQ((Sums(*l)[{1, Category::kBase}]), 100'000);  // charged as a whole holder
}

// Property, on random fleets of HAMi slices (some holders without a limit,
// some over-subscribed devices) under every policy: each device's lines sum
// to its cost to the micro-dollar, and a holder with a share s is never
// charged more held GPU time than s per minute it held a device.
TEST(HamiShareTest, ReconcilesAndBoundsSlicesOnRandomFleets) {
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> unit(0, 1);
  PriceBook book = NegotiatedBook("n6-*", 6.0);
  for (int fleet = 0; fleet < 30; ++fleet) {
    std::vector<MeteredDevice> devices;
    int nd = 1 + static_cast<int>(rng() % 5);
    for (int i = 1; i <= nd; ++i) devices.push_back(Gpu(i));
    std::vector<Holder> holders;
    int nh = 1 + static_cast<int>(rng() % 5);
    for (int h = 1; h <= nh; ++h) {
      std::string cores = rng() % 4 == 0 ? "" : std::to_string(rng() % 101);
      std::string mem = rng() % 2 == 0 ? "" : std::to_string(rng() % 101);
      holders.push_back(HamiPod(h, "p" + std::to_string(h), cores, mem));
    }
    std::vector<DeviceMinute> minutes;
    std::map<int64_t, int> held_minutes;
    for (const MeteredDevice& d : devices) {
      int nm = 1 + static_cast<int>(rng() % 60);
      for (int k = 0; k < nm; ++k) {
        DeviceMinute m;
        m.device = d.id;
        m.minute_s = 60 * k;
        if (unit(rng) < 0.8) m.util_mean = unit(rng);
        for (int h = 1; h <= nh; ++h) {
          if (unit(rng) < 0.5) {
            m.holders.push_back({h, unit(rng) < 0.5 ? unit(rng) : -1});
            held_minutes[h]++;
          }
        }
        minutes.push_back(m);
      }
    }
    ContentionWindow w;
    w.devices = {devices[0].key};
    w.workloads = {"p1"};
    w.start_s = 0;
    w.end_s = 1800;
    w.slowdown = unit(rng);
    for (Basis basis : {Basis::kAllocation, Basis::kUsage}) {
      for (IdleRule idle : {IdleRule::kNone, IdleRule::kProportional}) {
        LedgerPolicy p{basis, idle, ContentionRule::kTransfer, 0.2};
        StatusOr<Ledger> l =
            ComputeLedger(devices, holders, ScanOf(minutes), book, {w}, {}, p, 0, 1'000'000);
        ASSERT_TRUE(l.ok());
        std::map<int64_t, int64_t> per_device;
        std::map<int64_t, double> held_hours;
        for (const ChargeLine& c : l->lines) {
          per_device[c.device] += c.micro_usd;
          if (c.category == Category::kBase) held_hours[c.holder] += c.gpu_hours;
        }
        for (const auto& [id, dc] : l->device_costs) {
          EXPECT_EQ(per_device[id], dc.cost_micro) << "fleet " << fleet << " device " << id;
        }
        for (const Holder& h : holders) {
          StatusOr<double> share = HamiShare(h);
          ASSERT_TRUE(share.ok());
          if (*share <= 0) continue;
          EXPECT_LE(held_hours[h.id], *share * held_minutes[h.id] / 60.0 + 1e-9)
              << "fleet " << fleet << " holder " << h.key;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpufleet::cost
