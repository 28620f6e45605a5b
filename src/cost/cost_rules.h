// The cost ledger as Prometheus / vmalert recording rules (`gpufleet rules
// export --cost`), so a distributed engine charges GPU time where the
// canonical series live, beyond the server's retention.
//
// Inputs: the canonical series and the price series the server forwards
// once a minute (gpufleet_cost_device_usd_per_hour, and
// gpufleet_cost_device_usd_per_kwh for on-premises devices). Evaluated every
// minute, the rules record per device and holder what the built-in ledger
// charges on the allocation basis with idle rule "none" and contention
// "off":
//
//   gpufleet:device_metered:bool       1 for a device that reported gpu_up in the last minute
//   gpufleet:device_cost_usd_per_hour  its price (x partition fraction) + measured kW x $/kWh
//   gpufleet:holder_present:bool       1 per holder (gpu_workload_info with a pod or Slurm job)
//   gpufleet:holder_weight:ratio       each holder's share: by its own mean utilization
//                                      (gpu_process_utilization_ratio) where reported, else equal
//   gpufleet:holder_cost_usd_per_hour  share x device cost, with the holder's labels
//   gpufleet:device_idle_cost_usd_per_hour  devices no one holds
//   namespace:gpufleet_cost_usd_per_hour:sum, team:..., slurm_account:...
//
// Dollars of a period: sum_over_time(rule[period]) / 60 (one sample a
// minute). Differences from the built-in ledger, by construction: a device
// where only some holders report utilization splits unevenly here (the
// ledger splits equally); minutes are the engine's evaluation steps, not
// the ledger's calendar minutes; devices are joined on (node, gpu_uuid,
// partition_id), so a source without gpu_uuid is not priced.
//
// Thread safety: pure function.
#pragma once

#include <string>

namespace gpufleet::cost {

std::string ExportCostRules();

}  // namespace gpufleet::cost
