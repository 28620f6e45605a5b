// The canonical metric names of the remote-write load (bench/remote_write_load
// and bench/cost_meter_bench): 20 names, each sent twice per GPU (40 series).
#pragma once

#include <iterator>

namespace gpufleet::bench {

inline constexpr const char* kLoadMetrics[] = {
    "gpu_up", "gpu_power_watts", "gpu_energy_joules_total", "gpu_temperature_celsius",
    "gpu_memory_temperature_celsius", "gpu_memory_used_bytes", "gpu_memory_total_bytes",
    "gpu_utilization_ratio", "gpu_sm_active_ratio", "gpu_memory_bandwidth_utilization_ratio",
    "gpu_clock_sm_hertz", "gpu_clock_memory_hertz", "gpu_pcie_rx_bytes_total",
    "gpu_pcie_tx_bytes_total", "gpu_ecc_errors_total", "gpu_memory_copy_utilization_ratio",
    "gpu_encoder_utilization_ratio", "gpu_decoder_utilization_ratio", "gpu_fan_speed_ratio",
    "gpu_power_limit_watts"};
inline constexpr int kLoadMetricCount = static_cast<int>(std::size(kLoadMetrics));

}  // namespace gpufleet::bench
