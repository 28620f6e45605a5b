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
// and the usage bases' charges (the ledger's `--basis usage` / `usage-mean`
// base lines; the rest of the holder's cost is its allocated idle):
//
//   gpufleet:device_usage:ratio        the minute's mean utilization, 1 without a reading
//   gpufleet:device_usage_mean:ratio   (utilization + bandwidth utilization) / 2, else as above
//   gpufleet:holder_usage_cost_usd_per_hour, gpufleet:holder_usage_mean_cost_usd_per_hour
//   namespace: / team:gpufleet_usage_cost_usd_per_hour:sum, ..._usage_mean_...
//
// Not in the rules: HAMi slices (a share is a label, which PromQL cannot turn
// into a value), contention transfers (incidents are not series) and
// network charges (declared transfers): the built-in ledger and
// `cost report --from-store` charge those.
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

#include "core/status.h"

namespace gpufleet::cost {

std::string ExportCostRules();

// Recording rules that make gpu_workload_tokens_total, per serving pod, from
// the token counters serving engines publish on their own /metrics:
//
//   vLLM   vllm:prompt_tokens_total, vllm:generation_tokens_total
//   SGLang sglang:prompt_tokens_total, sglang:generation_tokens_total
//
// (label model_name; docs.vllm.ai "Production Metrics", docs.sglang.io
// "Production Metrics"). Per engine and pod: the largest counter among the
// tensor- and pipeline-parallel ranks of one engine (they see the same
// tokens), prompt + generation, summed over the pod's other series (data-
// parallel engines serve different requests). `pod_label` names the target
// label that carries the serving pod's name (Kubernetes service discovery
// usually relabels __meta_kubernetes_pod_name to `pod`); it becomes
// workload_pod, the label the cost ledger meets a job's pods by. A Prometheus
// that scrapes the engines evaluates the rules and remote-writes
// gpu_workload_tokens_total to gpufleet server, whose work meter turns it
// into $/Mtoken (docs/cost.md).
// InvalidArgument when `pod_label` is not a Prometheus label name.
StatusOr<std::string> ExportServingTokenRules(const std::string& pod_label);

}  // namespace gpufleet::cost
