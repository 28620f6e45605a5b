// Golden tests: every vendor sample in tests/data/telemetry/ -> `translate` ->
// byte-exact comparison with tests/golden/translate/<stem>.prom.
// GPUFLEET_UPDATE_GOLDEN=1 rewrites the expected files (review the diff!).
#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/file_util.h"
#include "core/strings.h"
#include "normalize/mapping_table.h"
#include "normalize/translate.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(GPUFLEET_SOURCE_DIR) / "tests/data/telemetry";
const fs::path kGolden = fs::path(GPUFLEET_SOURCE_DIR) / "tests/golden/translate";

struct Translated {
  std::string out;
  TranslateReport report;
};

Translated TranslateFile(const std::string& name) {
  auto input = ReadFileToString((kData / name).string());
  EXPECT_TRUE(input.ok()) << input.status().ToString();
  Translated t;
  TranslateOptions opts;  // source sniffed, as `gpufleet translate FILE` does
  Status st = TranslateInput(*input, name, opts, &t.out, &t.report);
  EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
  return t;
}

std::vector<std::string> VendorSamples() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kData)) {
    std::string n = e.path().filename().string();
    if (n == "README.md" || e.path().extension() == ".csv") continue;
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(TranslateGoldenTest, EveryVendorSampleMatchesItsGoldenFile) {
  std::vector<std::string> samples = VendorSamples();
  ASSERT_EQ(samples.size(), 8u);
  const bool update = std::getenv("GPUFLEET_UPDATE_GOLDEN") != nullptr &&
                      std::string_view(std::getenv("GPUFLEET_UPDATE_GOLDEN")) == "1";
  for (const std::string& name : samples) {
    SCOPED_TRACE(name);
    Translated t = TranslateFile(name);
    EXPECT_GT(t.report.output_samples, 0u);
    fs::path golden = kGolden / (fs::path(name).stem().string() + ".prom");
    if (update) {
      ASSERT_TRUE(WriteStringToFile(golden.string(), t.out).ok());
      continue;
    }
    auto expected = ReadFileToString(golden.string());
    ASSERT_TRUE(expected.ok()) << expected.status().ToString()
                               << " (run with GPUFLEET_UPDATE_GOLDEN=1 to create it)";
    EXPECT_EQ(t.out, *expected) << "translation of " << name << " changed; if intended, rerun "
                                << "with GPUFLEET_UPDATE_GOLDEN=1 and review the diff";
    // Deterministic: a second run gives the same bytes.
    EXPECT_EQ(TranslateFile(name).out, t.out);
  }
}

bool Has(const std::string& out, std::string_view line) {
  return out.find(line) != std::string::npos;
}

TEST(TranslateGoldenTest, DcgmMigSampleValuesAreInBaseUnits) {
  Translated t = TranslateFile("dcgm-exporter_mig_A100_cloud-native-docs.prom");
  const std::string dev = "gpu_uuid=\"GPU-34319582-d595-d1c7-d1d2-179bcfa61660\","
                          "node=\"ub20-a100-k8s\"";
  EXPECT_TRUE(Has(t.out, "gpu_memory_used_bytes{" + dev + ",vendor=\"nvidia\"} 5080350720\n"))
      << t.out;  // 4845 MiB
  EXPECT_TRUE(Has(t.out, "gpu_power_watts{" + dev + ",vendor=\"nvidia\"} 409.692\n"));
  EXPECT_TRUE(Has(t.out, "gpu_clock_hertz{domain=\"sm\"," + dev + ",vendor=\"nvidia\"} 1215000000\n"));
  EXPECT_TRUE(Has(t.out, "gpu_energy_joules_total{" + dev + ",vendor=\"nvidia\"} 319159.391\n"));
  EXPECT_TRUE(Has(t.out, "gpu_last_xid_code{" + dev +
                             ",partition_id=\"13\",partition_kind=\"mig\","
                             "partition_profile=\"1g.5gb\",vendor=\"nvidia\"} 0\n"));
  EXPECT_TRUE(Has(t.out, "gpu_pcie_receive_bytes_per_second{" + dev +
                             ",vendor=\"nvidia\"} 97863601\n"));
  EXPECT_EQ(t.report.ignored.at("DCGM_FI_DEV_FB_FREE"), 1u);
  EXPECT_FALSE(t.report.partial);
}

TEST(TranslateGoldenTest, DcgmK8sSampleMovesPodsToWorkloadInfo) {
  Translated t = TranslateFile("dcgm-exporter_k8s-labels_T4_DCGM-issue-191.prom");
  EXPECT_TRUE(Has(t.out, "gpu_workload_info{gpu_uuid=\"GPU-84412445-5790-0b3f-f714-da8aa3b2c0b0\","
                         "model=\"Tesla T4\",node=\"gke-test-dcgm-default-pool-fed1e979-tt7p\","
                         "vendor=\"nvidia\",workload_container=\"triton-server\","
                         "workload_namespace=\"default\","
                         "workload_pod=\"triton-84d57987c9-kks4k\"} 1\n"))
      << t.out;
  EXPECT_FALSE(Has(t.out, "pod=\"\""));
  EXPECT_TRUE(Has(t.out, "gpu_sm_occupancy_ratio{"));
}

TEST(TranslateGoldenTest, DriverVersionLabelBecomesGpuInfo) {
  Translated t = TranslateFile("dcgm-exporter_xid-count_PR-239.prom");
  EXPECT_TRUE(Has(t.out, "driver_version=\"545.29.02\"")) << t.out;
  EXPECT_TRUE(Has(t.out, "model=\"NVIDIA T400 4GB\""));
  EXPECT_EQ(t.report.ignored.at("DCGM_FI_DEV_XID_ERRORS_ACTIVE"), 1u);
}

TEST(TranslateGoldenTest, AmdDocsSampleIsPartialWithLineNumbers) {
  Translated t = TranslateFile("amd-device-metrics-exporter_docs-metricslist-examples.prom");
  EXPECT_TRUE(t.report.partial);
  EXPECT_GE(t.report.parse_errors, 2u);
  ASSERT_FALSE(t.report.errors.empty());
  // The afid lines (24, 25) use `, ` separators and `...` placeholders.
  bool line24 = false;
  for (const std::string& e : t.report.errors) {
    line24 |= e.starts_with("amd-device-metrics-exporter_docs-metricslist-examples.prom:24:");
  }
  EXPECT_TRUE(line24) << t.report.ToString();
  EXPECT_TRUE(Has(t.out, "gpu_clock_hertz{domain=\"sm\",gpu_index=\"0\",node=\"xxxx\","
                         "vendor=\"amd\"} 132000000\n"))
      << t.out;
  // 2.776148269e9 KB on link 1.
  EXPECT_TRUE(Has(t.out, "gpu_interconnect_receive_bytes_total{gpu_index=\"0\",link=\"1\","
                         "link_type=\"xgmi\",node=\"xxxx\",vendor=\"amd\"} 2842775827456\n"))
      << t.out;
  EXPECT_EQ(t.report.unmapped.count("gpu_process_cu_occupancy"), 1u);
}

// The VF reports edge temperature 0: a sensor the guest does not have, so
// the series is absent (no sentinels), counted as a sentinel.
TEST(TranslateGoldenTest, AmdVfSampleKeepsModelAndDriver) {
  Translated t = TranslateFile("amd-device-metrics-exporter_issue-171_MI300X-VF.prom");
  EXPECT_FALSE(Has(t.out, "gpu_temperature_celsius")) << t.out;
  EXPECT_EQ(t.report.sentinels, 1u);
  EXPECT_TRUE(Has(t.out, "gpu_info{driver_version=\"6.12.12\",gpu_uuid=\"17ff74b5-0000-1000-805c-"
                         "37b0fbe69430\",model=\"Aqua Vanjaram [Instinct MI300X VF]\","
                         "node=\"master-1\",source=\"amd_dme\",vendor=\"amd\"} 1\n"))
      << t.out;
}

// Regression: a federated dump mixing dcgm-exporter and AMD exporter
// families (here two real samples back to back, a derived mix) went through
// `gpufleet translate` with one table, and the AMD families came out
// unmapped.
TEST(TranslateGoldenTest, MixedDumpOfRealSamplesIsTranslatedPerFamily) {
  auto dcgm = ReadFileToString((kData / "dcgm-exporter_k8s-labels_T4_DCGM-issue-191.prom").string());
  auto amd = ReadFileToString((kData / "amd-device-metrics-exporter_issue-171_MI300X-VF.prom").string());
  ASSERT_TRUE(dcgm.ok() && amd.ok());
  Translated t;
  Status st = TranslateInput(*dcgm + *amd, "mixed.prom", TranslateOptions{}, &t.out, &t.report);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(t.report.source, "dcgm_exporter+amd_dme");
  EXPECT_TRUE(t.report.unmapped.empty()) << t.report.ToString();
  EXPECT_TRUE(Has(t.out, "gpu_info{driver_version=\"6.12.12\",gpu_uuid=\"17ff74b5-0000-1000-805c-"
                         "37b0fbe69430\""))
      << t.out;
  EXPECT_TRUE(Has(t.out, "gpu_uuid=\"GPU-84412445-5790-0b3f-f714-da8aa3b2c0b0\"")) << t.out;
}

TEST(TranslateGoldenTest, AmdSmiSamples) {
  Translated json = TranslateFile("amd-smi_metric-power_json_amdsmi-CHANGELOG.json");
  EXPECT_EQ(json.report.source, "amd_smi_json");
  EXPECT_TRUE(Has(json.out, "gpu_power_watts{gpu_index=\"0\",vendor=\"amd\"} 10\n")) << json.out;
  Translated text = TranslateFile("amd-smi_metric-usage_text_MI300_amdsmi-CHANGELOG.txt");
  EXPECT_EQ(text.report.source, "amd_smi_text");
  EXPECT_TRUE(Has(text.out, "gpu_utilization_ratio{gpu_index=\"0\",method=\"amdsmi\","
                            "vendor=\"amd\"} 0\n"))
      << text.out;
  EXPECT_GT(text.report.sentinels, 100u);  // the N/A padding
  EXPECT_FALSE(text.report.partial);
}

TEST(TranslateGoldenTest, XpumcliSample) {
  Translated t = TranslateFile("xpumcli_stats_intel-xpumanager-CLI_user_guide.txt");
  EXPECT_EQ(t.report.source, "xpumcli");
  EXPECT_TRUE(Has(t.out, "gpu_power_watts{gpu_index=\"0\",vendor=\"intel\"} 44\n")) << t.out;
  EXPECT_TRUE(Has(t.out, "gpu_clock_hertz{domain=\"sm\",gpu_index=\"0\",vendor=\"intel\"} "
                         "2050000000\n"));
  EXPECT_TRUE(Has(t.out, "gpu_memory_used_bytes{gpu_index=\"0\",vendor=\"intel\"} 27262976\n"));
  EXPECT_TRUE(Has(t.out, "gpu_energy_joules_total{gpu_index=\"0\",vendor=\"intel\"} 5245.05\n"));
  EXPECT_FALSE(t.report.partial);
}

// The CSV lists the fields dcgm-exporter enables by default: each must be
// mapped, carried as an info label, or deliberately ignored with a reason.
TEST(TranslateGoldenTest, EveryDefaultDcgmFieldIsHandled) {
  auto csv = ReadFileToString((kData / "dcgm-exporter_default-counters.csv").string());
  ASSERT_TRUE(csv.ok());
  auto table = MappingTable::ForSource("dcgm_exporter");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  int enabled = 0, mapped = 0;
  for (std::string_view line : SplitString(*csv, '\n')) {
    line = TrimWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::string field(TrimWhitespace(SplitString(line, ',')[0]));
    std::string type(TrimWhitespace(SplitString(line, ',')[1]));
    ++enabled;
    SCOPED_TRACE(field);
    if (type == "label") {
      EXPECT_NE(table->InfoLabel(field), nullptr);
      continue;
    }
    if (table->Find(field) != nullptr) {
      ++mapped;
      continue;
    }
    EXPECT_NE(table->IgnoreReason(field), nullptr) << "enabled by default but not handled";
  }
  EXPECT_EQ(enabled, 26);
  EXPECT_EQ(mapped, 22);
}

}  // namespace
}  // namespace gpufleet
