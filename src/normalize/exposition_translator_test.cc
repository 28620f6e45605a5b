#include "normalize/exposition_translator.h"

#include <gtest/gtest.h>

#include "normalize/translate.h"

namespace gpufleet {
namespace {

std::string Translate(std::string_view input, TranslateReport* report,
                      std::string from = "", std::string node = "") {
  TranslateOptions opts;
  opts.from = std::move(from);
  opts.node = std::move(node);
  std::string out;
  Status st = TranslateExposition(input, "in.prom", opts, &out, report);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(ExpositionTranslatorTest, DcgmUnitsLabelsAndInfo) {
  TranslateReport report;
  std::string out = Translate(
      "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00000000:29:00.0\","
      "device=\"nvidia0\",modelName=\"NVIDIA A100\",Hostname=\"h1\","
      "DCGM_FI_DRIVER_VERSION=\"570.1\"} 4845\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h1\"} 1215\n"
      "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h1\"} 9223372036854775794\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h1\"} 140737488355328.0\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h1\"} 250\n"
      "DCGM_FI_CUSTOM_THING{gpu=\"0\",UUID=\"GPU-a\"} 1\n"
      "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-a\"} 1\n",
      &report);
  EXPECT_EQ(report.source, "dcgm_exporter");
  EXPECT_TRUE(Contains(out,
                       "gpu_memory_used_bytes{gpu_uuid=\"GPU-a\",model=\"NVIDIA A100\","
                       "node=\"h1\",pci_bus_id=\"0000:29:00.0\",vendor=\"nvidia\"} 5080350720\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_clock_hertz{domain=\"sm\",gpu_uuid=\"GPU-a\",node=\"h1\","
                            "vendor=\"nvidia\"} 1215000000\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_info{driver_version=\"570.1\",gpu_uuid=\"GPU-a\","
                            "model=\"NVIDIA A100\",node=\"h1\",pci_bus_id=\"0000:29:00.0\","
                            "source=\"dcgm_exporter\",vendor=\"nvidia\"} 1\n"))
      << out;
  EXPECT_TRUE(Contains(out, "# TYPE gpu_memory_used_bytes gauge\n")) << out;
  EXPECT_FALSE(Contains(out, "gpu_temperature_celsius"));
  EXPECT_FALSE(Contains(out, "gpu_power_watts{"));
  EXPECT_FALSE(Contains(out, "gpu_utilization_ratio{"));
  EXPECT_EQ(report.input_samples, 7u);
  EXPECT_EQ(report.sentinels, 2u);
  EXPECT_EQ(report.absurd, 1u);
  EXPECT_EQ(report.unmapped.at("DCGM_FI_CUSTOM_THING"), 1u);
  EXPECT_EQ(report.ignored.at("DCGM_FI_DEV_FB_FREE"), 1u);
  EXPECT_EQ(report.dropped_labels.at("device"), 1u);
  EXPECT_FALSE(report.partial);
}

TEST(ExpositionTranslatorTest, MigRowsBecomePartitions) {
  TranslateReport report;
  std::string out = Translate(
      "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\","
      "GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"13\",Hostname=\"h\"} 0.800339\n",
      &report);
  EXPECT_TRUE(Contains(out, "gpu_memory_bandwidth_utilization_ratio{gpu_uuid=\"GPU-a\","
                            "method=\"dcgm_prof\",node=\"h\",partition_id=\"13\","
                            "partition_kind=\"mig\",partition_profile=\"1g.5gb\","
                            "vendor=\"nvidia\"} 0.800339\n"))
      << out;
}

TEST(ExpositionTranslatorTest, MigGpuPowerRepeatedOnEveryInstanceIsCountedOnce) {
  // dcgm-exporter 3.x on an A30 with two MIG instances (dcgm-exporter issue
  // 317): the GPU's power, energy and SM clock on each instance row.
  TranslateReport report;
  std::string rows;
  for (const char* id : {"3", "4"}) {
    const std::string labels = std::string("{gpu=\"0\",UUID=\"GPU-a\",GPU_I_PROFILE=\"1g.6gb\",") +
                               "GPU_I_ID=\"" + id + "\",Hostname=\"h\"}";
    rows += "DCGM_FI_DEV_POWER_USAGE" + labels + " 52.6\n";
    rows += "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labels + " 9000\n";
    rows += "DCGM_FI_DEV_SM_CLOCK" + labels + " 1440\n";
  }
  std::string out = Translate(rows, &report);
  // Power and energy add up over a node: once, on the GPU.
  EXPECT_TRUE(
      Contains(out, "gpu_power_watts{gpu_uuid=\"GPU-a\",node=\"h\",vendor=\"nvidia\"} 52.6\n"))
      << out;
  EXPECT_TRUE(Contains(out,
                       "gpu_energy_joules_total{gpu_uuid=\"GPU-a\",node=\"h\","
                       "vendor=\"nvidia\"} 9\n"))
      << out;
  EXPECT_FALSE(Contains(out, "gpu_power_watts{gpu_uuid=\"GPU-a\",node=\"h\",partition_id")) << out;
  EXPECT_EQ(report.duplicates, 2u);
  // A clock is a state each instance runs at: it stays on each.
  EXPECT_TRUE(Contains(out,
                       "gpu_clock_hertz{domain=\"sm\",gpu_uuid=\"GPU-a\",node=\"h\","
                       "partition_id=\"4\",partition_kind=\"mig\","
                       "partition_profile=\"1g.6gb\",vendor=\"nvidia\"} 1440000000\n"))
      << out;
}

TEST(ExpositionTranslatorTest, ReportsMalformedLinesAndKeepsTheRest) {
  TranslateReport report;
  std::string out = Translate(
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\"} 61\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-b\" 62\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-c\"} 63\n",
      &report, "dcgm_exporter");
  EXPECT_TRUE(report.partial);
  EXPECT_EQ(report.parse_errors, 1u);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_TRUE(report.errors[0].starts_with("in.prom:2:")) << report.errors[0];
  EXPECT_TRUE(Contains(out, "gpu_uuid=\"GPU-a\""));
  EXPECT_TRUE(Contains(out, "gpu_uuid=\"GPU-c\""));
}

TEST(ExpositionTranslatorTest, AmdClockDomainsPartitionsAndFallbackIdentity) {
  TranslateReport report;
  std::string out = Translate(
      "gpu_clock{card_model=\"x\",clock_index=\"2\",clock_type=\"system\","
      "gpu_compute_partition_type=\"spx\",gpu_id=\"0\",gpu_partition_id=\"0\","
      "hostname=\"n\"} 132\n"
      "amd_gpu_gfx_activity{gpu_id=\"1\",gpu_uuid=\"00000000-0000-0000-0000-000000000000\","
      "gpu_compute_partition_type=\"cpx\",gpu_partition_id=\"3\"} 55\n"
      "gpu_energy_consumed{gpu_id=\"0\",gpu_uuid=\"abc\"} 2500000\n"
      // A GPU that cannot be partitioned (a Radeon; ROCm/device-metrics-exporter
      // issue 259): type "none", id "NA".
      "gpu_used_vram{gpu_compute_partition_type=\"none\",gpu_id=\"2\",gpu_partition_id=\"NA\","
      "hostname=\"n\"} 26\n",
      &report);
  EXPECT_EQ(report.source, "amd_dme");
  EXPECT_TRUE(Contains(out,
                       "gpu_memory_used_bytes{gpu_index=\"2\",node=\"n\",vendor=\"amd\"} "
                       "27262976\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_clock_hertz{domain=\"sm\",gpu_index=\"0\",node=\"n\","
                            "vendor=\"amd\"} 132000000\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_utilization_ratio{gpu_index=\"1\",method=\"amdsmi\","
                            "partition_id=\"3\",partition_kind=\"amd_xcp\","
                            "partition_profile=\"cpx\",vendor=\"amd\"} 0.55\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_energy_joules_total{gpu_uuid=\"abc\",vendor=\"amd\"} 2.5\n"))
      << out;
}

TEST(ExpositionTranslatorTest, XpumMatchAndPerMetricRename) {
  TranslateReport report;
  std::string out = Translate(
      "xpum_frequency_mhz{uuid=\"u\",location=\"gpu\",type=\"actual\"} 1550\n"
      "xpum_frequency_mhz{uuid=\"u\",location=\"gpu\",type=\"request\"} 1600\n"
      "xpum_temperature_celsius{uuid=\"u\",location=\"mem\"} 40\n",
      &report);
  EXPECT_EQ(report.source, "xpum");
  EXPECT_TRUE(Contains(out, "gpu_clock_hertz{domain=\"sm\",gpu_uuid=\"u\",vendor=\"intel\"} "
                            "1550000000\n"))
      << out;
  EXPECT_FALSE(Contains(out, "1600000000"));
  EXPECT_EQ(report.unmapped.at("xpum_frequency_mhz"), 1u);
  EXPECT_TRUE(Contains(out, "gpu_temperature_celsius{gpu_uuid=\"u\",sensor=\"memory\","
                            "vendor=\"intel\"} 40\n"))
      << out;
}

// xpumd (XPU Manager's OpenTelemetry successor) serves the OTel hardware
// conventions with the collector's Prometheus names; the series below use
// the metric and attribute names of its receiver's metadata, values written
// here.
TEST(ExpositionTranslatorTest, XpumdOtelHardwareNames) {
  TranslateReport report;
  const std::string dev = "hw_id=\"00000000-0000-0001-0000-000856a08086\",pci_bdf=\"0000:3a:00.0\"";
  std::string out = Translate(
      "hw_gpu_utilization_ratio{com_intel_subdevice_id=\"\",hw_gpu_task=\"all\"," + dev +
          ",hw_name=\"engine-1-all\"} 0.62\n"
          "hw_gpu_utilization_ratio{com_intel_subdevice_id=\"0\",hw_gpu_task=\"compute-single\"," +
          dev +
          "} 0.51\n"
          "hw_gpu_info{hw_model=\"Intel(R) Data Center GPU Max 1550\",hw_vendor=\"Intel(R) "
          "Corporation\"," +
          dev +
          ",hw_name=\"gpu-1\"} 1\n"
          "hw_temperature_celsius{com_intel_subdevice_id=\"0\",hw_sensor_location=\"gpu\","
          "statistic="
          "\"max\"," +
          dev +
          "} 61\n"
          "hw_temperature_celsius{com_intel_subdevice_id=\"0\",hw_sensor_location=\"gpu\","
          "statistic="
          "\"min\"," +
          dev +
          "} 57\n"
          "hw_frequency_hertz{aggregation=\"avg\",hw_frequency_domain=\"gpu\"," +
          dev +
          "} 1.55e+09\n"
          "hw_gpu_io_bytes_total{network_io_direction=\"transmit\"," +
          dev + "} 3.4e+11\n",
      &report);
  EXPECT_EQ(report.source, "xpumd");
  const std::string uuid = "gpu_uuid=\"00000000-0000-0001-0000-000856a08086\",";
  const std::string bdf = "pci_bus_id=\"0000:3a:00.0\",";
  EXPECT_TRUE(Contains(out, "gpu_utilization_ratio{" + uuid + "method=\"levelzero\"," + bdf +
                                "vendor=\"intel\"} 0.62\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_info{" + uuid + "model=\"Intel(R) Data Center GPU Max 1550\"," +
                                bdf + "source=\"xpumd\",vendor=\"intel\"} 1\n"))
      << out;
  // A tile's series: its sub-device id is the partition; the interval's
  // maximum temperature, not its minimum.
  EXPECT_TRUE(Contains(out, "gpu_temperature_celsius{" + uuid +
                                "partition_id=\"0\",partition_kind=\"intel_tile\"," + bdf +
                                "sensor=\"gpu\",vendor=\"intel\"} 61\n"))
      << out;
  EXPECT_FALSE(Contains(out, "} 57\n")) << out;
  EXPECT_TRUE(Contains(
      out, "gpu_clock_hertz{domain=\"sm\"," + uuid + bdf + "vendor=\"intel\"} 1550000000\n"))
      << out;
  EXPECT_TRUE(Contains(
      out, "gpu_pcie_transmit_bytes_total{" + uuid + bdf + "vendor=\"intel\"} 340000000000\n"))
      << out;
  // One engine of a tile is not the device's coarse busy ratio.
  EXPECT_EQ(report.unmapped.at("hw_gpu_utilization_ratio"), 1u);
  EXPECT_EQ(SniffSource("hw_gpu_info{hw_id=\"u\"} 1\nhw_power_watts{hw_id=\"u\"} 400\n"), "xpumd");
  // hw.power and hw.temperature describe any component: alone they are not a GPU's.
  EXPECT_EQ(SniffSource("hw_temperature_celsius{hw_id=\"cpu0\"} 50\n"), "");

  // Beside dcgm-exporter families in one federated dump: each by its own table.
  TranslateReport mixed;
  out = Translate(
      "DCGM_FI_DEV_POWER_USAGE{UUID=\"GPU-a\"} 300\n"
      "hw_gpu_info{hw_id=\"u\",hw_model=\"Intel(R) Data Center GPU Max 1550\"} 1\n"
      "hw_power_watts{hw_id=\"u\",hw_sensor_location=\"card\"} 400\n",
      &mixed);
  EXPECT_EQ(mixed.source, "dcgm_exporter+xpumd");
  EXPECT_TRUE(mixed.unmapped.empty());
  EXPECT_TRUE(Contains(out, "gpu_power_watts{gpu_uuid=\"u\",vendor=\"intel\"} 400\n")) << out;
  EXPECT_TRUE(Contains(out, "gpu_power_watts{gpu_uuid=\"GPU-a\",vendor=\"nvidia\"} 300\n")) << out;
  // Without GPU families the hw_* ones are another tool's: not translated as Intel GPUs.
  TranslateReport host;
  const std::string host_out = Translate(
      "DCGM_FI_DEV_POWER_USAGE{UUID=\"GPU-a\"} 300\n"
      "hw_temperature_celsius{hw_id=\"cpu0\",hw_type=\"cpu\"} 50\n",
      &host);
  EXPECT_FALSE(Contains(host_out, "vendor=\"intel\"")) << host_out;
  EXPECT_EQ(host.unmapped.count("hw_temperature_celsius"), 1u);
}

TEST(ExpositionTranslatorTest, OutputIsSortedAndDeduplicated) {
  TranslateReport report;
  std::string out = Translate(
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-b\",pod=\"x\"} 2\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\"} 1\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-b\",pod=\"y\"} 3\n",
      &report, "", "fallback-node");
  size_t a = out.find("gpu_uuid=\"GPU-a\",node=\"fallback-node\",sensor=\"gpu\"");
  size_t b = out.find("gpu_temperature_celsius{gpu_uuid=\"GPU-b\"");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  EXPECT_LT(a, b);
  EXPECT_EQ(report.duplicates, 1u);  // pod moved to gpu_workload_info: both GPU-b rows merge
  EXPECT_TRUE(Contains(out, "gpu_workload_info{gpu_uuid=\"GPU-b\",node=\"fallback-node\","
                            "vendor=\"nvidia\",workload_pod=\"y\"} 1\n"))
      << out;
}

// Regression: an exporter reported 0 for a sensor the GPU lacks and gpufleet
// published gpu_temperature_celsius{sensor="memory"} 0. No sentinels: the
// series is absent and counted as a sentinel.
TEST(ExpositionTranslatorTest, ZeroMemoryTemperatureIsAnAbsentSensorNotAReading) {
  TranslateReport report;
  std::string out = Translate(
      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h\"} 41\n"
      "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"h\"} 0\n",
      &report);
  EXPECT_TRUE(Contains(out, "sensor=\"gpu\",vendor=\"nvidia\"} 41\n")) << out;
  EXPECT_FALSE(Contains(out, "sensor=\"memory\"")) << out;
  EXPECT_EQ(report.sentinels, 1u);
  TranslateReport amd;
  out = Translate("gpu_memory_temperature{gpu_id=\"0\",gpu_uuid=\"u\",card_series=\"MI300X\"} 0\n",
                  &amd);
  EXPECT_FALSE(Contains(out, "gpu_temperature_celsius")) << out;
  EXPECT_EQ(amd.sentinels, 1u);
}

// Regression: a Prometheus dump of dcgm-exporter series carries the scrape
// target's labels (the exporter's own pod); they were taken as the device's
// workload. With job/instance present, plain pod/namespace/container are the
// target's and the workload is in exported_* (honor_labels: false).
TEST(ExpositionTranslatorTest, ScrapeTargetPodIsNotTheDeviceWorkload) {
  TranslateReport report;
  std::string out = Translate(
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\",Hostname=\"n1\",container=\"nvidia-dcgm-exporter\","
      "instance=\"10.0.0.7:9400\",job=\"gpu-metrics\",namespace=\"gpu-operator\","
      "pod=\"nvidia-dcgm-exporter-7x2kq\"} 40\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-b\",Hostname=\"n1\",container=\"nvidia-dcgm-exporter\","
      "exported_container=\"trainer\",exported_namespace=\"team-a\",exported_pod=\"bert-0\","
      "instance=\"10.0.0.7:9400\",job=\"gpu-metrics\",namespace=\"gpu-operator\","
      "pod=\"nvidia-dcgm-exporter-7x2kq\"} 50\n",
      &report);
  EXPECT_FALSE(Contains(out, "nvidia-dcgm-exporter")) << out;
  EXPECT_FALSE(Contains(out, "gpu-operator")) << out;
  EXPECT_FALSE(Contains(out, "gpu_workload_info{gpu_uuid=\"GPU-a\"")) << out;
  EXPECT_TRUE(Contains(out, "gpu_workload_info{gpu_uuid=\"GPU-b\",node=\"n1\",vendor=\"nvidia\","
                            "workload_container=\"trainer\",workload_namespace=\"team-a\","
                            "workload_pod=\"bert-0\"} 1\n"))
      << out;
  EXPECT_EQ(report.dropped_labels.at("pod (scrape target)"), 2u);
  // Without scrape labels (the exporter's own /metrics) pod is the workload.
  TranslateReport direct;
  out = Translate("DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\",Hostname=\"n1\",pod=\"bert-0\"} 40\n",
                  &direct);
  EXPECT_TRUE(Contains(out, "workload_pod=\"bert-0\"")) << out;
}

// Regression: the AMD device-metrics-exporter published one GPU twice, under
// an all-zero UUID with amd_-prefixed names and under its real UUID, and
// gpufleet showed two devices.
TEST(ExpositionTranslatorTest, AmdDeviceListedUnderNullUuidTooIsOneDevice) {
  TranslateReport report;
  std::string out = Translate(
      "amd_gpu_edge_temperature{gpu_id=\"0\",gpu_uuid=\"00000000-0000-0000-0000-000000000000\","
      "hostname=\"m1\"} 45\n"
      "amd_gpu_gfx_activity{gpu_id=\"0\",gpu_uuid=\"00000000-0000-0000-0000-000000000000\","
      "hostname=\"m1\"} 20\n"
      "gpu_edge_temperature{gpu_id=\"0\",gpu_uuid=\"17ff74b5-0000-1000-805c-37b0fbe69430\","
      "hostname=\"m1\"} 45\n"
      "gpu_gfx_activity{gpu_id=\"0\",gpu_uuid=\"17ff74b5-0000-1000-805c-37b0fbe69430\","
      "hostname=\"m1\"} 20\n",
      &report);
  EXPECT_FALSE(Contains(out, "gpu_index")) << out;
  EXPECT_TRUE(Contains(out, "gpu_temperature_celsius{gpu_uuid=\"17ff74b5-0000-1000-805c-"
                            "37b0fbe69430\",node=\"m1\",sensor=\"edge\",vendor=\"amd\"} 45\n"))
      << out;
  EXPECT_EQ(report.duplicates, 2u);
  size_t infos = 0;
  for (size_t p = out.find("\ngpu_info{"); p != std::string::npos; p = out.find("\ngpu_info{", p + 1)) {
    ++infos;
  }
  EXPECT_EQ(infos, 1u) << out;
}

// Regression: a federated dump mixing dcgm-exporter and AMD exporter families
// was translated with one table and the AMD families came out unmapped.
TEST(ExpositionTranslatorTest, FederatedDumpIsTranslatedPerExporterFamily) {
  TranslateReport report;
  std::string out = Translate(
      "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
      "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\",Hostname=\"n1\"} 40\n"
      "# TYPE gpu_edge_temperature gauge\n"
      "gpu_edge_temperature{card_series=\"MI300X\",gpu_id=\"0\",gpu_uuid=\"amd-1\","
      "hostname=\"n2\"} 50\n"
      "gpu_gfx_activity{card_series=\"MI300X\",gpu_id=\"0\",gpu_uuid=\"amd-1\",hostname=\"n2\"} "
      "30\n",
      &report);
  EXPECT_EQ(report.source, "dcgm_exporter+amd_dme");
  EXPECT_TRUE(report.unmapped.empty());
  EXPECT_TRUE(Contains(out, "gpu_temperature_celsius{gpu_uuid=\"GPU-a\",node=\"n1\","
                            "sensor=\"gpu\",vendor=\"nvidia\"} 40\n"))
      << out;
  EXPECT_TRUE(Contains(out, "gpu_utilization_ratio{gpu_uuid=\"amd-1\",method=\"amdsmi\","
                            "model=\"MI300X\",node=\"n2\",vendor=\"amd\"} 0.3\n"))
      << out;
}

TEST(ExpositionTranslatorTest, SamplesVariantKeepsTimestamps) {
  TranslateOptions opts;
  TranslateReport report;
  std::vector<Sample> out;
  ASSERT_TRUE(TranslateExpositionToSamples("DCGM_FI_DEV_POWER_USAGE{UUID=\"G\"} 300 1700000000000\n"
                                           "DCGM_FI_DEV_GPU_TEMP{UUID=\"G\"} 50\n",
                                           "x", opts, 42, &out, &report)
                  .ok());
  ASSERT_EQ(out.size(), 3u);  // gpu_info, power, temperature (sorted)
  EXPECT_EQ(out[0].name, "gpu_info");
  EXPECT_EQ(out[1].name, "gpu_power_watts");
  EXPECT_EQ(out[1].timestamp_ns, 1700000000000LL * 1000000);
  EXPECT_EQ(out[2].timestamp_ns, 42);
}

TEST(ExpositionTranslatorTest, UnknownSourceIsAnError) {
  TranslateOptions opts;
  TranslateReport report;
  std::string out;
  Status st = TranslateExposition("foo_bar 1\n", "x.prom", opts, &out, &report);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("x.prom"), std::string::npos);
  opts.from = "nope";
  EXPECT_FALSE(TranslateExposition("foo 1\n", "x", opts, &out, &report).ok());
}

TEST(ExpositionTranslatorTest, SniffsSources) {
  EXPECT_EQ(SniffSource("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 1\n"), "dcgm_exporter");
  EXPECT_EQ(SniffSource("xpum_power_watts{dev_file=\"card0\"} 1\n"), "xpum");
  EXPECT_EQ(SniffSource("gpu_power_usage{gpu_id=\"0\"} 1\n"), "amd_dme");
  EXPECT_EQ(SniffSource("[{\"gpu\": 0}]"), "amd_smi_json");
  EXPECT_EQ(SniffSource("GPU: 0\n    USAGE:\n"), "amd_smi_text");
  EXPECT_EQ(SniffSource("| Device ID | 0 |\n"), "xpumcli");
  EXPECT_EQ(SniffSource("gpu_power_watts{gpu_uuid=\"x\"} 1\n"), "");
}

}  // namespace
}  // namespace gpufleet
