#include "collect/process_attribution.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_util.h"

namespace gpufleet {
namespace {

constexpr char kCid1[] = "3f1c9a7b2d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd";
constexpr char kCid2[] = "8b2e4d6f80a1c3e5a7b9d1f3e5a7c9e1b3d5f7a9c1e3a5b7d9f1a3c5e7a9b1c3";
constexpr char kCid3[] = "d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3";
constexpr char kCid4[] = "0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5";

std::string FakeProc() { return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/proc"; }

TEST(ProcessAttributionTest, ParsesSystemdContainerdPath) {
  auto ref = ParseCgroupPath(
      "/kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod9c2f5a1e_4b7d_4e2a_9f10_2c3d4e5f6a7b.slice/"
      "cri-containerd-" +
      std::string(kCid1) + ".scope");
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->pod_uid, "9c2f5a1e-4b7d-4e2a-9f10-2c3d4e5f6a7b");
  EXPECT_EQ(ref->container_id, kCid1);
}

TEST(ProcessAttributionTest, ParsesCgroupfsAndGuaranteedPods) {
  auto ref =
      ParseCgroupPath("/kubepods/pod1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f/" + std::string(kCid2));
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->pod_uid, "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f");
  EXPECT_EQ(ref->container_id, kCid2);
  // Static pods have a 32-hex config hash as their UID.
  auto stat = ParseCgroupPath("/kubepods/burstable/pod0123456789abcdef0123456789abcdef/" +
                              std::string(kCid3));
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pod_uid, "0123456789abcdef0123456789abcdef");
}

TEST(ProcessAttributionTest, RejectsHostAndMalformedPaths) {
  EXPECT_FALSE(ParseCgroupPath("/user.slice/user-1000.slice/session-3.scope").has_value());
  EXPECT_FALSE(ParseCgroupPath("/").has_value());
  EXPECT_FALSE(ParseCgroupPath("/kubepods/burstable/podnot-a-uid/abc").has_value());
  EXPECT_FALSE(ParseCgroupPath("/system.slice/docker-1234.scope").has_value());
  EXPECT_FALSE(ParseCgroupPath("/kubepods.slice/notkube-podx.slice").has_value());
  EXPECT_FALSE(ParseProcCgroup("").has_value());
  EXPECT_FALSE(ParseProcCgroup(std::string("\0\0\xff:", 4)).has_value());
}

TEST(ProcessAttributionTest, AttributesEveryRuntimeInTheFakeTree) {
  FakeClock clock;
  ProcessAttributor attr(FakeProc(), clock);
  Labels l1 = attr.Lookup(1001);  // cgroup v2, systemd driver, containerd
  EXPECT_EQ(l1.Get("workload_pod_uid"), "9c2f5a1e-4b7d-4e2a-9f10-2c3d4e5f6a7b");
  EXPECT_EQ(l1.Get("workload_container_id"), kCid1);
  Labels l2 = attr.Lookup(1002);  // cgroup v1, cgroupfs driver
  EXPECT_EQ(l2.Get("workload_pod_uid"), "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f");
  EXPECT_EQ(l2.Get("workload_container_id"), kCid2);
  Labels l3 = attr.Lookup(1003);  // plain Docker: a container, no pod
  EXPECT_FALSE(l3.Has("workload_pod_uid"));
  EXPECT_EQ(l3.Get("workload_container_id"), kCid3);
  Labels l4 = attr.Lookup(1004);  // CRI-O, guaranteed QoS
  EXPECT_EQ(l4.Get("workload_pod_uid"), "7e8f9a0b-1c2d-4e3f-8a5b-6c7d8e9f0a1b");
  EXPECT_EQ(l4.Get("workload_container_id"), kCid4);
  Labels l9 = attr.Lookup(1009);  // pod-level cgroup (e.g. a pause process)
  EXPECT_EQ(l9.Get("workload_pod_uid"), "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d");
  EXPECT_FALSE(l9.Has("workload_container_id"));
  Labels l10 = attr.Lookup(1010);  // CRI-O conmon: pod, but not the container
  EXPECT_EQ(l10.Get("workload_pod_uid"), "9c2f5a1e-4b7d-4e2a-9f10-2c3d4e5f6a7b");
  EXPECT_FALSE(l10.Has("workload_container_id"));
}

TEST(ProcessAttributionTest, UnattributedAndBrokenProcessesGetNoLabels) {
  FakeClock clock;
  ProcessAttributor attr(FakeProc(), clock);
  EXPECT_TRUE(attr.Lookup(1005).empty());   // host session
  EXPECT_TRUE(attr.Lookup(1006).empty());   // garbage, truncated ids
  EXPECT_TRUE(attr.Lookup(1007).empty());   // empty file
  EXPECT_TRUE(attr.Lookup(1008).empty());   // no cgroup file
  EXPECT_TRUE(attr.Lookup(99999).empty());  // no such pid
  EXPECT_TRUE(attr.Lookup(-1).empty());
  EXPECT_EQ(attr.stats().unattributed, 6u);
}

TEST(ProcessAttributionTest, CachesPositiveAndNegativeResultsUntilTtl) {
  std::string root = std::string(GPUFLEET_BINARY_DIR) + "/process_attribution_test_proc";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root + "/42");
  FakeClock clock;
  ProcessAttributor attr(root, clock, 30 * kNsPerSecond);

  // Not in a container: the negative answer is cached, so scrapes in a row do
  // not hit /proc again.
  ASSERT_TRUE(WriteStringToFile(root + "/42/cgroup", "0::/user.slice/session-1.scope\n").ok());
  EXPECT_TRUE(attr.Lookup(42).empty());
  EXPECT_TRUE(attr.Lookup(42).empty());
  EXPECT_TRUE(attr.Lookup(7).empty());  // missing pid, cached too
  EXPECT_TRUE(attr.Lookup(7).empty());
  EXPECT_EQ(attr.stats().file_reads, 2u);
  EXPECT_EQ(attr.stats().lookups, 4u);

  // The pid is reused by a container process: seen once the entry expires.
  ASSERT_TRUE(WriteStringToFile(root + "/42/cgroup",
                                "0::/system.slice/docker-" + std::string(kCid3) + ".scope\n")
                  .ok());
  clock.Advance(10 * kNsPerSecond);
  EXPECT_TRUE(attr.Lookup(42).empty());
  clock.Advance(25 * kNsPerSecond);
  EXPECT_EQ(attr.Lookup(42).Get("workload_container_id"), kCid3);
  EXPECT_EQ(attr.stats().file_reads, 3u);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace gpufleet
