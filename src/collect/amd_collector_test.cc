#include "collect/amd_collector.h"

#include <gtest/gtest.h>

#include <cmath>

#include "collect/testing/collector_test_util.h"
#include "normalize/mapping_table.h"
#include "normalize/normalizer.h"

namespace gpufleet {
namespace {

using testing::FakeLibrary;

constexpr char kMissing[] = "/nonexistent/libmissing.so";

AmdCollectorOptions Options(const char* amdsmi, const char* rocm, const char* sysfs) {
  AmdCollectorOptions o;
  o.amdsmi.library_names = {amdsmi};
  o.rocm_smi.library_names = {rocm};
  o.rocm_smi.enable_pcie_throughput = true;  // the fake answers at once
  o.sysfs.sysfs_root = sysfs;
  o.dev_root = "/nonexistent/dev";  // no /dev/kfd: the chain's choice stays unwrapped
  return o;
}

constexpr char kNoKfd[] = "amd: kfd page faults off: no /nonexistent/dev/kfd";

class AmdCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    amdsmi_.Call("Reset");
    rocm_.Call("Reset");
  }
  void TearDown() override { SetUp(); }

  FakeLibrary amdsmi_{FAKE_AMDSMI_PATH, "FakeAmdSmi_"};
  FakeLibrary rocm_{FAKE_ROCM_SMI_PATH, "FakeRocmSmi_"};
};

TEST_F(AmdCollectorTest, PrefersAmdSmi) {
  std::vector<std::string> log;
  auto c = OpenAmdCollector(Options(FAKE_AMDSMI_PATH, FAKE_ROCM_SMI_PATH, AMD_SYSFS_TREE), &log);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "amdsmi");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "amd: using amdsmi (9 devices)");
  EXPECT_EQ(log[1], kNoKfd);
}

TEST_F(AmdCollectorTest, FallsBackToRocmSmiWhenAmdSmiIsMissing) {
  std::vector<std::string> log;
  auto c = OpenAmdCollector(Options(kMissing, FAKE_ROCM_SMI_PATH, AMD_SYSFS_TREE), &log);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "rocm_smi");
  ASSERT_EQ(log.size(), 3u);
  EXPECT_NE(log[0].find("amdsmi rejected: NOT_FOUND"), std::string::npos) << log[0];
  EXPECT_NE(log[0].find(kMissing), std::string::npos) << log[0];
  EXPECT_EQ(log[1], "amd: using rocm_smi (2 devices)");
  // The returned collector is usable as is and re-discovers cleanly.
  DeviceReadings r;
  EXPECT_TRUE((*c)->Collect(0, r).ok());
  ASSERT_TRUE((*c)->Discover().ok());
}

TEST_F(AmdCollectorTest, FallsBackToRocmSmiWhenAmdgpuDriverIsNotLoadedForAmdSmi) {
  amdsmi_.Call("SetInitResult", 34);  // AMDSMI_STATUS_DRIVER_NOT_LOADED
  std::vector<std::string> log;
  auto c = OpenAmdCollector(Options(FAKE_AMDSMI_PATH, FAKE_ROCM_SMI_PATH, AMD_SYSFS_TREE), &log);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "rocm_smi");
  EXPECT_NE(log[0].find("DRIVER_NOT_LOADED"), std::string::npos) << log[0];
}

TEST_F(AmdCollectorTest, FallsBackToSysfsWhenBothLibrariesAreMissing) {
  std::vector<std::string> log;
  auto c = OpenAmdCollector(Options(kMissing, kMissing, AMD_SYSFS_TREE), &log);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "amdgpu_sysfs");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_NE(log[1].find("rocm_smi rejected"), std::string::npos) << log[1];
  EXPECT_EQ(log[2], "amd: using amdgpu_sysfs (2 devices)");
}

TEST_F(AmdCollectorTest, NothingIsNotFoundNamingEveryReason) {
  auto c = OpenAmdCollector(Options(kMissing, kMissing, "/nonexistent/sys"));
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  for (const char* source : {"amdsmi", "rocm_smi", "amdgpu_sysfs"}) {
    EXPECT_NE(c.status().message().find(std::string(source) + " rejected"), std::string::npos)
        << c.status().message();
  }
}

TEST_F(AmdCollectorTest, NonAbsenceFailureKeepsItsCode) {
  amdsmi_.Call("SetInitResult", 18);  // AMDSMI_STATUS_INIT_ERROR: not "no GPU"
  auto c = OpenAmdCollector(Options(FAKE_AMDSMI_PATH, kMissing, "/nonexistent/sys"));
  EXPECT_EQ(c.status().code(), StatusCode::kFailedPrecondition) << c.status().ToString();
}

// Regression: probing a node without an AMD GPU initialised ROCm SMI, which
// printed "Failed to open drm root directory" and "Exception caught:
// rsmi_init" on the user's terminal. Without /dev/kfd or an AMD card in
// sysfs the probe loads no library.
TEST_F(AmdCollectorTest, ProbeWithoutAmdKernelDeviceLoadsNoRocmLibrary) {
  AmdCollectorOptions o = Options(FAKE_AMDSMI_PATH, FAKE_ROCM_SMI_PATH, "/nonexistent/sys");
  o.require_kernel_device = true;
  o.dev_root = "/nonexistent/dev";
  auto c = OpenAmdCollector(o);
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("not loaded"), std::string::npos) << c.status().message();
  EXPECT_EQ(c.status().message().find("rejected"), std::string::npos) << c.status().message();
}

TEST_F(AmdCollectorTest, ProbeWithAmdCardInSysfsStillPrefersAmdSmi) {
  AmdCollectorOptions o = Options(FAKE_AMDSMI_PATH, FAKE_ROCM_SMI_PATH, AMD_SYSFS_TREE);
  o.require_kernel_device = true;
  o.dev_root = "/nonexistent/dev";
  auto c = OpenAmdCollector(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), std::string_view("amdsmi"));
}

// Every reading each AMD source emits is mapped by that source's table.
TEST_F(AmdCollectorTest, EveryReadingNameIsMapped) {
  const std::vector<AmdCollectorOptions> sources = {
      Options(FAKE_AMDSMI_PATH, kMissing, "/nonexistent/sys"),
      Options(kMissing, FAKE_ROCM_SMI_PATH, "/nonexistent/sys"),
      Options(kMissing, kMissing, AMD_SYSFS_TREE),
  };
  for (const AmdCollectorOptions& o : sources) {
    auto c = OpenAmdCollector(o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    std::string source((*c)->source());
    size_t devices = testing::MustDiscover(**c).size();
    std::vector<DeviceReadings> all;
    size_t readings = 0;
    for (size_t i = 0; i < devices; ++i) {
      all.push_back(testing::MustCollect(**c, i));
      readings += all.back().readings.size();
    }
    testing::ExpectAllMapped(source, all);
    EXPECT_GT(readings, 10u) << source;
  }
}

// Normalized values land in canonical units whichever source produced them.
class AmdNormalizeTest : public AmdCollectorTest {
 protected:
  std::vector<Sample> NormalizeDevice(const AmdCollectorOptions& o, size_t index,
                                      NormalizeStats* stats_out = nullptr) {
    auto c = OpenAmdCollector(o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return {};
    auto devices = (*c)->Discover();
    EXPECT_TRUE(devices.ok());
    DeviceReadings r;
    EXPECT_TRUE((*c)->Collect(index, r).ok());
    auto table = MappingTable::ForSource((*c)->source());
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return {};
    Normalizer n(std::move(*table));
    const DeviceInfo& d = (*devices)[index];
    std::vector<Sample> out;
    NormalizeStats stats;
    n.Normalize(d, DeviceLabels(d, NodeIdentity{"node-a", "", ""}), r, 1'000'000'000, out, stats);
    if (stats_out != nullptr) *stats_out = stats;
    return out;
  }

  static const Sample* Find(const std::vector<Sample>& s, const std::string& name,
                            const std::string& label = "", const std::string& value = "") {
    return testing::FindSample(s, name, label.empty() ? Labels() : Labels{{label, value}});
  }

  static double Value(const std::vector<Sample>& s, const std::string& name,
                      const std::string& label = "", const std::string& value = "") {
    const Sample* x = Find(s, name, label, value);
    EXPECT_NE(x, nullptr) << name << " " << label << "=" << value;
    return x != nullptr ? x->value : std::nan("");
  }
};

TEST_F(AmdNormalizeTest, AmdSmiValuesAreInCanonicalUnits) {
  auto s = NormalizeDevice(Options(FAKE_AMDSMI_PATH, kMissing, "/nonexistent/sys"), 0);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_utilization_ratio"), 0.63);
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("method"), "amdsmi");
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("partition_kind"), "amd_xcp");
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("partition_profile"), "cpx");
  EXPECT_DOUBLE_EQ(Value(s, "gpu_memory_copy_busy_ratio"), 0.21);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_power_watts"), 520);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_power_limit_watts"), 750);
  EXPECT_NEAR(Value(s, "gpu_energy_joules_total"), 1e6, 1e5);  // 1 MJ + 520 W x seconds
  EXPECT_DOUBLE_EQ(Value(s, "gpu_temperature_celsius", "sensor", "junction"), 62);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_clock_hertz", "domain", "sm"), 2.1e9);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_memory_used_bytes"), 9.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(Value(s, "gpu_ecc_errors_total", "severity", "corrected"), 3);
  const Sample* link = Find(s, "gpu_interconnect_receive_bytes_total", "link", "0");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->labels.Get("link_type"), "xgmi");
  EXPECT_GE(link->value, 5000000.0 * 1024);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_throttle_active", "reason", "power"), 1);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_process_memory_bytes", "pid", "4242"), 8.0 * (1 << 30));
}

TEST_F(AmdNormalizeTest, RocmSmiValuesAreInCanonicalUnits) {
  auto s = NormalizeDevice(Options(kMissing, FAKE_ROCM_SMI_PATH, "/nonexistent/sys"), 0);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_utilization_ratio"), 0.71);
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("method"), "rocm_smi");
  EXPECT_DOUBLE_EQ(Value(s, "gpu_power_watts"), 545);                               // from uW
  EXPECT_DOUBLE_EQ(Value(s, "gpu_power_limit_watts"), 750);                         // from uW
  EXPECT_DOUBLE_EQ(Value(s, "gpu_temperature_celsius", "sensor", "junction"), 64);  // from m°C
  EXPECT_DOUBLE_EQ(Value(s, "gpu_clock_hertz", "domain", "memory"), 1.3e9);
  EXPECT_NEAR(Value(s, "gpu_energy_joules_total"), 2e6, 1e5);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_pcie_transmit_bytes_per_second"), 3e9);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_ecc_errors_total", "block", "umc"), 5);
}

TEST_F(AmdNormalizeTest, SysfsValuesAreInCanonicalUnits) {
  auto s = NormalizeDevice(Options(kMissing, kMissing, AMD_SYSFS_TREE), 0);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_utilization_ratio"), 0.63);
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("method"), "sysfs");
  EXPECT_EQ(Find(s, "gpu_utilization_ratio")->labels.Get("pci_bus_id"), "0000:0c:00.0");
  EXPECT_DOUBLE_EQ(Value(s, "gpu_power_watts"), 520);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_temperature_celsius", "sensor", "memory"), 51);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_clock_hertz", "domain", "sm"), 2.1e9);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_energy_joules_total"), 1e6);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_memory_total_bytes"), 206158430208.0);
  EXPECT_DOUBLE_EQ(Value(s, "gpu_pcie_replays_total"), 2);
}

TEST_F(AmdNormalizeTest, AbsurdTemperatureIsDroppedNotExported) {
  amdsmi_.Call("SetAbsurd", 0, 1);  // 60000 C from the library
  NormalizeStats stats;
  auto s = NormalizeDevice(Options(FAKE_AMDSMI_PATH, kMissing, "/nonexistent/sys"), 0, &stats);
  EXPECT_EQ(Find(s, "gpu_temperature_celsius", "sensor", "junction"), nullptr);
  EXPECT_NE(Find(s, "gpu_temperature_celsius", "sensor", "memory"), nullptr);
  EXPECT_GE(stats.absurd, 1u);
}

}  // namespace
}  // namespace gpufleet
