// The ledger's prices as Prometheus series on the server's /metrics, so
// Prometheus and Grafana can graph cost beside the canonical metrics:
//
//   gpufleet_cost_device_usd_per_hour{node,gpu_uuid,model,cloud,region,pricing}
//       what one metered device (GPU or partition) costs per hour now
//       (energy excluded)
//   gpufleet_cost_device_usd_per_kwh{same labels}
//       what a kWh of measured energy costs, on-premises devices only
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

#include "core/labels.h"
#include "cost/meter.h"
#include "cost/price_book.h"
#include "expo/remote_write.h"

namespace gpufleet::cost {

// One priced metered device: its labels on the series above and its prices.
struct DevicePriceRow {
  const MeteredDevice* device = nullptr;  // into the caller's vector
  Labels labels;
  double fraction = 1;      // of a whole GPU (MIG / XCP partitions)
  double usd_per_hour = 0;  // the fraction's price
  double usd_per_kwh = 0;
};
std::vector<DevicePriceRow> PriceDevices(const std::vector<MeteredDevice>& devices,
                                       const PriceBook& prices);

// The device series (the first two above) as remote-write samples at
// `timestamp_ms`, for the long-term store: the server forwards them once a
// minute so that `gpufleet rules export --cost` rules can price usage there.
std::vector<RemoteWriteSeries> DevicePriceSeries(const std::vector<MeteredDevice>& devices,
                                                 const PriceBook& prices, int64_t timestamp_ms);

// `tensor_activity`: detect::DeviceKey -> mean tensor activity (0-1).
std::string RenderCostMetrics(const std::vector<MeteredDevice>& devices, const PriceBook& prices,
                              const std::map<std::string, double>& tensor_activity);

}  // namespace gpufleet::cost
