#include "cost/price_book.h"

#include <fnmatch.h>

#include <cstdio>

#include "core/file_util.h"
#include "core/format.h"
#include "core/toml_reader.h"

namespace gpufleet::cost {
namespace {

constexpr double kHoursPerYear = 8766;  // 365.25 days

StatusOr<Pricing> ParsePricing(const TomlReader& r) {
  std::string s = "on_demand";
  RETURN_IF_ERROR(r.Read("pricing", s));
  if (s == "on_demand") return Pricing::kOnDemand;
  if (s == "spot") return Pricing::kSpot;
  if (s == "committed") return Pricing::kCommitted;
  if (s == "negotiated") return Pricing::kNegotiated;
  if (s == "onprem") return Pricing::kOnPrem;
  return r.FieldError(*r.Get("pricing"), "pricing",
                      "must be on_demand, spot, committed, negotiated or onprem, got '" + s + "'");
}

}  // namespace

std::string_view PricingName(Pricing p) {
  switch (p) {
    case Pricing::kOnDemand:
      return "on_demand";
    case Pricing::kSpot:
      return "spot";
    case Pricing::kCommitted:
      return "committed";
    case Pricing::kNegotiated:
      return "negotiated";
    case Pricing::kOnPrem:
      return "onprem";
  }
  return "on_demand";
}

PriceBook::PriceBook(const PriceCatalog& catalog, const HardwareCatalog& hardware)
    : catalog_(&catalog), hardware_(&hardware) {}

StatusOr<PriceBook> PriceBook::Load(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return Parse(text, path);
}

StatusOr<PriceBook> PriceBook::Parse(std::string_view toml, std::string_view origin,
                                     const PriceCatalog& catalog, const HardwareCatalog& hardware) {
  PriceBook book(catalog, hardware);
  ASSIGN_OR_RETURN(toml::table root, ParseToml(toml, origin));
  TomlReader r(root, origin);
  RETURN_IF_ERROR(
      r.CheckKeys({"host_split", "node", "teams", "owners", "budget", "transfer", "egress"}));
  ASSIGN_OR_RETURN(book.transfers_, ParseTransfers(r));
  ASSIGN_OR_RETURN(EgressTable site_egress, EgressTable::ParseTables(r));
  book.egress_ = EgressTable::Overlay(EgressTable::Default(), site_egress);
  RETURN_IF_ERROR(r.ForEachTable("budget", [&](const TomlReader& b) -> Status {
    RETURN_IF_ERROR(b.CheckKeys({"team", "usd_per_month"}));
    Budget budget;
    budget.where = TomlPlace(b.origin(), b.table());
    RETURN_IF_ERROR(b.Require("team", budget.team));
    RETURN_IF_ERROR(b.Require("usd_per_month", budget.usd_per_month, 0.01, 1e12));
    for (const Budget& other : book.budgets_) {
      if (other.team == budget.team) {
        return b.FieldError(
            *b.Get("team"), "team",
            "a second budget for '" + budget.team + "' (first at " + other.where + ")");
      }
    }
    book.budgets_.push_back(std::move(budget));
    return OkStatus();
  }));
  for (auto [key, out] : {std::pair{"teams", &book.teams_}, std::pair{"owners", &book.owners_}}) {
    ASSIGN_OR_RETURN(std::optional<TomlReader> t, r.Table(key));
    if (!t.has_value()) continue;
    for (const auto& [k, v] : t->table()) {
      if (!v.is_string()) return t->FieldError(v, k.str(), "must be a string (a team name)");
      out->emplace_back(std::string(k.str()), std::string(*v.value<std::string>()));
    }
  }
  ASSIGN_OR_RETURN(std::optional<TomlReader> split, r.Table("host_split"));
  if (split.has_value()) {
    book.split_.enabled = true;
    RETURN_IF_ERROR(split->CheckKeys({"enabled", "usd_per_vcpu_hour", "usd_per_gib_hour",
                                      "spot_usd_per_vcpu_hour", "spot_usd_per_gib_hour"}));
    RETURN_IF_ERROR(split->Read("enabled", book.split_.enabled));
    RETURN_IF_ERROR(split->Read("usd_per_vcpu_hour", book.split_.usd_per_vcpu_hour, 0.0, 100.0));
    RETURN_IF_ERROR(split->Read("usd_per_gib_hour", book.split_.usd_per_gib_hour, 0.0, 100.0));
    RETURN_IF_ERROR(
        split->Read("spot_usd_per_vcpu_hour", book.split_.spot_usd_per_vcpu_hour, 0.0, 100.0));
    RETURN_IF_ERROR(
        split->Read("spot_usd_per_gib_hour", book.split_.spot_usd_per_gib_hour, 0.0, 100.0));
  }
  RETURN_IF_ERROR(r.ForEachTable("node", [&](const TomlReader& n) -> Status {
    RETURN_IF_ERROR(
        n.CheckKeys({"match", "cloud", "region", "gpu", "pricing", "instance_type", "discount",
                     "usd_per_gpu_hour", "capital_usd_per_gpu", "depreciation_years", "usd_per_kwh",
                     "overhead_usd_per_gpu_hour", "source", "date"}));
    NodeRule rule;
    rule.where = TomlPlace(n.origin(), n.table());
    RETURN_IF_ERROR(n.Read("match", rule.match));
    RETURN_IF_ERROR(n.Read("cloud", rule.cloud));
    RETURN_IF_ERROR(n.Read("region", rule.region));
    RETURN_IF_ERROR(n.Read("gpu", rule.gpu));
    ASSIGN_OR_RETURN(rule.pricing, ParsePricing(n));
    RETURN_IF_ERROR(n.Read("instance_type", rule.instance_type));
    RETURN_IF_ERROR(n.Read("discount", rule.discount, 0.0, 0.99));
    if (n.Has("usd_per_gpu_hour")) {
      double v = 0;
      RETURN_IF_ERROR(n.Read("usd_per_gpu_hour", v, 0.0, 1e4));
      rule.usd_per_gpu_hour = v;
    }
    RETURN_IF_ERROR(n.Read("capital_usd_per_gpu", rule.capital_usd_per_gpu, 0.0, 1e8));
    RETURN_IF_ERROR(n.Read("depreciation_years", rule.depreciation_years, 0.0, 50.0));
    RETURN_IF_ERROR(n.Read("usd_per_kwh", rule.usd_per_kwh, 0.0, 100.0));
    RETURN_IF_ERROR(n.Read("overhead_usd_per_gpu_hour", rule.overhead_usd_per_gpu_hour, 0.0, 1e4));
    RETURN_IF_ERROR(n.Read("source", rule.source));
    RETURN_IF_ERROR(n.Read("date", rule.date));

    if (!rule.gpu.empty() && hardware.Find(rule.gpu) == nullptr) {
      return n.FieldError(*n.Get("gpu"), "gpu",
                          "unknown GPU model '" + rule.gpu + "' (not in data/hardware.toml)");
    }
    if (rule.pricing == Pricing::kOnPrem) {
      if (rule.capital_usd_per_gpu <= 0 || rule.depreciation_years < 0.1) {
        return n.Error(n.table(),
                       "pricing = \"onprem\" needs capital_usd_per_gpu > 0 and "
                       "depreciation_years of at least 0.1");
      }
    } else if (rule.pricing == Pricing::kNegotiated && !rule.usd_per_gpu_hour.has_value()) {
      return n.Missing("usd_per_gpu_hour");
    }
    if (rule.usd_per_gpu_hour.has_value() && rule.source.empty()) {
      return n.Error(*n.Get("usd_per_gpu_hour"),
                     "a site rate needs 'source' (who quoted it) and 'date'");
    }
    // A rule that takes its price from the catalog must name places it has.
    bool from_catalog = !rule.usd_per_gpu_hour.has_value() && rule.pricing != Pricing::kOnPrem;
    if (from_catalog && !rule.cloud.empty()) {
      bool cloud_known = false, region_known = rule.region.empty(),
           type_known = rule.instance_type.empty();
      for (const CloudOffer& o : catalog.offers()) {
        if (o.cloud != rule.cloud) continue;
        cloud_known = true;
        if (!rule.region.empty() && o.region == rule.region) region_known = true;
        if (!rule.instance_type.empty() && o.instance_type == rule.instance_type) type_known = true;
      }
      if (!cloud_known) {
        return n.FieldError(*n.Get("cloud"), "cloud",
                            "the price catalog has no cloud '" + rule.cloud +
                                "' (give usd_per_gpu_hour with source and date)");
      }
      if (!region_known) {
        return n.FieldError(*n.Get("region"), "region",
                            "the price catalog has no region '" + rule.region + "' in " +
                                rule.cloud + " (give usd_per_gpu_hour with source and date)");
      }
      if (!type_known) {
        return n.FieldError(
            *n.Get("instance_type"), "instance_type",
            "the price catalog has no instance type '" + rule.instance_type + "' in " + rule.cloud);
      }
    }
    if (rule.source.empty()) rule.source = rule.where;
    book.rules_.push_back(std::move(rule));
    return OkStatus();
  }));
  return book;
}

StatusOr<DevicePrice> PriceBook::Resolve(const PricedDevice& device) const {
  const GpuModelSpec* spec = hardware_->Find(device.model);
  std::string gpu = spec != nullptr ? spec->key : std::string();
  for (const NodeRule& rule : rules_) {
    if (fnmatch(rule.match.c_str(), device.node.c_str(), 0) != 0) continue;
    if (!rule.cloud.empty() && rule.cloud != device.cloud) continue;
    if (!rule.region.empty() && rule.region != device.region) continue;
    if (!rule.gpu.empty() && rule.gpu != gpu) continue;
    return FromRule(rule, device, gpu);
  }
  return FromRule(NodeRule(), device, gpu);
}

StatusOr<DevicePrice> PriceBook::FromRule(const NodeRule& rule, const PricedDevice& device,
                                          const std::string& gpu) const {
  DevicePrice p;
  p.pricing = rule.pricing;
  p.gpu = gpu;
  std::string who = "device on node '" + device.node + "' (" + device.cloud + " " + device.region +
                    ", " + device.model + ")";
  if (rule.pricing == Pricing::kOnPrem) {
    p.usd_per_gpu_hour = rule.capital_usd_per_gpu / (rule.depreciation_years * kHoursPerYear) +
                         rule.overhead_usd_per_gpu_hour;
    p.usd_per_kwh = rule.usd_per_kwh;
    p.source = rule.source;
    p.date = rule.date;
    p.basis = "on-premises: $" + FormatFixed(rule.capital_usd_per_gpu, 0) + " over " +
              FormatFixed(rule.depreciation_years, 1) + " years + $" +
              FormatFixed(rule.overhead_usd_per_gpu_hour, 4) + "/h overhead, energy at $" +
              FormatFixed(rule.usd_per_kwh, 4) + "/kWh [" + rule.where + "]";
    return p;
  }
  if (rule.usd_per_gpu_hour.has_value()) {
    p.usd_per_gpu_hour = *rule.usd_per_gpu_hour * (1 - rule.discount);
    p.instance_type = rule.instance_type;
    p.source = rule.source;
    p.date = rule.date;
    p.basis = std::string(PricingName(rule.pricing)) + " site rate $" +
              FormatFixed(*rule.usd_per_gpu_hour, 4) + "/GPU-h" +
              (rule.discount > 0 ? " less " + FormatFixed(rule.discount * 100, 1) + "%" : "") +
              " [" + rule.where + "]";
    return p;
  }
  if (gpu.empty()) {
    return NotFoundError("no price for " + who +
                         ": the model is not in data/hardware.toml; add a "
                         "[[node]] rule with usd_per_gpu_hour to the prices file");
  }
  std::vector<const CloudOffer*> offers =
      catalog_->Find(device.cloud, device.region, gpu, rule.instance_type);
  bool spot = rule.pricing == Pricing::kSpot;
  for (const CloudOffer* o : offers) {
    StatusOr<GpuHourPrice> g = PriceCatalog::PerGpuHour(*o, spot, split_);
    if (!g.ok()) continue;
    p.usd_per_gpu_hour = g->usd_per_gpu_hour * (1 - rule.discount);
    p.instance_type = o->instance_type;
    p.source = o->source + " (" + o->where + ")";
    p.date = catalog_->snapshot();
    p.basis = g->basis;
    if (rule.discount > 0) {
      p.basis += ", less " + FormatFixed(rule.discount * 100, 1) + "% committed-use discount [" +
                 rule.where + "]";
    }
    return p;
  }
  return NotFoundError(
      "no price for " + who + ": the catalog has no " + (spot ? "spot" : "on-demand") + " " + gpu +
      " offer" + (rule.instance_type.empty() ? "" : " '" + rule.instance_type + "'") + " in " +
      device.cloud + " " + device.region + "; add a [[node]] rule to the prices file");
}

}  // namespace gpufleet::cost
