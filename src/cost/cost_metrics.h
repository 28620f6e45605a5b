// The ledger's prices as Prometheus series on the server's /metrics, so
// Prometheus and Grafana can graph cost beside the canonical metrics:
//
//   gpufleet_cost_device_usd_per_hour{node,gpu_uuid,model,cloud,region,pricing}
//       what one metered device (GPU or partition) costs per hour now
//       (energy excluded)
//   gpufleet_cost_usd_per_effective_pflop_hour{model,cloud,region}
//       price over delivered compute: sum of the devices' prices / sum of
//       peak dense bf16 PFLOP/s (data/hardware.toml) x their measured
//       tensor activity (mean gpu_tensor_active_ratio over the last 10
//       minutes), for groups with activity > 0
//
// Devices the price book cannot price are left out (and the report names
// them). Pure functions; the caller supplies the activity means.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cost/meter.h"
#include "cost/price_book.h"

namespace gpufleet::cost {

// `tensor_activity`: detect::DeviceKey -> mean tensor activity (0-1).
std::string RenderCostMetrics(const std::vector<MeteredDevice>& devices, const PriceBook& prices,
                              const std::map<std::string, double>& tensor_activity);

}  // namespace gpufleet::cost
