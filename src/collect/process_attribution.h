// Process attribution: pid -> container -> Kubernetes pod, from
// <proc_root>/<pid>/cgroup, so per-process GPU readings carry the workload
// labels workload_pod_uid and workload_container_id (data/metrics.toml).
//
// Understands the cgroup paths kubelet, containerd, CRI-O and Docker create,
// cgroup v1 and v2, systemd and cgroupfs drivers, e.g.
//   0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/cri-containerd-<id>.scope
//   11:memory:/kubepods/burstable/pod<uid>/<id>
//   0::/system.slice/docker-<id>.scope
// Pod names and namespaces need the API server or the kubelet's pod list and
// are not resolved here.
//
// Thread safety: ProcessAttributor is thread-safe (one mutex around the cache).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"
#include "core/labels.h"

namespace gpufleet {

struct ContainerRef {
  std::string pod_uid;       // "9c2f5a1e-...-..." (dashes, lower-case); "" outside Kubernetes
  std::string container_id;  // 64 hex digits, runtime prefix stripped; "" for a pod-level cgroup
};

// Parses one cgroup path ("/kubepods/burstable/pod<uid>/<id>"). nullopt when it
// names neither a pod nor a container (host processes, malformed paths).
std::optional<ContainerRef> ParseCgroupPath(std::string_view path);

// Parses the content of /proc/<pid>/cgroup ("hierarchy:controllers:path" per
// line). Malformed lines are skipped; the first line that names a container
// wins, else the first that names a pod.
std::optional<ContainerRef> ParseProcCgroup(std::string_view content);

class ProcessAttributor {
 public:
  struct Stats {
    uint64_t lookups = 0;
    uint64_t file_reads = 0;    // cache misses that read the cgroup file
    uint64_t unattributed = 0;  // reads that found no container (cached negatively)
  };

  // `clock` must outlive the attributor. Results (also "no container" and
  // "no such pid") are cached for `ttl_ns`, so a scrape never re-reads the
  // file of a pid it has just seen, and a reused pid is re-read after ttl_ns.
  explicit ProcessAttributor(std::string proc_root = "/proc", Clock& clock = RealClock::Get(),
                             int64_t ttl_ns = 60 * kNsPerSecond);

  // workload_pod_uid / workload_container_id for `pid`; empty Labels when the
  // process is not in a container, is gone, or its cgroup file is unreadable.
  Labels Lookup(int64_t pid);

  Stats stats() const;

 private:
  struct Entry {
    Labels labels;
    int64_t expires_ns = 0;
  };
  static constexpr size_t kMaxEntries = 65536;

  const std::string proc_root_;
  Clock& clock_;
  const int64_t ttl_ns_;

  mutable std::mutex mu_;
  std::unordered_map<int64_t, Entry> cache_;  // guarded by mu_
  Stats stats_;                               // guarded by mu_
};

}  // namespace gpufleet
