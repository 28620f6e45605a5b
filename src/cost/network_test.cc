#include "cost/network.h"

#include <gtest/gtest.h>

#include "cost/cost_export.h"
#include "cost/cost_report.h"
#include "cost/ledger.h"

namespace gpufleet::cost {
namespace {

TEST(EgressTableTest, EveryEmbeddedPriceHasASourceAndDate) {
  const EgressTable& t = EgressTable::Default();
  ASSERT_FALSE(t.rows().empty());
  for (const EgressPrice& p : t.rows()) {
    EXPECT_FALSE(p.source.empty()) << p.where;
    EXPECT_FALSE(p.date.empty()) << p.where;
    // Only a cloud whose own pages say it does not charge transfer is free.
    if (p.cloud != "lambda") {
      EXPECT_GT(p.usd_per_unit, 0) << p.where;
    }
  }
  EXPECT_NE(t.Find("aws", "inter_region"), nullptr);
  ASSERT_NE(t.Find("azure", "inter_region"), nullptr);
  EXPECT_DOUBLE_EQ(t.Find("azure", "inter_region")->usd_per_unit, 0.02);
  EXPECT_EQ(t.Find("azure", "internet"), nullptr);  // not known (see egress.toml)
  ASSERT_NE(t.Find("lambda", "internet"), nullptr);
  EXPECT_EQ(t.Find("lambda", "internet")->usd_per_unit, 0);
}

TEST(EgressTableTest, BadRowsNameFileLineAndField) {
  StatusOr<EgressTable> t = EgressTable::Parse(
      "[[egress]]\ncloud = \"aws\"\nkind = \"outbound\"\nusd_per_unit = 0.1\nper = \"GB\"\n"
      "source = \"x\"\ndate = \"2026\"\n",
      "egress.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("egress.toml:3"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("kind"), std::string::npos);
  t = EgressTable::Parse(
      "[[egress]]\ncloud = \"aws\"\nkind = \"internet\"\nusd_per_unit = 0.1\n"
      "per = \"TB\"\nsource = \"x\"\ndate = \"2026\"\n",
      "egress.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("per"), std::string::npos);
  // Found by cost_egress_fuzz: a price with an empty date was taken.
  t = EgressTable::Parse(
      "[[egress]]\ncloud = \"aws\"\nkind = \"internet\"\nusd_per_unit = 0.1\n"
      "per = \"GB\"\nsource = \"x\"\ndate = \"\"\n",
      "egress.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("egress.toml:7"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("date"), std::string::npos) << t.status().message();
}

TEST(TransferTest, BadDeclarationsNameFileLineAndField) {
  for (auto [text, field] : {
           std::pair{"[[transfer]]\nworkload = \"w\"\nfrom = \"aws\"\nto = \"internet\"\ngb = 1\n"
                     "at = \"2026-12-01\"\n",
                     "from"},
           std::pair{"[[transfer]]\nworkload = \"w\"\nfrom = \"aws/x\"\nto = \"internet\"\n"
                     "gb = -1\nat = \"2026-12-01\"\n",
                     "gb"},
           std::pair{"[[transfer]]\nworkload = \"w\"\nfrom = \"aws/x\"\nto = \"internet\"\n"
                     "gb = 1\nat = \"yesterday\"\n",
                     "at"},
           std::pair{"[[transfer]]\nfrom = \"aws/x\"\nto = \"internet\"\ngb = 1\n"
                     "at = \"2026-12-01\"\n",
                     "workload, pod or slurm_job"},
       }) {
    StatusOr<PriceBook> b = PriceBook::Parse(text, "site.toml");
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_NE(b.status().message().find("site.toml:"), std::string::npos) << b.status().message();
    EXPECT_NE(b.status().message().find(field), std::string::npos) << b.status().message();
  }
}

// Worked by hand, on the embedded egress table:
//   train (metered holder) moves 500 GB aws/us-east-1 -> aws/us-west-2:
//     inter-region $0.02/GB -> $10.00;
//   train moves 100 GB aws/us-east-1 -> gcp/us-central1: AWS internet egress
//     $0.09/GB -> $9.00;
//   etl (never metered; team data) moves 2^30 x 100 bytes = 107.374182 GB
//     gcp/us-central1 -> internet at $0.12/GiB -> $12.00;
//   the same region: free; out of azure: $0 and a warning; a transfer
//     after the period: not charged.
// One GPU at $6/GPU-h held by train for 10 minutes costs $1.00, so the report
// total is $1.00 + $31.00 and the devices still reconcile on their own.
TEST(NetworkTest, WorkedChargesOnTopOfDeviceCost) {
  constexpr char kSite[] = R"(
[[node]]
match = "n6-*"
pricing = "negotiated"
usd_per_gpu_hour = 6.0
source = "test"
date = "2026-12-01"

[[transfer]]
workload = "train"
from = "aws/us-east-1"
to = "aws/us-west-2"
gb = 500
at = "2026-12-02"

[[transfer]]
workload = "train"
from = "aws/us-east-1"
to = "gcp/us-central1"
gb = 100
at = "2026-12-02T10:00:00Z"

[[transfer]]
workload = "etl"
team = "data"
from = "gcp/us-central1"
to = "internet"
gb = 107.374182400
at = "2026-12-03"

[[transfer]]
workload = "train"
from = "aws/us-east-1"
to = "aws/us-east-1"
gb = 900
at = "2026-12-03"

[[transfer]]
workload = "train"
from = "azure/eastus"
to = "internet"
gb = 10
at = "2026-12-03"

[[transfer]]
workload = "train"
from = "aws/us-east-1"
to = "internet"
gb = 10
at = "2027-01-03"
)";
  StatusOr<PriceBook> book = PriceBook::Parse(kSite, "site.toml");
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  MeteredDevice d;
  d.id = 1;
  d.node = "n6-a";
  d.key = "n6-a/0";
  d.gpu_uuid = "GPU-1";
  d.model = "h100-sxm";
  d.cloud = "aws";
  d.region = "us-east-1";
  Holder h;
  h.id = 1;
  h.key = "ml/train-0/c";
  h.namespace_ = "ml";
  h.pod = "train-0";
  h.workload = "train";
  h.team = "research";
  const int64_t from = 1'796'083'200;  // 2026-12-01
  const int64_t to = from + 31 * 86400;
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 10; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = from + 60 * i;
    m.holders = {{1, -1}};
    minutes.push_back(m);
  }
  MinuteScan scan = [&](const std::function<void(const DeviceMinute&)>& fn) {
    for (const DeviceMinute& m : minutes) fn(m);
    return OkStatus();
  };
  StatusOr<Ledger> l = ComputeLedger({d}, {h}, scan, *book, {}, {}, {}, from, to);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->network.size(), 5u);
  EXPECT_EQ(l->network[0].micro_usd, 10'000'000);
  EXPECT_EQ(l->network[0].kind, "inter_region");
  EXPECT_EQ(l->network[1].micro_usd, 9'000'000);
  EXPECT_EQ(l->network[1].kind, "internet");
  EXPECT_EQ(l->network[2].micro_usd, 12'000'000);
  EXPECT_EQ(l->network[3].kind, "free");
  EXPECT_EQ(l->network[3].micro_usd, 0);
  EXPECT_EQ(l->network[4].micro_usd, 0);
  ASSERT_EQ(l->warnings.size(), 1u);
  EXPECT_NE(l->warnings[0].find("'azure'"), std::string::npos) << l->warnings[0];
  EXPECT_NE(l->warnings[0].find("site.toml:"), std::string::npos);
  int64_t lines = 0;
  for (const ChargeLine& c : l->lines) lines += c.micro_usd;
  EXPECT_EQ(lines, l->device_costs[1].cost_micro);  // devices reconcile without network
  EXPECT_EQ(lines, 1'000'000);

  StatusOr<CostReport> r = BuildReport(*l, {"team"}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total.network_micro, 31'000'000);
  EXPECT_EQ(r->total.total_micro, 32'000'000);
  for (const CostRow& row : r->rows) {
    if (row.key[0] == "research") {
      EXPECT_EQ(row.network_micro, 19'000'000);
    }
    if (row.key[0] == "data") {
      EXPECT_EQ(row.total_micro, 12'000'000);
    }
  }
  EXPECT_NE(RenderCsv(*r).find("network_usd"), std::string::npos);
  EXPECT_NE(RenderText(*r).find("NETWORK"), std::string::npos);
  EXPECT_NE(RenderJson(*r).find("\"network_usd\": 31.0"), std::string::npos);
  std::string focus = RenderFocusCsv(*l, {});
  EXPECT_NE(focus.find(",Networking,"), std::string::npos);
  EXPECT_NE(focus.find("12,12,12,12,"), std::string::npos) << focus;
}

// A site prices what the catalog lacks (Azure to the internet) and
// replaces what it negotiated (AWS to the internet); the other rows stay.
// Worked by hand: 10 GB azure -> internet at $0.087/GB = $0.87; 100 GB
// aws -> internet at the site's $0.05/GB = $5.00; 500 GB aws inter-region at
// the catalog's $0.02/GB = $10.00. No warning: every transfer is priced.
TEST(NetworkTest, SiteEgressRowsPriceWhatTheCatalogLacks) {
  constexpr char kSite[] = R"(
[[egress]]
cloud = "azure"
kind = "internet"
usd_per_unit = 0.087
per = "GB"
source = "our Azure agreement, exhibit B"
date = "2026-11-01"

[[egress]]
cloud = "aws"
kind = "internet"
usd_per_unit = 0.05
per = "GB"
source = "AWS private pricing addendum"
date = "2026-10-01"

[[transfer]]
workload = "train"
team = "research"
from = "azure/eastus"
to = "internet"
gb = 10
at = "2026-12-03"

[[transfer]]
workload = "train"
team = "research"
from = "aws/us-east-1"
to = "gcp/us-central1"
gb = 100
at = "2026-12-03"

[[transfer]]
workload = "train"
team = "research"
from = "aws/us-east-1"
to = "aws/us-west-2"
gb = 500
at = "2026-12-03"
)";
  StatusOr<PriceBook> book = PriceBook::Parse(kSite, "site.toml");
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  ASSERT_NE(book->egress().Find("azure", "internet"), nullptr);
  EXPECT_EQ(book->egress().Find("azure", "internet")->where, "site.toml:2");
  EXPECT_DOUBLE_EQ(book->egress().Find("aws", "internet")->usd_per_unit, 0.05);
  EXPECT_DOUBLE_EQ(book->egress().Find("gcp", "internet")->usd_per_unit, 0.12);
  const int64_t from = 1'796'083'200;  // 2026-12-01
  MinuteScan none = [](const std::function<void(const DeviceMinute&)>&) { return OkStatus(); };
  StatusOr<Ledger> l = ComputeLedger(std::vector<MeteredDevice>{}, std::vector<Holder>{}, none,
                                     *book, {}, {}, {}, from, from + 31 * 86400);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->network.size(), 3u);
  EXPECT_EQ(l->network[0].micro_usd, 870'000);
  EXPECT_EQ(l->network[1].micro_usd, 5'000'000);
  EXPECT_EQ(l->network[2].micro_usd, 10'000'000);
  EXPECT_TRUE(l->warnings.empty()) << l->warnings[0];

  // A site row is checked like a catalog row, naming the site file.
  StatusOr<PriceBook> bad = PriceBook::Parse(
      "[[egress]]\ncloud = \"azure\"\nkind = \"internet\"\nusd_per_unit = 0.087\n"
      "per = \"GB\"\nsource = \"x\"\n",
      "site.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("site.toml:1"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("date"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace gpufleet::cost
