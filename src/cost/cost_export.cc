#include "cost/cost_export.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/duration.h"

namespace gpufleet::cost {
namespace {

using nlohmann::json;

std::string Decimal(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string Csv(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string PricingCategory(Pricing p) {
  switch (p) {
    case Pricing::kOnDemand:
    case Pricing::kNegotiated:
      return "Standard";
    case Pricing::kSpot:
      return "Dynamic";
    case Pricing::kCommitted:
      return "Committed";
    case Pricing::kOnPrem:
      return "Other";
  }
  return "Other";
}

double Round5(double v) { return std::round(v * 1e5) / 1e5; }

}  // namespace

const std::vector<std::string>& FocusColumns() {
  static const std::vector<std::string> kColumns = {"BilledCost",
                                                    "EffectiveCost",
                                                    "ListCost",
                                                    "ContractedCost",
                                                    "BillingAccountId",
                                                    "BillingAccountName",
                                                    "BillingCurrency",
                                                    "BillingPeriodStart",
                                                    "BillingPeriodEnd",
                                                    "ChargePeriodStart",
                                                    "ChargePeriodEnd",
                                                    "ChargeCategory",
                                                    "ChargeClass",
                                                    "ChargeDescription",
                                                    "ChargeFrequency",
                                                    "InvoiceIssuerName",
                                                    "PricingQuantity",
                                                    "PricingUnit",
                                                    "ProviderName",
                                                    "PublisherName",
                                                    "ServiceCategory",
                                                    "ServiceName",
                                                    "ResourceId",
                                                    "ResourceName",
                                                    "ResourceType",
                                                    "RegionId",
                                                    "RegionName",
                                                    "ConsumedQuantity",
                                                    "ConsumedUnit",
                                                    "ListUnitPrice",
                                                    "ContractedUnitPrice",
                                                    "PricingCategory",
                                                    "SkuId",
                                                    "SubAccountId",
                                                    "SubAccountName",
                                                    "Tags",
                                                    "x_CostCategory",
                                                    "x_Basis",
                                                    "x_AllocationCost",
                                                    "x_LostGpuHours"};
  return kColumns;
}

// The columns every row of ours fills alike: BilledCost, EffectiveCost,
// ListCost, ContractedCost, the billing account, currency and periods.
std::vector<std::string> FocusRowStart(const std::string& cost, const std::string& from,
                                       const std::string& to) {
  return {cost, cost, cost, cost, "gpufleet", "gpufleet cost ledger", "USD", from, to, from, to};
}

std::string CsvLine(const std::vector<std::string>& row) {
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + Csv(row[i]);
  return line + "\n";
}

// One Usage row per network charge: ServiceCategory Networking, priced per
// GB (focus-columns.md: egress is Networking, PricingUnit "GB").
std::string FocusNetworkRows(const Ledger& L,
                             const std::vector<std::pair<std::string, std::string>>& teams,
                             const std::string& from, const std::string& to) {
  std::string out;
  for (const NetworkCharge& c : L.network) {
    const Holder* h = nullptr;
    if (auto it = L.holders.find(c.holder); it != L.holders.end()) h = it->second.get();
    std::string team = h != nullptr ? TeamOf(*h, teams) : "";
    json tags = json::object();
    if (h != nullptr && !h->workload.empty()) tags["gpufleet/workload"] = h->workload;
    if (!team.empty()) tags["gpufleet/team"] = team;
    const std::string cost = Decimal(static_cast<double>(c.micro_usd) / 1e6);
    const std::string unit_price =
        c.gb > 0 ? Decimal(static_cast<double>(c.micro_usd) / 1e6 / c.gb) : "0";
    std::vector<std::string> row = FocusRowStart(cost, from, to);
    row.insert(row.end(), {"Usage",
                           "",
                           c.kind + " transfer " + c.cloud + "/" + c.region + " -> " + c.to + " (" +
                               c.where + ")",
                           "Usage-Based",
                           c.cloud,
                           Decimal(c.gb),
                           "GB",
                           c.cloud,
                           c.cloud,
                           "Networking",
                           "Data transfer (" + c.cloud + ")",
                           "transfer:" + c.where,
                           "data transfer",
                           "Network",
                           c.region,
                           c.region,
                           Decimal(c.gb),
                           "GB",
                           unit_price,
                           unit_price,
                           "Standard",
                           "egress:" + c.kind,
                           team,
                           team,
                           tags.dump(),
                           "network",
                           std::string(BasisName(L.policy.basis)),
                           cost,
                           "0"});
    out += CsvLine(row);
  }
  return out;
}

std::string RenderFocusCsv(const Ledger& L,
                           const std::vector<std::pair<std::string, std::string>>& teams) {
  std::string out;
  for (const std::string& c : FocusColumns()) out += (out.empty() ? "" : ",") + c;
  out += "\n";
  const std::string from = IsoTime(L.from_s), to = IsoTime(L.to_s);
  for (const ChargeLine& l : L.lines) {
    const MeteredDevice& d = L.devices.at(l.device);
    const DeviceCost& dc = L.device_costs.at(l.device);
    const Holder* h = nullptr;
    if (auto it = L.holders.find(l.holder); it != L.holders.end()) h = it->second.get();
    const bool usage = l.category != Category::kContention;
    const std::string category = usage ? "Usage" : l.micro_usd < 0 ? "Credit" : "Adjustment";
    const std::string cost = Decimal(static_cast<double>(l.micro_usd) / 1e6);
    const std::string provider = d.cloud.empty() ? "unknown" : d.cloud;
    std::string who = h != nullptr ? (h->pod.empty() ? h->key : h->namespace_ + "/" + h->pod)
                                   : "nobody (unallocated)";
    std::string desc;
    switch (l.category) {
      case Category::kBase:
        desc = "GPU time held by " + who;
        break;
      case Category::kIdleAllocated:
        desc = "idle share of GPU time held by " + who;
        break;
      case Category::kIdleUnallocated:
        desc = "GPU time nobody held";
        break;
      case Category::kIdleShare:
        desc = "idle GPU time handed to " + who;
        break;
      case Category::kContention:
        desc = l.micro_usd < 0 ? "credit for time " + who + " lost to contention"
                               : "charge to " + who + " for contention it caused";
        break;
    }
    desc += " on " + d.key;
    json tags = json::object();
    if (h != nullptr && l.holder > 0) {
      auto put = [&](const char* k, const std::string& v) {
        if (!v.empty()) tags[std::string("gpufleet/") + k] = v;
      };
      put("team", TeamOf(*h, teams));
      put("namespace", h->namespace_);
      put("pod", h->pod);
      put("container", h->container);
      put("workload", h->workload);
      put("slurm_job", h->slurm_job);
      put("slurm_user", h->slurm_user);
      put("slurm_account", h->slurm_account);
    } else if (h != nullptr) {
      tags["gpufleet/team"] = h->team;
    }
    tags["gpufleet/gpu_model"] = d.model;
    std::string team = h != nullptr ? (l.holder > 0 ? TeamOf(*h, teams) : h->team) : "";
    double unit_price = dc.price.usd_per_gpu_hour;
    std::string sku = !dc.price.instance_type.empty()
                          ? dc.price.instance_type
                          : "gpu:" + (dc.price.gpu.empty() ? d.model : dc.price.gpu);
    std::vector<std::string> row = FocusRowStart(cost, from, to);
    row.insert(row.end(), {category,
                           "",
                           desc,
                           usage ? "Usage-Based" : "One-Time",
                           provider == "onprem" ? "on-premises" : provider,
                           usage ? Decimal(l.gpu_hours) : "",
                           usage ? "GPU-Hours" : "",
                           provider,
                           provider,
                           "Compute",
                           "GPU compute (" + provider + ")",
                           d.key,
                           d.model + " on " + d.node,
                           d.partition_kind.empty() ? "GPU" : "GPU partition",
                           d.region,
                           d.region,
                           usage ? Decimal(l.gpu_hours) : "",
                           usage ? "GPU-Hours" : "",
                           usage ? Decimal(unit_price) : "",
                           usage ? Decimal(unit_price) : "",
                           usage ? PricingCategory(dc.price.pricing) : "",
                           usage ? sku : "",
                           team,
                           team,
                           tags.dump(),
                           std::string(CategoryName(l.category)),
                           std::string(BasisName(L.policy.basis)),
                           Decimal(static_cast<double>(l.allocation_micro) / 1e6),
                           Decimal(l.lost_gpu_hours)});
    out += CsvLine(row);
  }
  out += FocusNetworkRows(L, teams, from, to);
  return out;
}

StatusOr<std::string> RenderOpenCostAllocation(
    const Ledger& allocation, const Ledger& usage, const std::string& aggregate, bool include_idle,
    const std::vector<std::pair<std::string, std::string>>& teams) {
  std::string dim;
  if (aggregate == "namespace" || aggregate == "pod" || aggregate == "node" ||
      aggregate == "team") {
    dim = aggregate;
  } else if (aggregate == "label:team") {
    dim = "team";
  } else if (aggregate == "controller") {
    dim = "workload";
  } else if (aggregate == "cluster") {
    dim = "cloud";
  } else {
    return InvalidArgumentError(
        "aggregate must be namespace, pod, node, cluster, controller, team "
        "or label:team, got '" +
        aggregate + "'");
  }
  ASSIGN_OR_RETURN(CostReport a, BuildReport(allocation, {dim}, teams));
  ASSIGN_OR_RETURN(CostReport u, BuildReport(usage, {dim}, teams));
  std::map<std::string, const CostRow*> usage_rows;
  for (const CostRow& r : u.rows) usage_rows[r.key[0]] = &r;
  const double minutes = static_cast<double>(allocation.to_s - allocation.from_s) / 60;
  json window = {{"start", IsoTime(allocation.from_s)}, {"end", IsoTime(allocation.to_s)}};
  json set = json::object();
  for (const CostRow& r : a.rows) {
    std::string name = r.key[0];
    bool idle = name == "(unallocated)";
    if (idle && !include_idle) continue;
    if (idle) name = "__idle__";
    auto usd = [](int64_t micro) { return Round5(static_cast<double>(micro) / 1e6); };
    double gpu_count = minutes > 0 ? r.gpu_hours / (minutes / 60) : 0;
    double efficiency = 0;
    if (auto it = usage_rows.find(r.key[0]); it != usage_rows.end() && r.allocation_micro > 0) {
      efficiency =
          static_cast<double>(it->second->base_micro) / static_cast<double>(r.allocation_micro);
    }
    json props = json::object();
    if (!idle)
      props[aggregate == "label:team" ? "labels"
            : dim == "workload"       ? "controller"
                                      : dim] =
          aggregate == "label:team" ? json{{"team", r.key[0]}} : json(r.key[0]);
    set[name] = {{"name", name},
                 {"properties", props},
                 {"window", window},
                 {"start", IsoTime(allocation.from_s)},
                 {"end", IsoTime(allocation.to_s)},
                 {"minutes", Round5(minutes)},
                 {"gpuCount", Round5(gpu_count)},
                 {"gpuRequestAverage", Round5(gpu_count)},
                 {"gpuUsageAverage", Round5(gpu_count * efficiency)},
                 {"gpuHours", Round5(idle ? r.idle_gpu_hours : r.gpu_hours)},
                 {"gpuCost", usd(idle ? r.idle_micro : r.allocation_micro)},
                 {"gpuCostAdjustment", usd(r.contention_micro)},
                 {"gpuCostIdle", usd(idle ? 0 : r.idle_micro)},
                 {"gpuEfficiency", Round5(efficiency)},
                 {"cpuCores", 0},
                 {"cpuCoreHours", 0},
                 {"cpuCost", 0},
                 {"cpuCostIdle", 0},
                 {"ramByteHours", 0},
                 {"ramCost", 0},
                 {"ramCostIdle", 0},
                 {"networkCost", 0},
                 {"networkCrossZoneCost", 0},
                 {"networkCrossRegionCost", 0},
                 {"networkInternetCost", 0},
                 {"loadBalancerCost", 0},
                 {"pvCost", 0},
                 {"sharedCost", 0},
                 {"externalCost", 0},
                 {"totalCost", usd(r.total_micro)},
                 {"totalEfficiency", Round5(efficiency)}};
  }
  json out = {{"code", 200}, {"status", "success"}, {"data", json::array({set})}};
  return out.dump() + "\n";
}

}  // namespace gpufleet::cost
