// PriceBook: what one device costs per hour, from the public catalog and a
// site's overrides (a TOML file; docs/cost.md has the format):
//
//   [host_split]   present: split the host's CPU and memory off instance
//                  prices (price_catalog.h), at usd_per_vcpu_hour /
//                  usd_per_gib_hour (default OpenCost's); absent: GPUs
//                  carry the whole instance price
//   [teams]        namespace = "team"; [owners] "node-glob*" = "team"
//   [[budget]]     team = "research", usd_per_month = 20000 (one per team)
//   [[transfer]]   bytes a job moved across regions or clouds (network.h)
//   [[node]]       match = "aws-h100-*" (glob on the node name; optional
//                  cloud / region / gpu filters), pricing = on_demand | spot |
//                  committed | negotiated | onprem, and then
//                  - instance_type: which catalog offer (default: the
//                    largest offer of the device's GPU in its cloud/region);
//                  - discount: committed-use discount off on-demand (0-1);
//                  - usd_per_gpu_hour + source + date: a negotiated rate;
//                  - onprem: capital_usd_per_gpu, depreciation_years,
//                    usd_per_kwh (times measured energy), optional
//                    overhead_usd_per_gpu_hour.
//
// The first [[node]] rule that matches a device wins; a device no rule
// matches is priced on demand from the catalog. Every price carries its
// source and date. A rule naming a GPU model, cloud or region the catalog
// does not know (and no rate of its own) is an error naming file, line and
// field; a device that cannot be priced is NotFound naming the device.
//
// Thread safety: immutable after Load; Resolve is const and safe to share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "cost/network.h"
#include "cost/price_catalog.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::cost {

enum class Pricing { kOnDemand, kSpot, kCommitted, kNegotiated, kOnPrem };
std::string_view PricingName(Pricing p);

// What a device is, as far as pricing goes (from its canonical labels).
struct PricedDevice {
  std::string node;
  std::string cloud;
  std::string region;
  std::string model;  // the device's model label or a hardware key
};

struct DevicePrice {
  double usd_per_gpu_hour = 0;  // fixed part (rent, or depreciation + overhead)
  double usd_per_kwh = 0;       // on-premises: times measured energy; 0 in clouds
  Pricing pricing = Pricing::kOnDemand;
  std::string gpu;            // hardware key
  std::string instance_type;  // catalog offer, "" for negotiated / on-prem rates
  std::string source;         // catalog file @ commit, or the site file:line
  std::string date;           // catalog snapshot, or the rule's date
  std::string basis;          // how the figure was made, for humans
};

// [[budget]]: a monthly budget for one team (as the report groups by team).
struct Budget {
  std::string team;
  double usd_per_month = 0;
  std::string where;  // "prices.toml:40"
};

struct NodeRule {
  std::string match = "*";
  std::string cloud, region, gpu;  // optional filters
  Pricing pricing = Pricing::kOnDemand;
  std::string instance_type;
  double discount = 0;
  std::optional<double> usd_per_gpu_hour;
  double capital_usd_per_gpu = 0;
  double depreciation_years = 0;
  double usd_per_kwh = 0;
  double overhead_usd_per_gpu_hour = 0;
  std::string source;  // given, or "file:line"
  std::string date;
  std::string where;  // "prices.toml:12"
};

class PriceBook {
 public:
  // No overrides: the catalog's on-demand prices.
  explicit PriceBook(const PriceCatalog& catalog = PriceCatalog::Default(),
                     const HardwareCatalog& hardware = HardwareCatalog::Default());
  static StatusOr<PriceBook> Parse(std::string_view toml, std::string_view origin,
                                   const PriceCatalog& catalog = PriceCatalog::Default(),
                                   const HardwareCatalog& hardware = HardwareCatalog::Default());
  static StatusOr<PriceBook> Load(const std::string& path);

  StatusOr<DevicePrice> Resolve(const PricedDevice& device) const;
  const std::vector<NodeRule>& rules() const { return rules_; }
  // [teams]: Kubernetes namespace -> team (for holders without a
  // workload_team label). [owners]: node glob -> team that owns the idle
  // capacity of those nodes (idle rule "owner").
  const std::vector<std::pair<std::string, std::string>>& teams() const { return teams_; }
  const std::vector<std::pair<std::string, std::string>>& owners() const { return owners_; }
  const std::vector<Budget>& budgets() const { return budgets_; }
  const std::vector<Transfer>& transfers() const { return transfers_; }
  // Egress prices: the site's [[egress]] rows over the embedded table.
  const EgressTable& egress() const { return egress_; }

 private:
  StatusOr<DevicePrice> FromRule(const NodeRule& rule, const PricedDevice& device,
                                 const std::string& gpu) const;

  const PriceCatalog* catalog_;
  const HardwareCatalog* hardware_;
  HostSplitRates split_;
  std::vector<NodeRule> rules_;
  std::vector<std::pair<std::string, std::string>> teams_;
  std::vector<std::pair<std::string, std::string>> owners_;
  std::vector<Budget> budgets_;
  std::vector<Transfer> transfers_;
  EgressTable egress_ = EgressTable::Default();
};

}  // namespace gpufleet::cost
