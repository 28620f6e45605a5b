// Tests of the NVML collector through the real dlopen path against the fake
// libnvidia-ml built in tests/fakes/nvml/ (scripted via its FakeNvml_* C
// functions, bound with dlsym on the same path, so both share one copy).
#include "collect/nvml_collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>
#include <thread>

#include "collect/testing/collector_test_util.h"
#include "normalize/mapping_table.h"
#include "tests/fakes/nvml/fake_nvml_control.h"

namespace gpufleet {
namespace {

using testing::CountReadings;
using testing::ErrorCount;
using testing::FakeLibrary;
using testing::MustCollect;
using testing::MustDiscover;

// Calls one of the fake's control functions in the library opened by the fixture.
#define FAKE(fn) FAKE_CALL(*fake_, fn)

const RawReading* Find(const DeviceReadings& r, std::string_view name, const Labels& labels = {}) {
  return testing::FindReadingWith(r, name, labels);
}

class NvmlCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_ = OpenFake(FAKE_NVML_PATH); }
  void TearDown() override { ::unsetenv("GPUFLEET_FAKE_NVML_CONFIG"); }

  static std::unique_ptr<FakeLibrary> OpenFake(const char* path) {
    auto fake = std::make_unique<FakeLibrary>(path);
    FAKE_CALL(*fake, FakeNvml_Reset)();
    return fake;
  }

  static std::unique_ptr<Collector> NewCollector(const char* path = FAKE_NVML_PATH) {
    NvmlCollectorOptions options;
    options.library_names = {path};
    return NewNvmlCollector(options);
  }

  std::unique_ptr<FakeLibrary> fake_;
};

TEST_F(NvmlCollectorTest, DiscoversGpusAndMigInstances) {
  auto c = NewCollector();
  EXPECT_EQ(c->source(), "nvml");
  std::vector<DeviceInfo> d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 4u);  // GPU 0, GPU 1 (MIG mode) and its two GPU instances

  EXPECT_EQ(d[0].vendor, Vendor::kNvidia);
  EXPECT_EQ(d[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d[0].uuid, "GPU-5d3c1a2e-7b4f-4e8a-9c61-0a1b2c3d4e00");
  EXPECT_EQ(d[0].pci_bus_id, "0000:1b:00.0");
  EXPECT_EQ(d[0].arch, "9.0");
  EXPECT_EQ(d[0].driver_version, "550.54.15");
  EXPECT_EQ(d[0].runtime_version, "12.4");
  EXPECT_EQ(d[0].memory_total_bytes, 81559ULL << 20);
  EXPECT_EQ(d[0].partition.kind, "");

  EXPECT_EQ(d[1].pci_bus_id, "0000:43:00.0");
  EXPECT_EQ(d[1].partition.kind, "");
  for (size_t i : {2u, 3u}) {
    EXPECT_EQ(d[i].partition.kind, "mig");
    EXPECT_EQ(d[i].uuid, d[1].uuid);  // partitions carry the parent's UUID
    EXPECT_EQ(d[i].pci_bus_id, d[1].pci_bus_id);
    EXPECT_EQ(d[i].model, d[1].model);
  }
  EXPECT_EQ(d[2].partition.id, "2");
  EXPECT_EQ(d[2].partition.profile, "3g.40gb");
  EXPECT_EQ(d[2].memory_total_bytes, 40192ULL << 20);
  EXPECT_EQ(d[3].partition.id, "9");
  EXPECT_EQ(d[3].partition.profile, "1g.10gb");
  EXPECT_EQ(d[3].memory_total_bytes, 9856ULL << 20);
}

TEST_F(NvmlCollectorTest, CollectsEveryReadingFamilyWithPlausibleValues) {
  auto c = NewCollector();
  MustDiscover(*c);
  DeviceReadings r = MustCollect(*c, 0);
  EXPECT_TRUE(r.field_errors.empty());

  auto value = [&](std::string_view name, const Labels& l = {}) {
    const RawReading* x = Find(r, name, l);
    EXPECT_NE(x, nullptr) << name << l.ToString();
    return x == nullptr ? -1.0 : x->value;
  };
  EXPECT_GE(value("utilization_gpu_pct"), 0);
  EXPECT_LE(value("utilization_gpu_pct"), 100);
  EXPECT_LE(value("utilization_memory_pct"), 100);
  EXPECT_LE(value("encoder_utilization_pct"), 100);
  EXPECT_LE(value("decoder_utilization_pct"), 100);
  EXPECT_GT(value("memory_used_bytes"), 1e9);
  EXPECT_LT(value("memory_used_bytes"), value("memory_total_bytes"));
  EXPECT_GE(value("power_usage_mw"), 70'000);  // H100: idle ~70 W, TDP 700 W
  EXPECT_LE(value("power_usage_mw"), 700'000);
  EXPECT_EQ(value("power_limit_mw"), 700'000);
  EXPECT_GT(value("energy_consumed_mj"), 0);
  EXPECT_GT(value("temperature_c", {{"sensor", "gpu"}}), 20);
  EXPECT_LT(value("temperature_c", {{"sensor", "gpu"}}), 95);
  EXPECT_GT(value("temperature_c", {{"sensor", "memory"}}), 20);
  EXPECT_GE(value("clock_mhz", {{"domain", "sm"}}), 1000);
  EXPECT_LE(value("clock_mhz", {{"domain", "sm"}}), 1980);
  EXPECT_EQ(value("clock_mhz", {{"domain", "memory"}}), 2619);
  value("clock_mhz", {{"domain", "graphics"}});
  value("clock_mhz", {{"domain", "video"}});
  EXPECT_GT(value("pcie_tx_bytes"), 0);
  EXPECT_GT(value("pcie_rx_bytes"), 0);
  EXPECT_EQ(value("pcie_replay_count"), 3);
  EXPECT_EQ(value("ecc_errors", {{"severity", "corrected"}, {"scope", "volatile"}}), 2);
  EXPECT_EQ(value("ecc_errors", {{"severity", "corrected"}, {"scope", "aggregate"}}), 17);
  EXPECT_EQ(value("ecc_errors", {{"severity", "uncorrected"}, {"scope", "volatile"}}), 0);
  EXPECT_EQ(value("ecc_errors", {{"severity", "uncorrected"}, {"scope", "aggregate"}}), 0);
  EXPECT_EQ(value("remapped_rows", {{"severity", "corrected"}}), 1);
  EXPECT_EQ(value("row_remap_failed"), 0);
  EXPECT_EQ(value("clock_event_reason_active", {{"reason", "power"}}), 1);
  EXPECT_EQ(Find(r, "clock_event_reason_active", {{"reason", "thermal"}}), nullptr);
  EXPECT_GT(value("throttle_ns", {{"reason", "power"}}), 0);
  EXPECT_EQ(CountReadings(r, "throttle_ns"), 6u);
  EXPECT_EQ(CountReadings(r, "nvlink_tx_kib"), 18u);  // H100 SXM: 18 NVLink 4 links
  EXPECT_EQ(CountReadings(r, "nvlink_rx_kib"), 18u);
  EXPECT_GT(value("nvlink_tx_kib", {{"link", "17"}}), 0);
  EXPECT_EQ(value("process_used_memory_bytes", {{"pid", "4242"}}), 20.0 * (1ULL << 30));
  EXPECT_EQ(value("process_used_memory_bytes", {{"pid", "4343"}}), 8.0 * (1ULL << 30));
  EXPECT_EQ(value("process_sm_utilization_pct", {{"pid", "4242"}}), 60);
  EXPECT_EQ(value("gpm_available"), 1);
}

TEST_F(NvmlCollectorTest, CountersIncreaseBetweenCollections) {
  auto c = NewCollector();
  MustDiscover(*c);
  DeviceReadings a = MustCollect(*c, 0);
  DeviceReadings b = MustCollect(*c, 0);
  for (const char* name : {"energy_consumed_mj", "pcie_tx_bytes", "pcie_rx_bytes"}) {
    ASSERT_NE(Find(a, name), nullptr) << name;
    ASSERT_NE(Find(b, name), nullptr) << name;
    EXPECT_GT(Find(b, name)->value, Find(a, name)->value) << name;
  }
  Labels link0{{"link", "0"}};
  EXPECT_GT(Find(b, "nvlink_tx_kib", link0)->value, Find(a, "nvlink_tx_kib", link0)->value);
  Labels power{{"reason", "power"}};
  EXPECT_GT(Find(b, "throttle_ns", power)->value, Find(a, "throttle_ns", power)->value);
}

TEST_F(NvmlCollectorTest, GpmNeedsTwoSamples) {
  auto c = NewCollector();
  MustDiscover(*c);
  const char* kGpm[] = {"gpm_graphics_util_pct", "gpm_sm_util_pct", "gpm_sm_occupancy_pct",
                        "gpm_any_tensor_util_pct", "gpm_dram_bw_util_pct"};
  for (size_t device : {0u, 2u}) {  // a GPU and a MIG instance
    DeviceReadings first = MustCollect(*c, device);
    for (const char* name : kGpm) EXPECT_EQ(Find(first, name), nullptr) << name;
    DeviceReadings second = MustCollect(*c, device);
    for (const char* name : kGpm) {
      const RawReading* x = Find(second, name);
      ASSERT_NE(x, nullptr) << name << " on device " << device;
      EXPECT_GE(x->value, 0);
      EXPECT_LE(x->value, 100);
    }
  }
}

TEST_F(NvmlCollectorTest, MigInstancesReportMemoryProcessesAndNotGpuWideValues) {
  auto c = NewCollector();
  MustDiscover(*c);
  DeviceReadings mig = MustCollect(*c, 2);
  ASSERT_NE(Find(mig, "memory_total_bytes"), nullptr);
  EXPECT_EQ(Find(mig, "memory_total_bytes")->value, static_cast<double>(40192ULL << 20));
  EXPECT_NE(Find(mig, "memory_used_bytes"), nullptr);
  EXPECT_NE(Find(mig, "process_used_memory_bytes", {{"pid", "5151"}}), nullptr);
  EXPECT_EQ(Find(mig, "power_usage_mw"), nullptr);
  DeviceReadings empty_instance = MustCollect(*c, 3);
  EXPECT_EQ(CountReadings(empty_instance, "process_used_memory_bytes"), 0u);

  // The parent in MIG mode: NVML does not report utilization there.
  DeviceReadings parent = MustCollect(*c, 1);
  EXPECT_EQ(Find(parent, "utilization_gpu_pct"), nullptr);
  EXPECT_GE(ErrorCount(parent, "not_supported"), 1u);
  EXPECT_NE(Find(parent, "power_usage_mw"), nullptr);
  EXPECT_EQ(CountReadings(parent, "process_used_memory_bytes"), 0u);  // reported per instance
}

TEST_F(NvmlCollectorTest, NotSupportedFieldsAreSkippedAndCounted) {
  FAKE(FakeNvml_SetNotSupported)(0, "nvmlDeviceGetPowerUsage", 1);
  FAKE(FakeNvml_SetNotSupported)(0, "field:82", 1);
  auto c = NewCollector();
  MustDiscover(*c);
  DeviceReadings r = MustCollect(*c, 0);
  EXPECT_EQ(Find(r, "power_usage_mw"), nullptr);
  EXPECT_EQ(Find(r, "temperature_c", {{"sensor", "memory"}}), nullptr);
  EXPECT_NE(Find(r, "temperature_c", {{"sensor", "gpu"}}), nullptr);
  EXPECT_NE(Find(r, "power_limit_mw"), nullptr);
  EXPECT_EQ(ErrorCount(r, "not_supported"), 2u);
}

TEST_F(NvmlCollectorTest, LostDeviceIsUnavailableWhileOthersCollectThenRecovers) {
  auto c = NewCollector();
  ASSERT_EQ(MustDiscover(*c).size(), 4u);
  FAKE(FakeNvml_SetDeviceLost)(0, 1);
  DeviceReadings r;
  Status st = c->Collect(0, r);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ(st.message().rfind("lost: ", 0), 0u) << st.message();
  EXPECT_TRUE(r.readings.empty());
  MustCollect(*c, 1);
  MustCollect(*c, 2);

  // Re-discovery leaves the lost GPU out and keeps the others.
  std::vector<DeviceInfo> d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].pci_bus_id, "0000:43:00.0");
  MustCollect(*c, 0);

  FAKE(FakeNvml_SetDeviceLost)(0, 0);
  d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].pci_bus_id, "0000:1b:00.0");
  EXPECT_NE(Find(MustCollect(*c, 0), "power_usage_mw"), nullptr);
}

TEST_F(NvmlCollectorTest, AllGpusLostFailsDiscoveryAsUnavailable) {
  FAKE(FakeNvml_SetDeviceLost)(0, 1);
  FAKE(FakeNvml_SetDeviceLost)(1, 1);
  auto c = NewCollector();
  auto d = c->Discover();
  EXPECT_EQ(d.status().code(), StatusCode::kUnavailable) << d.status().ToString();
}

TEST_F(NvmlCollectorTest, MissingLibraryIsNotFound) {
  auto c = NewCollector("/nonexistent/gpufleet/libnvidia-ml.so.1");
  auto d = c->Discover();
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("/nonexistent/gpufleet/libnvidia-ml.so.1"),
            std::string::npos);
  DeviceReadings r;
  EXPECT_FALSE(c->Collect(0, r).ok());
}

TEST_F(NvmlCollectorTest, MissingRequiredSymbolIsNotFoundNamingIt) {
  auto c = NewCollector(FAKE_NVML_BROKEN_PATH);
  auto d = c->Discover();
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("nvmlDeviceGetUUID"), std::string::npos)
      << d.status().message();
}

TEST_F(NvmlCollectorTest, PartialLibraryWorksWithFewerReadings) {
  std::unique_ptr<FakeLibrary> partial = OpenFake(FAKE_NVML_PARTIAL_PATH);
  auto c = NewCollector(FAKE_NVML_PARTIAL_PATH);
  std::vector<DeviceInfo> d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].pci_bus_id, "0000:1b:00.0");          // via nvmlDeviceGetPciInfo_v2
  EXPECT_EQ(d[0].memory_total_bytes, 81559ULL << 20);  // via v1 memory info

  DeviceReadings r = MustCollect(*c, 0);
  EXPECT_GE(ErrorCount(r, "symbol_missing"), 2u);  // field values, GPM
  EXPECT_EQ(CountReadings(r, "nvlink_tx_kib"), 0u);
  EXPECT_EQ(Find(r, "gpm_available"), nullptr);
  EXPECT_EQ(Find(r, "temperature_c", {{"sensor", "memory"}}), nullptr);
  EXPECT_NE(Find(r, "pcie_tx_kib_per_s"), nullptr);  // throughput instead of counters
  EXPECT_NE(Find(r, "clock_event_reason_active", {{"reason", "power"}}), nullptr);
  EXPECT_NE(Find(r, "memory_used_bytes"), nullptr);
  EXPECT_NE(Find(r, "power_usage_mw"), nullptr);
  DeviceReadings again = MustCollect(*c, 0);
  EXPECT_EQ(Find(again, "gpm_sm_util_pct"), nullptr);
}

TEST_F(NvmlCollectorTest, InitVersionMismatchIsFailedPreconditionAndRetried) {
  FAKE(FakeNvml_SetInitResult)(18);  // NVML_ERROR_LIB_RM_VERSION_MISMATCH
  auto c = NewCollector();
  auto d = c->Discover();
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition) << d.status().ToString();
  FAKE(FakeNvml_SetInitResult)(0);
  EXPECT_EQ(MustDiscover(*c).size(), 4u);
}

TEST_F(NvmlCollectorTest, DriverReloadReinitializesOnNextDiscover) {
  auto c = NewCollector();
  MustDiscover(*c);
  EXPECT_EQ(FAKE(FakeNvml_InitCount)(), 1);
  FAKE(FakeNvml_SimulateDriverReload)();
  DeviceReadings r;
  EXPECT_EQ(c->Collect(0, r).code(), StatusCode::kFailedPrecondition);
  DeviceReadings other;
  EXPECT_EQ(c->Collect(1, other).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(MustDiscover(*c).size(), 4u);
  EXPECT_EQ(FAKE(FakeNvml_InitCount)(), 1);
  EXPECT_NE(Find(MustCollect(*c, 0), "power_usage_mw"), nullptr);
  c.reset();
  EXPECT_EQ(FAKE(FakeNvml_InitCount)(), 0);  // shut down on destruction
}

TEST_F(NvmlCollectorTest, XidEventsAreRunningCountersPerCode) {
  auto c = NewCollector();
  MustDiscover(*c);
  EXPECT_EQ(CountReadings(MustCollect(*c, 0), "xid_errors_total"), 0u);
  FAKE(FakeNvml_InjectXid)(0, 79);
  FAKE(FakeNvml_InjectXid)(0, 79);
  FAKE(FakeNvml_InjectXid)(0, 48);
  DeviceReadings r = MustCollect(*c, 0);
  ASSERT_NE(Find(r, "xid_errors_total", {{"code", "79"}}), nullptr);
  EXPECT_EQ(Find(r, "xid_errors_total", {{"code", "79"}})->value, 2);
  EXPECT_EQ(Find(r, "xid_errors_total", {{"code", "48"}})->value, 1);
  EXPECT_EQ(CountReadings(MustCollect(*c, 1), "xid_errors_total"), 0u);  // other GPU untouched

  // Events queued before a re-discovery are not lost, and counts survive it.
  FAKE(FakeNvml_InjectXid)(0, 48);
  MustDiscover(*c);
  r = MustCollect(*c, 0);
  EXPECT_EQ(Find(r, "xid_errors_total", {{"code", "79"}})->value, 2);
  EXPECT_EQ(Find(r, "xid_errors_total", {{"code", "48"}})->value, 2);
}

TEST_F(NvmlCollectorTest, HungDeviceBlocksOnlyItsOwnCollect) {
  auto c = NewCollector();
  MustDiscover(*c);
  FAKE(FakeNvml_SetHangMs)(1, 600'000);
  Status hung_status = InternalError("not run");
  std::thread hung([&] {
    DeviceReadings r;
    hung_status = c->Collect(1, r);
  });
  // Wait until the call is inside the hang (bounded, so a bug fails instead of hanging).
  for (int i = 0; i < 10'000 && FAKE(FakeNvml_HangingCalls)() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(FAKE(FakeNvml_HangingCalls)(), 1);
  DeviceReadings r = MustCollect(*c, 0);  // another device is not blocked
  EXPECT_NE(Find(r, "power_usage_mw"), nullptr);
  EXPECT_EQ(FAKE(FakeNvml_HangingCalls)(), 1);
  FAKE(FakeNvml_SetHangMs)(1, 0);
  hung.join();
  EXPECT_TRUE(hung_status.ok()) << hung_status.ToString();
}

TEST_F(NvmlCollectorTest, ConfigFileScriptsTheFake) {
  testing::ScopedConfigFile config("GPUFLEET_FAKE_NVML_CONFIG",
                                   "gpufleet_fake_nvml_" + std::to_string(::getpid()) + ".conf");
  config.Write("# two GPUs, the first fell off the bus\nlost = 0\ntemperature_c.1 = 60000\n");
  auto c = NewCollector();
  std::vector<DeviceInfo> d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 3u);
  DeviceReadings r = MustCollect(*c, 0);
  ASSERT_NE(Find(r, "temperature_c", {{"sensor", "gpu"}}), nullptr);
  EXPECT_EQ(Find(r, "temperature_c", {{"sensor", "gpu"}})->value, 60000);  // absurd on purpose

  // A changed file is picked up by the running library.
  config.Write("device_count = 1\nmig_device = -1\nxid.0 = 13\n");
  d = MustDiscover(*c);
  ASSERT_EQ(d.size(), 1u);
  r = MustCollect(*c, 0);
  EXPECT_LT(Find(r, "temperature_c", {{"sensor", "gpu"}})->value, 100);
  EXPECT_NE(Find(r, "utilization_gpu_pct"), nullptr);

  config.Write("init_result = 18\n");
  c = NewCollector();
  EXPECT_EQ(c->Discover().status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(NvmlCollectorTest, ProcessesAndGpmCanBeTurnedOff) {
  NvmlCollectorOptions options;
  options.library_names = {FAKE_NVML_PATH};
  options.enable_gpm = false;
  options.enable_processes = false;
  auto c = NewNvmlCollector(options);
  MustDiscover(*c);
  for (int i = 0; i < 2; ++i) {
    DeviceReadings r = MustCollect(*c, 0);
    for (const RawReading& x : r.readings) {
      EXPECT_NE(x.name.rfind("gpm_", 0), 0u) << x.name;
      EXPECT_NE(x.name.rfind("process_", 0), 0u) << x.name;
    }
  }
}

TEST_F(NvmlCollectorTest, EveryEmittedReadingIsMapped) {
  auto table = MappingTable::ForSource("nvml");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::set<std::string> names;
  auto gather = [&](Collector& c, bool with_xid) {
    size_t n = MustDiscover(c).size();
    if (with_xid) FAKE(FakeNvml_InjectXid)(0, 79);  // delivered to sets registered by Discover
    for (int round = 0; round < 2; ++round) {
      for (size_t i = 0; i < n; ++i) {
        for (const RawReading& x : MustCollect(c, i).readings) names.insert(x.name);
      }
    }
  };
  auto full = NewCollector();
  gather(*full, true);
  std::unique_ptr<FakeLibrary> partial_lib = OpenFake(FAKE_NVML_PARTIAL_PATH);
  auto partial = NewCollector(FAKE_NVML_PARTIAL_PATH);
  gather(*partial, false);
  EXPECT_GE(names.size(), 30u);
  EXPECT_EQ(names.count("xid_errors_total"), 1u);
  EXPECT_EQ(names.count("pcie_tx_kib_per_s"), 1u);
  for (const std::string& name : names) {
    const MetricMapping* m = table->Find(name);
    EXPECT_NE(m, nullptr) << name << " has no mapping in data/mappings/nvml.toml";
  }
  // Spot-check units: NVML reports mW, mJ, MHz, %.
  EXPECT_DOUBLE_EQ(table->Find("power_usage_mw")->scale, 0.001);
  EXPECT_DOUBLE_EQ(table->Find("energy_consumed_mj")->scale, 0.001);
  EXPECT_DOUBLE_EQ(table->Find("clock_mhz")->scale, 1e6);
  EXPECT_DOUBLE_EQ(table->Find("gpm_sm_util_pct")->scale, 0.01);
  EXPECT_EQ(table->Find("gpm_sm_util_pct")->method, "gpm");
  EXPECT_EQ(table->Find("utilization_gpu_pct")->method, "nvml");
}

}  // namespace
}  // namespace gpufleet
