#include "collect/process_attribution.h"

#include <algorithm>
#include <cctype>

#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet {

namespace {

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

bool ConsumePrefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool ConsumeSuffix(std::string_view& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.substr(s.size() - suffix.size()) != suffix) return false;
  s.remove_suffix(suffix.size());
  return true;
}

// A pod UID is an RFC 4122 UUID, or 32 hex digits for static (mirror) pods.
// The systemd driver writes its dashes as underscores.
std::optional<std::string> NormalizePodUid(std::string_view raw) {
  std::string uid(raw);
  std::replace(uid.begin(), uid.end(), '_', '-');
  std::transform(uid.begin(), uid.end(), uid.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (uid.size() == 32 && IsHex(uid)) return uid;
  if (uid.size() != 36) return std::nullopt;
  for (size_t i = 0; i < uid.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (uid[i] == '-')) return std::nullopt;
    if (!dash && std::isxdigit(static_cast<unsigned char>(uid[i])) == 0) return std::nullopt;
  }
  return uid;
}

// "kubepods-burstable-pod<uid>.slice" (systemd) or "pod<uid>" (cgroupfs).
std::optional<std::string> PodUidFromComponent(std::string_view c) {
  if (ConsumeSuffix(c, ".slice")) {
    size_t at = c.rfind("-pod");
    if (at == std::string_view::npos || c.substr(0, 8) != "kubepods") return std::nullopt;
    return NormalizePodUid(c.substr(at + 4));
  }
  if (ConsumePrefix(c, "pod")) return NormalizePodUid(c);
  return std::nullopt;
}

// "cri-containerd-<id>.scope", "crio-<id>.scope", "docker-<id>.scope",
// "libpod-<id>.scope" (systemd) or a bare "<id>" (cgroupfs, /docker/<id>).
std::optional<std::string> ContainerIdFromComponent(std::string_view c) {
  if (ConsumeSuffix(c, ".scope")) {
    // conmon is CRI-O's monitor process, not the container.
    if (c.substr(0, 12) == "crio-conmon-") return std::nullopt;
    if (!ConsumePrefix(c, "cri-containerd-") && !ConsumePrefix(c, "crio-") &&
        !ConsumePrefix(c, "docker-") && !ConsumePrefix(c, "libpod-") &&
        !ConsumePrefix(c, "containerd-")) {
      return std::nullopt;
    }
  }
  if (c.size() != 64 || !IsHex(c)) return std::nullopt;
  std::string id(c);
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return id;
}

}  // namespace

std::optional<ContainerRef> ParseCgroupPath(std::string_view path) {
  ContainerRef ref;
  for (std::string_view c : SplitString(path, '/')) {
    if (c.empty()) continue;
    if (auto uid = PodUidFromComponent(c)) {
      ref.pod_uid = *uid;
    } else if (auto id = ContainerIdFromComponent(c)) {
      ref.container_id = *id;
    }
  }
  if (ref.pod_uid.empty() && ref.container_id.empty()) return std::nullopt;
  return ref;
}

std::optional<ContainerRef> ParseProcCgroup(std::string_view content) {
  // "0::/kubepods.slice/.../cri-containerd-<id>.scope" (v2) or
  // "11:memory:/kubepods/burstable/pod<uid>/<id>" (v1).
  std::optional<ContainerRef> pod_only;
  for (std::string_view line : SplitString(content, '\n')) {
    size_t first = line.find(':');
    if (first == std::string_view::npos) continue;
    size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    std::string_view path = TrimWhitespace(line.substr(second + 1));
    if (path.empty() || path[0] != '/') continue;
    std::optional<ContainerRef> ref = ParseCgroupPath(path);
    if (!ref) continue;
    if (!ref->container_id.empty()) return ref;
    if (!pod_only) pod_only = ref;
  }
  return pod_only;
}

ProcessAttributor::ProcessAttributor(std::string proc_root, Clock& clock, int64_t ttl_ns)
    : proc_root_(std::move(proc_root)), clock_(clock), ttl_ns_(ttl_ns) {}

Labels ProcessAttributor::Lookup(int64_t pid) {
  const int64_t now = clock_.MonotonicNs();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.lookups;
    auto it = cache_.find(pid);
    if (it != cache_.end() && it->second.expires_ns > now) return it->second.labels;
  }
  // Read outside the lock: a slow /proc read must not stall other lookups.
  Labels labels;
  if (pid > 0) {
    StatusOr<std::string> content =
        ReadFileToString(proc_root_ + "/" + std::to_string(pid) + "/cgroup");
    if (content.ok()) {
      if (std::optional<ContainerRef> ref = ParseProcCgroup(*content)) {
        labels.Set("workload_pod_uid", ref->pod_uid);
        labels.Set("workload_container_id", ref->container_id);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.file_reads;
  if (labels.empty()) ++stats_.unattributed;
  if (cache_.size() >= kMaxEntries) {
    std::erase_if(cache_, [now](const auto& kv) { return kv.second.expires_ns <= now; });
    if (cache_.size() >= kMaxEntries) cache_.clear();
  }
  cache_[pid] = Entry{labels, now + ttl_ns_};
  return labels;
}

ProcessAttributor::Stats ProcessAttributor::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace gpufleet
