// Fleet overview, node and job dashboards: the panels AMD's
// device-metrics-exporter dashboards (Overview, Compute Node, GPU, Job) and
// NVIDIA's dcgm-exporter dashboard show, over the canonical metrics of every
// vendor at once (docs/dashboards.md maps them one by one).
#include "dashboards/dashboard_parts.h"

namespace gpufleet::dashboards {
namespace {

const std::string kDev(kDeviceLegend);

// `f(Sel(metric)[window])` restricted to $team: range functions need the
// plain selector inside.
std::string Over(std::string_view fn, std::string_view metric, std::string_view window,
                 std::string_view extra = "") {
  return Team(std::string(fn) + "(" + Sel(metric, extra) + "[" + std::string(window) + "])");
}

}  // namespace

nlohmann::json FleetOverview(const Context& ctx) {
  DashboardBuilder b("gpufleet-overview", "gpufleet / Fleet overview",
                     "Every vendor's GPUs in canonical units (data/metrics.toml): health, "
                     "allocation, usage, memory, power, temperature, PCIe and errors.",
                     {"gpufleet"});
  AddFleetVariables(b);
  b.AddRow("Fleet now");
  b.AddPanel(Stat("GPUs", "Devices (and partitions) reporting gpu_up.", "none",
                  "count(" + Dev("gpu_up") + ")"));
  Panel down = Stat("GPUs down", "Devices whose last collection failed (gpu_up 0); the All GPUs "
                    "table gives the reason label.", "none",
                    "count(" + Dev("gpu_up") + " == 0) or vector(0)");
  down.has_threshold = true;
  down.threshold = 1;
  b.AddPanel(down);
  b.AddPanel(Stat("GPUs per vendor", "", "none", "count by (vendor) (" + Dev("gpu_up") + ")",
                  "{{vendor}}"));
  b.AddPanel(Stat("Allocated GPUs", "Devices with at least one workload bound (gpu_workload_info).",
                  "none",
                  "count(count by (gpu_uuid, partition_id) (" + Dev("gpu_workload_info") + "))"));
  b.AddPanel(Stat("Workloads", "Distinct pods bound to the selected devices.", "none",
                  "count(count by (workload_namespace, workload_pod) (" +
                      Dev("gpu_workload_info") + "))"));
  b.AddPanel(Stat("Power now", ctx.Describe("gpu_power_watts"), "watt",
                  "sum(" + Dev("gpu_power_watts") + ")"));
  b.AddPanel(Stat("Memory in use", "Used over total device memory, all vendors in bytes.",
                  "percentunit",
                  "sum(" + Dev("gpu_memory_used_bytes") + ") / sum(" +
                      Dev("gpu_memory_total_bytes") + ")"));
  b.AddPanel(Stat("Energy in range", ctx.Describe("gpu_energy_joules_total"), "joule",
                  "sum(" + Over("increase", "gpu_energy_joules_total", "$__range") + ")"));
  b.AddPanel(Stat("Throttled GPUs", ctx.Describe("gpu_throttle_active"), "none",
                  "count(" + Dev("gpu_throttle_active") + " == 1) or vector(0)"));
  b.AddPanel(TopK("Top 5 utilization", ctx.Describe("gpu_utilization_ratio"), "percentunit",
                  "topk(5, " + Dev("gpu_utilization_ratio") + ")"));
  b.AddPanel(TopK("Top 5 memory used", ctx.Describe("gpu_memory_used_bytes"), "bytes",
                  "topk(5, " + Dev("gpu_memory_used_bytes") + ")"));

  b.AddRow("All vendors, one unit");
  b.AddPanel(Series("Utilization by vendor", ctx.Describe("gpu_utilization_ratio"), "percentunit",
                    {Range("avg by (vendor) (" + Dev("gpu_utilization_ratio") + ")",
                           "{{vendor}}")}));
  b.AddPanel(Series("Utilization of allocated GPUs", "Mean utilization of devices that have a "
                    "workload bound.", "percentunit",
                    {Range("avg by (vendor) (" + Dev("gpu_utilization_ratio") +
                               " and on (gpu_uuid, partition_id) gpu_workload_info)",
                           "{{vendor}}")}));
  b.AddPanel(Series("Memory in use by vendor", "Used over total device memory.", "percentunit",
                    {Range("sum by (vendor) (" + Dev("gpu_memory_used_bytes") +
                               ") / sum by (vendor) (" + Dev("gpu_memory_total_bytes") + ")",
                           "{{vendor}}")}));
  b.AddPanel(Series("Power by vendor", ctx.Describe("gpu_power_watts"), "watt",
                    {Range("sum by (vendor) (" + Dev("gpu_power_watts") + ")", "{{vendor}}")}));
  b.AddPanel(Series("Temperature by vendor and sensor", ctx.Describe("gpu_temperature_celsius"),
                    "celsius",
                    {Range("avg by (vendor, sensor) (" + Dev("gpu_temperature_celsius") + ")",
                           "{{vendor}} {{sensor}}")}));
  b.AddPanel(Series("PCIe throughput by vendor", ctx.Describe("gpu_pcie_transmit_bytes_total"),
                    "Bps",
                    {Range("sum by (vendor) (" +
                               Over("rate", "gpu_pcie_transmit_bytes_total", "$__rate_interval") +
                               ")",
                           "{{vendor}} transmit"),
                     Range("sum by (vendor) (" +
                               Over("rate", "gpu_pcie_receive_bytes_total", "$__rate_interval") +
                               ")",
                           "{{vendor}} receive")}));
  b.AddPanel(Series("Interconnect throughput by link type",
                    ctx.Describe("gpu_interconnect_transmit_bytes_total"), "Bps",
                    {Range("sum by (vendor, link_type) (" +
                               Over("rate", "gpu_interconnect_transmit_bytes_total",
                                    "$__rate_interval") +
                               ")",
                           "{{vendor}} {{link_type}}")}));
  b.AddPanel(Series("ECC errors and PCIe replays", ctx.Describe("gpu_ecc_errors_total"), "none",
                    {Range("sum by (vendor, severity) (" +
                               Over("increase", "gpu_ecc_errors_total", "$__rate_interval") + ")",
                           "{{vendor}} ECC {{severity}}"),
                     Range("sum by (vendor) (" +
                               Over("increase", "gpu_pcie_replays_total", "$__rate_interval") +
                               ")",
                           "{{vendor}} PCIe replays")}));
  b.AddPanel(Series("Throttling by reason", ctx.Describe("gpu_throttle_active"), "none",
                    {Range("sum by (vendor, reason) (" + Dev("gpu_throttle_active") + ")",
                           "{{vendor}} {{reason}}")}));
  b.AddPanel(Table("All GPUs", ctx.Describe("gpu_up"), {Dev("gpu_up")}));
  return b.Build();
}

nlohmann::json NodeDashboard(const Context& ctx) {
  DashboardBuilder b("gpufleet-node", "gpufleet / Node",
                     "One line per device of the selected nodes: usage, memory, power, "
                     "temperatures, clocks, PCIe, interconnect, errors and inventory.",
                     {"gpufleet"});
  AddFleetVariables(b);
  // One device or several of the selected nodes (AMD's GPU dashboard).
  b.AddVariable({"gpu", "GPU",
                 "gpu_up{vendor=~\"$vendor\",cloud=~\"$cloud\",model=~\"$model\",node=~\"$node\"}",
                 "gpu_uuid"});
  const std::string kGpu = "gpu_uuid=~\"$gpu\"";
  b.AddRow("Node now");
  b.AddPanel(Stat("GPUs", "", "none", "count(" + Dev("gpu_up", kGpu) + ")"));
  b.AddPanel(Stat("Power now", "", "watt", "sum(" + Dev("gpu_power_watts", kGpu) + ")"));
  b.AddPanel(Stat("Memory in use", "", "percentunit",
                  "sum(" + Dev("gpu_memory_used_bytes", kGpu) + ") / sum(" +
                      Dev("gpu_memory_total_bytes", kGpu) + ")"));
  b.AddPanel(Stat("Energy in range", "", "joule",
                  "sum(" + Over("increase", "gpu_energy_joules_total", "$__range", kGpu) + ")"));
  b.AddPanel(Stat("ECC errors in range", ctx.Describe("gpu_ecc_errors_total"), "none",
                  "sum(" + Over("increase", "gpu_ecc_errors_total", "$__range", kGpu) + ")"));
  b.AddPanel(Stat("PCIe replays in range", ctx.Describe("gpu_pcie_replays_total"), "none",
                  "sum(" + Over("increase", "gpu_pcie_replays_total", "$__range", kGpu) + ")"));

  b.AddRow("Per device");
  for (const char* m : {"gpu_utilization_ratio", "gpu_sm_active_ratio", "gpu_sm_occupancy_ratio",
                        "gpu_tensor_active_ratio", "gpu_memory_bandwidth_utilization_ratio"}) {
    b.AddPanel(Series(Title(m), ctx.Describe(m), ctx.Unit(m),
                      {Range(Dev(m, kGpu), kDev)}));
  }
  b.AddPanel(Series("Memory used and total", ctx.Describe("gpu_memory_used_bytes"), "bytes",
                    {Range(Dev("gpu_memory_used_bytes", kGpu), kDev + " used"),
                     Range(Dev("gpu_memory_total_bytes", kGpu), kDev + " total")}));
  b.AddPanel(Series("Power and limit", ctx.Describe("gpu_power_watts"), "watt",
                    {Range(Dev("gpu_power_watts", kGpu), kDev),
                     Range(Dev("gpu_power_limit_watts", kGpu), kDev + " limit")}));
  b.AddPanel(Series("Temperatures", ctx.Describe("gpu_temperature_celsius"), "celsius",
                    {Range(Dev("gpu_temperature_celsius", kGpu), kDev + " {{sensor}}")}));
  b.AddPanel(Series("Clocks", ctx.Describe("gpu_clock_hertz"), "hertz",
                    {Range(Dev("gpu_clock_hertz", kGpu), kDev + " {{domain}}")}));
  b.AddPanel(Series("PCIe throughput", ctx.Describe("gpu_pcie_transmit_bytes_total"), "Bps",
                    {Range(Over("rate", "gpu_pcie_transmit_bytes_total", "$__rate_interval", kGpu),
                           kDev + " transmit"),
                     Range(Over("rate", "gpu_pcie_receive_bytes_total", "$__rate_interval", kGpu),
                           kDev + " receive")}));
  b.AddPanel(Series("Interconnect throughput",
                    ctx.Describe("gpu_interconnect_transmit_bytes_total"), "Bps",
                    {Range("sum by (node, pci_bus_id, partition_id, link_type) (" +
                               Over("rate", "gpu_interconnect_transmit_bytes_total", "$__rate_interval", kGpu) +
                               ")",
                           kDev + " {{link_type}}")}));
  b.AddPanel(Series("Time throttled", ctx.Describe("gpu_throttle_seconds_total"), "percentunit",
                    {Range(Over("rate", "gpu_throttle_seconds_total", "$__rate_interval", kGpu),
                           kDev + " {{reason}}")}));
  b.AddRow("Inventory and health");
  b.AddPanel(Table("Devices and software", ctx.Describe("gpu_info"), {Dev("gpu_info", kGpu)}, 12));
  b.AddPanel(Table("Health", ctx.Describe("gpu_up"), {Dev("gpu_up", kGpu)}, 12));
  return b.Build();
}

nlohmann::json JobDashboard(const Context& ctx) {
  DashboardBuilder b("gpufleet-job", "gpufleet / Job",
                     "The devices one workload (pod) holds: count, nodes, power, memory, the "
                     "performance counters and the workload's own step time.",
                     {"gpufleet"});
  AddFleetVariables(b);
  b.AddVariable({"pod", "Workload (pod)",
                 "gpu_workload_info{vendor=~\"$vendor\",cloud=~\"$cloud\",node=~\"$node\"}",
                 "workload_pod"});
  // The job's devices: every series restricted to devices bound to $pod.
  auto job = [](const std::string& expr) {
    return "(" + expr +
           " and on (gpu_uuid, partition_id) gpu_workload_info{workload_pod=~\"$pod\"})";
  };
  b.AddRow("Job now");
  b.AddPanel(Stat("GPUs", "Devices bound to the workload.", "none",
                  "count(" + job(Dev("gpu_up")) + ")"));
  b.AddPanel(Stat("Nodes", "", "none", "count(count by (node) (" + job(Dev("gpu_up")) + "))"));
  b.AddPanel(Stat("Power now", "", "watt", "sum(" + job(Dev("gpu_power_watts")) + ")"));
  b.AddPanel(Stat("Memory in use", "", "percentunit",
                  "sum(" + job(Dev("gpu_memory_used_bytes")) + ") / sum(" +
                      job(Dev("gpu_memory_total_bytes")) + ")"));
  b.AddPanel(Stat("Energy in range", "", "joule",
                  "sum(" + job(Over("increase", "gpu_energy_joules_total", "$__range")) + ")"));
  b.AddPanel(Stat("Mean utilization", ctx.Describe("gpu_utilization_ratio"), "percentunit",
                  "avg(" + job(Dev("gpu_utilization_ratio")) + ")"));
  b.AddPanel(TopK("Top 5 utilization", "", "percentunit",
                  "topk(5, " + job(Dev("gpu_utilization_ratio")) + ")"));
  b.AddPanel(TopK("Top 5 memory used", "", "bytes",
                  "topk(5, " + job(Dev("gpu_memory_used_bytes")) + ")"));
  b.AddPanel(Series("Step time", ctx.Describe("gpu_workload_step_duration_seconds"), "s",
                    {Range(Sel("gpu_workload_step_duration_seconds", "workload_pod=~\"$pod\""),
                           "{{workload_name}} " + kDev)},
                    12));

  b.AddRow("Performance counters");
  for (const char* m : {"gpu_utilization_ratio", "gpu_sm_active_ratio", "gpu_sm_occupancy_ratio",
                        "gpu_tensor_active_ratio", "gpu_memory_bandwidth_utilization_ratio",
                        "gpu_graphics_engine_active_ratio"}) {
    b.AddPanel(Series(Title(m), ctx.Describe(m), ctx.Unit(m),
                      {Range(job(Dev(m)), kDev)}));
  }
  b.AddPanel(Series("Power", "", "watt", {Range(job(Dev("gpu_power_watts")), kDev)}));
  b.AddPanel(Series("Temperature", "", "celsius",
                    {Range("avg by (sensor) (" + job(Dev("gpu_temperature_celsius")) + ")",
                           "{{sensor}}")}));
  b.AddPanel(Series("PCIe throughput", "", "Bps",
                    {Range("sum(" +
                               job(Over("rate", "gpu_pcie_transmit_bytes_total",
                                        "$__rate_interval")) +
                               ")",
                           "transmit"),
                     Range("sum(" +
                               job(Over("rate", "gpu_pcie_receive_bytes_total",
                                        "$__rate_interval")) +
                               ")",
                           "receive")}));
  b.AddPanel(Table("GPUs of the job", "", {job(Dev("gpu_up"))}));
  return b.Build();
}

}  // namespace gpufleet::dashboards
