#include "cost/cost_export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cost/cost_test_util.h"

namespace gpufleet::cost {
namespace {

// One GPU at a negotiated $6/GPU-h; pod v alone for 5 minutes, then n moves
// in and an incident (slowdown 0.5) covers minutes 5-9; minutes 10-11 idle.
Ledger SmallLedger(Basis basis) {
  PriceBook book = NegotiatedBook("n*", 6.0);
  MeteredDevice d;
  d.id = 1;
  d.key = "n1/0";
  d.node = "n1";
  d.cloud = "aws";
  d.region = "us-east-1";
  d.model = "h100-sxm";
  Holder v, n;
  v.id = 1;
  v.pod = "v";
  v.namespace_ = "serving";
  n.id = 2;
  n.pod = "n";
  n.namespace_ = "batch";
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 12; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = 1'800'000'000 + 60 * i;
    m.util_mean = 0.5;
    if (i < 10) m.holders.push_back({1, -1});
    if (i >= 5 && i < 10) m.holders.push_back({2, -1});
    minutes.push_back(m);
  }
  ContentionWindow w;
  w.devices = {"n1/0"};
  w.start_s = 1'800'000'000 + 300;
  w.end_s = 1'800'000'000 + 600;
  w.slowdown = 0.5;
  LedgerPolicy p;
  p.basis = basis;
  MinuteScan scan = [minutes](const std::function<void(const DeviceMinute&)>& fn) {
    for (const DeviceMinute& m : minutes) fn(m);
    return OkStatus();
  };
  StatusOr<Ledger> l =
      ComputeLedger({d}, {v, n}, scan, book, {w}, {}, p, 1'800'000'000, 1'800'000'000 + 720);
  EXPECT_TRUE(l.ok());
  return *l;
}

// FOCUS 1.2 mandatory columns (shared/reference/focus-columns.md).
const std::set<std::string> kMandatory = {
    "BilledCost",       "EffectiveCost",      "ListCost",          "ContractedCost",
    "BillingAccountId", "BillingAccountName", "BillingCurrency",   "BillingPeriodStart",
    "BillingPeriodEnd", "ChargePeriodStart",  "ChargePeriodEnd",   "ChargeCategory",
    "ChargeClass",      "ChargeDescription",  "InvoiceIssuerName", "PricingQuantity",
    "PricingUnit",      "ProviderName",       "PublisherName",     "ServiceCategory",
    "ServiceName"};

TEST(CostExportTest, FocusHasEveryMandatoryColumnAndSumsToTheLedger) {
  Ledger l = SmallLedger(Basis::kAllocation);
  std::string csv = RenderFocusCsv(l, {});
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  std::set<std::string> cols;
  std::stringstream hs(header);
  for (std::string c; std::getline(hs, c, ',');) cols.insert(c);
  for (const std::string& m : kMandatory) EXPECT_TRUE(cols.count(m)) << m;
  for (const std::string& c : FocusColumns()) {
    EXPECT_TRUE(kMandatory.count(c) || c.rfind("x_", 0) == 0 ||
                std::isupper(static_cast<unsigned char>(c[0])))
        << c;
  }
  // 12 minutes at $0.10: $1.20 in all; BilledCost is the first field.
  double billed = 0;
  int rows = 0, credits = 0;
  for (std::string line; std::getline(in, line);) {
    billed += std::stod(line.substr(0, line.find(',')));
    ++rows;
    if (line.find(",Credit,") != std::string::npos) ++credits;
  }
  EXPECT_NEAR(billed, 1.20, 1e-9);
  EXPECT_EQ(credits, 1);  // v's contention credit
  EXPECT_EQ(static_cast<size_t>(rows), l.lines.size());
}

// OpenCost's shape: namespace serving (pod v) held the GPU alone for 5
// minutes ($0.50) and shared it with batch (pod n) for 5 ($0.25 each); the
// 2 idle minutes are "__idle__" ($0.20). Usage basis at utilization 0.5:
// efficiency 0.5.
TEST(CostExportTest, OpenCostAllocationShape) {
  StatusOr<std::string> s = RenderOpenCostAllocation(
      SmallLedger(Basis::kAllocation), SmallLedger(Basis::kUsage), "namespace", true, {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  nlohmann::json j = nlohmann::json::parse(*s);
  EXPECT_EQ(j["code"], 200);
  const nlohmann::json& set = j["data"][0];
  ASSERT_TRUE(set.contains("serving"));
  ASSERT_TRUE(set.contains("batch"));
  ASSERT_TRUE(set.contains("__idle__"));
  // serving: 5 x $0.10 + 5 x $0.05 = $0.75 allocated; credit 5 x $0.025.
  EXPECT_DOUBLE_EQ(set["serving"]["gpuCost"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(set["serving"]["gpuCostAdjustment"].get<double>(), -0.125);
  EXPECT_DOUBLE_EQ(set["batch"]["gpuCostAdjustment"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(set["__idle__"]["gpuCost"].get<double>(), 0.20);
  EXPECT_DOUBLE_EQ(set["serving"]["gpuEfficiency"].get<double>(), 0.5);
  EXPECT_EQ(set["serving"]["properties"]["namespace"], "serving");
  EXPECT_FALSE(RenderOpenCostAllocation(SmallLedger(Basis::kAllocation), SmallLedger(Basis::kUsage),
                                        "galaxy", true, {})
                   .ok());
}

TEST(CostReportTest, TimeArguments) {
  const int64_t now = 1'800'000'000;
  EXPECT_EQ(*ParseTimeArg("now", now), now);
  EXPECT_EQ(*ParseTimeArg("-30d", now), now - 30 * 86400);
  EXPECT_EQ(*ParseTimeArg("-6h", now), now - 6 * 3600);
  EXPECT_EQ(*ParseTimeArg("2026-12-01", now), 1796083200);
  EXPECT_EQ(*ParseTimeArg("2026-12-01T08:00:00Z", now), 1796083200 + 8 * 3600);
  EXPECT_EQ(*ParseTimeArg("1796083200", now), 1796083200);
  for (const char* bad :
       {"", "yesterday", "-5w", "-99999999999999d", "123456789012345", "2026-13-45", "--5d"}) {
    StatusOr<int64_t> t = ParseTimeArg(bad, now);
    EXPECT_FALSE(t.ok()) << bad;
  }
}

}  // namespace
}  // namespace gpufleet::cost
