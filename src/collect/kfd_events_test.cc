#include "collect/kfd_events.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "collect/amd_collector.h"
#include "collect/testing/collector_test_util.h"
#include "normalize/mapping_table.h"
#include "normalize/normalizer.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

// Lines as the kernel writes them: "%x " then KFD_EVENT_FMT_PAGEFAULT_START
// ("%lld -%d @%lx(%x) %c\n") or _END, a migration start, a GPU reset.
constexpr char kStart1[] = "7 1234567890 -4321 @7f3a12340(2) W\n";
constexpr char kStart2[] = "7 1234567990 -4321 @7f3a12350(2) R\n";
constexpr char kEnd[] = "8 1234568990 -4321 @7f3a12340(2) M\n";
constexpr char kMigrate[] = "5 1234560000 -4321 @7f3a12(200) 0->2 0:0 1\n";
constexpr char kReset[] = "3 1 HWS_hang\n";

TEST(KfdEventStreamTest, CountsEventsAcrossSplitReads) {
  std::string all = std::string(kStart1) + kMigrate + kStart2 + kEnd + kReset;
  KfdEventStream s;
  // Reads may end anywhere, mid-line included.
  for (size_t i = 0; i < all.size(); i += 7) s.Feed(std::string_view(all).substr(i, 7));
  EXPECT_EQ(s.count(kKfdEventPageFaultStart), 2u);
  EXPECT_EQ(s.count(kKfdEventPageFaultEnd), 1u);
  EXPECT_EQ(s.count(5), 1u);
  EXPECT_EQ(s.count(3), 1u);
  EXPECT_EQ(s.malformed(), 0u) << s.first_error();
}

TEST(KfdEventStreamTest, BadLinesAreCountedWithTheirOffset) {
  KfdEventStream s;
  s.Feed(kStart1);
  s.Feed("7 12 -1 @zz(2) W\n");  // starts at byte 35
  s.Feed("7 12 -1 @10(2) X\n");
  s.Feed("hello\n");
  s.Feed(std::string(2000, 'x'));  // no newline ever
  EXPECT_EQ(s.count(kKfdEventPageFaultStart), 1u);
  EXPECT_EQ(s.malformed(), 4u);
  EXPECT_EQ(s.first_error(), "kfd smi events: byte 35: bad address \"@zz(2)\"");
}

// A KFD topology as sysfs shows it: a CPU node (gpu_id 0) and two GPUs.
fs::path WriteTopology(const fs::path& root) {
  const fs::path nodes = root / "class/kfd/kfd/topology/nodes";
  auto node = [&](int n, uint32_t gpu_id, int location, int domain) {
    fs::create_directories(nodes / std::to_string(n));
    std::ofstream(nodes / std::to_string(n) / "gpu_id") << gpu_id << "\n";
    std::ofstream p(nodes / std::to_string(n) / "properties");
    p << "cpu_cores_count 0\nsimd_count 304\nvendor_id 4098\ndevice_id 29857\n"
      << "location_id " << location << "\ndomain " << domain << "\ndrm_render_minor 128\n";
  };
  node(0, 0, 0, 0);
  node(1, 53302, (0xc1 << 8) | (0 << 3) | 0, 0);  // 0000:c1:00.0
  node(2, 4714, (0x21 << 8) | (1 << 3) | 2, 1);   // 0001:21:01.2
  return root;
}

TEST(KfdTopologyTest, MapsGpuIdsToPciBusIds) {
  const fs::path root =
      fs::path(::testing::TempDir()) / ("kfd_topology_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto gpus = ReadKfdTopology(WriteTopology(root).string());
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  std::map<std::string, uint32_t> by_bus;
  for (const KfdGpu& g : *gpus) by_bus[g.pci_bus_id] = g.gpu_id;
  EXPECT_EQ(by_bus,
            (std::map<std::string, uint32_t>{{"0000:c1:00.0", 53302}, {"0001:21:01.2", 4714}}));
  EXPECT_EQ(ReadKfdTopology((root / "absent").string()).status().code(), StatusCode::kNotFound);
  fs::remove_all(root);
}

// An inner collector with two devices and one fixed reading each.
class TwoGpus final : public Collector {
 public:
  std::string_view source() const override { return "amdgpu_sysfs"; }
  StatusOr<std::vector<DeviceInfo>> Discover() override {
    std::vector<DeviceInfo> out(2);
    out[0].pci_bus_id = "0000:C1:00.0";
    out[1].pci_bus_id = "0000:99:00.0";  // not in the KFD topology
    return out;
  }
  Status Collect(size_t, DeviceReadings& out) override {
    out.Add("gpu_busy_percent", 50);
    return OkStatus();
  }
};

std::optional<double> Reading(const DeviceReadings& r, std::string_view name) {
  for (const RawReading& x : r.readings) {
    if (x.name == name) return x.value;
  }
  return std::nullopt;
}

TEST(KfdPageFaultsTest, CountsPageFaultStartsPerDevice) {
  const fs::path root =
      fs::path(::testing::TempDir()) / ("kfd_faults_" + std::to_string(::getpid()));
  fs::remove_all(root);
  WriteTopology(root);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  std::vector<uint32_t> opened;
  KfdEventsOptions o;
  o.sysfs_root = root.string();
  o.open_events = [&](uint32_t gpu_id) -> StatusOr<int> {
    opened.push_back(gpu_id);
    if (gpu_id != 53302) return PermissionDeniedError("no");
    int fd = pipe_fds[0];
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
  };
  o.may_see_all_processes = [] { return true; };
  std::vector<std::string> log;
  std::unique_ptr<Collector> c = WithKfdPageFaults(std::make_unique<TwoGpus>(), o, &log);
  EXPECT_EQ(c->source(), "amdgpu_sysfs");
  std::sort(opened.begin(), opened.end());
  EXPECT_EQ(opened, (std::vector<uint32_t>{4714, 53302}));
  ASSERT_TRUE(c->Discover().ok());

  std::string events = std::string(kStart1) + kEnd + kStart2 + "7 5 -1 @1";
  ASSERT_EQ(::write(pipe_fds[1], events.data(), events.size()),
            static_cast<ssize_t>(events.size()));
  DeviceReadings r0, r1;
  ASSERT_TRUE(c->Collect(0, r0).ok());
  ASSERT_TRUE(c->Collect(1, r1).ok());
  EXPECT_EQ(Reading(r0, "gpu_busy_percent"), 50);
  EXPECT_EQ(Reading(r0, "kfd_page_faults_total"), 2);
  EXPECT_EQ(Reading(r1, "kfd_page_faults_total"), std::nullopt);  // no events for it
  // The line cut short completes on the next read; the count is cumulative.
  std::string rest = "0(2) R\n";
  ASSERT_EQ(::write(pipe_fds[1], rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
  DeviceReadings again;
  ASSERT_TRUE(c->Collect(0, again).ok());
  EXPECT_EQ(Reading(again, "kfd_page_faults_total"), 3);
  ::close(pipe_fds[1]);
  bool said = false;
  for (const std::string& l : log) said |= l.find("on 1 GPU(s)") != std::string::npos;
  EXPECT_TRUE(said);
  fs::remove_all(root);
}

// Every AMD source's table turns the count into a rate per second.
TEST(KfdPageFaultsTest, EveryAmdSourceMapsTheCountToARate) {
  for (const char* source : {"amdsmi", "rocm_smi", "amdgpu_sysfs"}) {
    auto table = MappingTable::ForSource(source);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    Normalizer n(std::move(*table));
    DeviceInfo d;
    d.vendor = Vendor::kAmd;
    d.uuid = "GPU-1";
    d.pci_bus_id = "0000:c1:00.0";
    std::vector<Sample> out;
    NormalizeStats stats;
    DeviceReadings first, second;
    first.Add("kfd_page_faults_total", 120);
    second.Add("kfd_page_faults_total", 420);
    const Labels labels = DeviceLabels(d, NodeIdentity{"node-a", "", ""});
    n.Normalize(d, labels, first, 1'000'000'000, out, stats);
    EXPECT_EQ(testing::FindSample(out, "gpu_page_faults_per_second"), nullptr);  // needs two
    n.Normalize(d, labels, second, 11'000'000'000, out, stats);
    const Sample* rate = testing::FindSample(out, "gpu_page_faults_per_second",
                                             Labels{{"method", "kfd_smi_events"}});
    ASSERT_NE(rate, nullptr) << source;
    EXPECT_DOUBLE_EQ(rate->value, 30.0) << source;  // 300 faults over 10 s
  }
}

TEST(KfdPageFaultsTest, WithoutTheCapabilityNothingIsPublished) {
  const fs::path root =
      fs::path(::testing::TempDir()) / ("kfd_nocap_" + std::to_string(::getpid()));
  fs::remove_all(root);
  WriteTopology(root);
  KfdEventsOptions o;
  o.sysfs_root = root.string();
  bool opened = false;
  o.open_events = [&](uint32_t) -> StatusOr<int> {
    opened = true;
    return -1;
  };
  o.may_see_all_processes = [] { return false; };
  std::vector<std::string> log;
  std::unique_ptr<Collector> c = WithKfdPageFaults(std::make_unique<TwoGpus>(), o, &log);
  EXPECT_FALSE(opened);
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  EXPECT_EQ(Reading(r, "kfd_page_faults_total"), std::nullopt);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("CAP_SYS_ADMIN"), std::string::npos) << log[0];
  fs::remove_all(root);
}

TEST(KfdPageFaultsTest, NoDevKfdLeavesTheSourceAsItIs) {
  KfdEventsOptions o;
  o.dev_kfd = "/nonexistent/kfd";
  std::vector<std::string> log;
  std::unique_ptr<Collector> c = WithKfdPageFaults(std::make_unique<TwoGpus>(), o, &log);
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  EXPECT_EQ(r.readings.size(), 1u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("/nonexistent/kfd"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet
