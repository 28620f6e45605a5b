#include "collect/kfd_events.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "core/file_util.h"
#include "core/strings.h"
#include "schema/device.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

// The documented subset of the kernel UAPI <linux/kfd_ioctl.h> (a stable
// ABI; the header itself needs libdrm's <drm/drm.h>, which we do not
// install for four declarations).
struct KfdVersionArgs {  // struct kfd_ioctl_get_version_args
  uint32_t major_version;
  uint32_t minor_version;
};
struct KfdSmiEventsArgs {  // struct kfd_ioctl_smi_events_args
  uint32_t gpuid;          // to KFD
  uint32_t anon_fd;        // from KFD
};
static_assert(sizeof(KfdVersionArgs) == 8 && sizeof(KfdSmiEventsArgs) == 8);
constexpr unsigned long kKfdIocGetVersion = _IOR('K', 0x01, KfdVersionArgs);
constexpr unsigned long kKfdIocSmiEvents = _IOWR('K', 0x1F, KfdSmiEventsArgs);
// The request numbers the kernel expects (dir << 30 | size << 16 | 'K' << 8 | nr).
static_assert(kKfdIocGetVersion == 0x80084b01UL && kKfdIocSmiEvents == 0xc0084b1fUL);
constexpr uint64_t KfdEventMask(int event) { return 1ULL << (event - 1); }
constexpr size_t kKfdSmiEventMsgSize = 96;  // KFD_SMI_EVENT_MSG_SIZE

// A message is at most kKfdSmiEventMsgSize bytes; a longer "line" is not one.
constexpr size_t kMaxLine = 4 * kKfdSmiEventMsgSize;

std::string Quote(std::string_view s) {
  return "\"" + std::string(s.substr(0, 40)) + (s.size() > 40 ? "...\"" : "\"");
}

bool ParseHex(std::string_view s, uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// "<ns> -<pid> @<addr>(<node>) <c>", c one of `letters`.
std::string CheckFault(std::string_view payload, std::string_view letters) {
  std::vector<std::string_view> f;
  for (size_t i = 0; i < payload.size();) {
    size_t sp = payload.find(' ', i);
    if (sp == std::string_view::npos) sp = payload.size();
    f.push_back(payload.substr(i, sp - i));
    i = sp + 1;
  }
  if (f.size() != 4) return "expected \"<ns> -<pid> @<address>(<node>) <flag>\"";
  const std::optional<int64_t> ns = ParseInt64(f[0]);
  if (!ns || *ns < 0) return "bad timestamp " + Quote(f[0]);
  if (f[1].size() < 2 || f[1][0] != '-' || !ParseInt64(f[1].substr(1))) {
    return "bad pid " + Quote(f[1]);
  }
  const size_t open = f[2].find('(');
  uint64_t h = 0;
  if (f[2].size() < 4 || f[2][0] != '@' || open == std::string_view::npos || f[2].back() != ')' ||
      !ParseHex(f[2].substr(1, open - 1), h) ||
      !ParseHex(f[2].substr(open + 1, f[2].size() - open - 2), h)) {
    return "bad address " + Quote(f[2]);
  }
  if (f[3].size() != 1 || letters.find(f[3][0]) == std::string_view::npos) {
    return "bad flag " + Quote(f[3]);
  }
  return "";
}

// CAP_SYS_ADMIN (bit 21) in this process's effective capabilities.
bool HasSysAdmin() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (!line.starts_with("CapEff:")) continue;
    uint64_t caps = 0;
    return ParseHex(TrimWhitespace(std::string_view(line).substr(7)), caps) &&
           (caps & (1ULL << 21)) != 0;
  }
  return false;
}

// /dev/kfd, opened once and kept open while event descriptors are read from
// it (as ROCm's own SMI library does), checked for KFD >= 1.10.
class KfdFile {
 public:
  explicit KfdFile(std::string path) : path_(std::move(path)) {}
  ~KfdFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  KfdFile(const KfdFile&) = delete;
  KfdFile& operator=(const KfdFile&) = delete;

  StatusOr<int> OpenEvents(uint32_t gpu_id) {
    if (fd_ < 0) RETURN_IF_ERROR(Open());
    KfdSmiEventsArgs args{};
    args.gpuid = gpu_id;
    if (::ioctl(fd_, kKfdIocSmiEvents, &args) != 0) {
      const int err = errno;
      return ErrnoError("AMDKFD_IOC_SMI_EVENTS", err);
    }
    const int fd = static_cast<int>(args.anon_fd);
    const uint64_t mask = KfdEventMask(kKfdEventPageFaultStart) |
                          KfdEventMask(kKfdEventPageFaultEnd) | KfdEventMask(kKfdEventAllProcess);
    if (::write(fd, &mask, sizeof(mask)) != static_cast<ssize_t>(sizeof(mask))) {
      int err = errno;
      ::close(fd);
      return ErrnoError("setting the SMI event mask", err);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
  }

 private:
  Status Open() {
    int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      return ErrnoError("open " + path_, err);
    }
    KfdVersionArgs version{};
    if (::ioctl(fd, kKfdIocGetVersion, &version) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoError("AMDKFD_IOC_GET_VERSION", err);
    }
    // Page-fault events came with KFD 1.10 (the SMI profiler events).
    if (version.major_version != 1 || version.minor_version < 10) {
      ::close(fd);
      return FailedPreconditionError("KFD " + std::to_string(version.major_version) + "." +
                                     std::to_string(version.minor_version) +
                                     " has no page-fault events (they need 1.10, Linux 6.0)");
    }
    fd_ = fd;
    return OkStatus();
  }

  std::string path_;
  int fd_ = -1;
};

class KfdPageFaultCollector final : public Collector {
 public:
  KfdPageFaultCollector(std::unique_ptr<Collector> inner, std::map<std::string, uint32_t> gpus,
                        std::function<StatusOr<int>(uint32_t)> open, std::vector<std::string>* log)
      : inner_(std::move(inner)), open_(std::move(open)) {
    for (const auto& [bus, gpu_id] : gpus) {
      StatusOr<int> fd = open_(gpu_id);
      if (!fd.ok()) {
        if (log != nullptr) {
          log->push_back("amd: kfd page faults of " + bus + " off: " + fd.status().ToString());
        }
        continue;
      }
      auto e = std::make_unique<Events>();
      e->fd = *fd;
      events_.emplace(bus, std::move(e));
    }
    if (log != nullptr && !events_.empty()) {
      log->push_back("amd: kfd page faults from SMI events on " + std::to_string(events_.size()) +
                     " GPU(s)");
    }
  }
  ~KfdPageFaultCollector() override {
    for (auto& [bus, e] : events_) ::close(e->fd);
  }
  bool any() const { return !events_.empty(); }

  std::string_view source() const override { return inner_->source(); }

  StatusOr<std::vector<DeviceInfo>> Discover() override {
    StatusOr<std::vector<DeviceInfo>> devices = inner_->Discover();
    if (devices.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      bus_of_.clear();
      for (const DeviceInfo& d : *devices) bus_of_.push_back(CanonicalPciBusId(d.pci_bus_id));
    }
    return devices;
  }

  Status Collect(size_t index, DeviceReadings& out) override {
    RETURN_IF_ERROR(inner_->Collect(index, out));
    Events* e = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (index >= bus_of_.size()) return OkStatus();
      auto it = events_.find(bus_of_[index]);
      if (it == events_.end()) return OkStatus();
      e = it->second.get();
    }
    std::lock_guard<std::mutex> lock(e->mu);
    char buf[4096];
    while (true) {
      ssize_t n = ::read(e->fd, buf, sizeof(buf));
      if (n > 0) {
        e->stream.Feed(std::string_view(buf, static_cast<size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        out.CountError("error");
        return OkStatus();  // the other fields stand
      }
      break;
    }
    out.Add("kfd_page_faults_total", static_cast<double>(e->stream.count(kKfdEventPageFaultStart)));
    if (e->stream.malformed() > e->reported_malformed) {
      out.field_errors["malformed"] += e->stream.malformed() - e->reported_malformed;
      e->reported_malformed = e->stream.malformed();
    }
    return OkStatus();
  }

 private:
  struct Events {
    std::mutex mu;
    int fd = -1;
    KfdEventStream stream;
    uint64_t reported_malformed = 0;
  };
  std::unique_ptr<Collector> inner_;
  std::function<StatusOr<int>(uint32_t)> open_;
  std::map<std::string, std::unique_ptr<Events>> events_;  // by PCI bus id
  std::mutex mu_;
  std::vector<std::string> bus_of_;  // device index -> PCI bus id
};

}  // namespace

void KfdEventStream::Feed(std::string_view bytes) {
  partial_.append(bytes);
  size_t start = 0;
  while (true) {
    size_t nl = partial_.find('\n', start);
    if (nl == std::string::npos) break;
    Line(std::string_view(partial_).substr(start, nl - start), offset_ + start);
    start = nl + 1;
  }
  partial_.erase(0, start);
  offset_ += start;
  if (partial_.size() > kMaxLine) {  // no newline in sight: not an event stream
    Line(partial_, offset_);
    offset_ += partial_.size();
    partial_.clear();
  }
}

uint64_t KfdEventStream::count(int event) const {
  auto it = counts_.find(event);
  return it == counts_.end() ? 0 : it->second;
}

void KfdEventStream::Line(std::string_view line, uint64_t offset) {
  std::string why;
  uint64_t id = 0;
  const size_t sp = line.find(' ');
  if (line.size() > kMaxLine) {
    why = "line longer than " + std::to_string(kMaxLine) + " bytes";
  } else if (sp == std::string_view::npos || !ParseHex(line.substr(0, sp), id) || id == 0 ||
             id >= kKfdEventAllProcess) {
    why = "expected \"<event id in hex> <payload>\"";
  } else if (id == kKfdEventPageFaultStart) {
    why = CheckFault(line.substr(sp + 1), "RW");
  } else if (id == kKfdEventPageFaultEnd) {
    why = CheckFault(line.substr(sp + 1), "MU");
  }
  if (!why.empty()) {
    if (malformed_++ == 0) {
      first_error_ = "kfd smi events: byte " + std::to_string(offset) + ": " + why;
    }
    return;
  }
  ++counts_[static_cast<int>(id)];
}

StatusOr<std::vector<KfdGpu>> ReadKfdTopology(const std::string& sysfs_root) {
  const fs::path nodes = fs::path(sysfs_root) / "class" / "kfd" / "kfd" / "topology" / "nodes";
  std::error_code ec;
  if (!fs::is_directory(nodes, ec)) return NotFoundError("no KFD topology at " + nodes.string());
  std::vector<KfdGpu> out;
  for (fs::directory_iterator it(nodes, ec), end; !ec && it != end; it.increment(ec)) {
    StatusOr<std::string> id = ReadFileToString((it->path() / "gpu_id").string());
    const std::optional<int64_t> gpu_id = id.ok() ? ParseInt64(TrimWhitespace(*id)) : std::nullopt;
    if (!gpu_id || *gpu_id <= 0 || *gpu_id > UINT32_MAX) continue;  // a CPU node (0), unreadable
    StatusOr<std::string> props = ReadFileToString((it->path() / "properties").string());
    if (!props.ok()) continue;
    int64_t location = -1, domain = 0;
    std::istringstream in(*props);
    std::string key;
    int64_t value = 0;
    while (in >> key >> value) {
      if (key == "location_id") location = value;
      if (key == "domain") domain = value;
    }
    if (location < 0) continue;
    char bus[32];
    std::snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", static_cast<unsigned>(domain & 0xffff),
                  static_cast<unsigned>((location >> 8) & 0xff),
                  static_cast<unsigned>((location >> 3) & 0x1f),
                  static_cast<unsigned>(location & 0x7));
    out.push_back({static_cast<uint32_t>(*gpu_id), bus});
  }
  return out;
}

std::unique_ptr<Collector> WithKfdPageFaults(std::unique_ptr<Collector> inner,
                                             KfdEventsOptions options,
                                             std::vector<std::string>* log) {
  auto say = [&](const std::string& why) {
    if (log != nullptr) log->push_back("amd: kfd page faults off: " + why);
  };
  std::error_code ec;
  if (!options.open_events && !fs::exists(options.dev_kfd, ec)) {
    say("no " + options.dev_kfd);
    return inner;
  }
  const bool all = options.may_see_all_processes ? options.may_see_all_processes() : HasSysAdmin();
  if (!all) {
    say("needs CAP_SYS_ADMIN to see every process's events (the kernel sends others none)");
    return inner;
  }
  StatusOr<std::vector<KfdGpu>> gpus = ReadKfdTopology(options.sysfs_root);
  if (!gpus.ok()) {
    say(gpus.status().ToString());
    return inner;
  }
  std::map<std::string, uint32_t> by_bus;
  for (const KfdGpu& g : *gpus) by_bus[g.pci_bus_id] = g.gpu_id;
  // The collector keeps the opener, and with it /dev/kfd, open.
  auto open = options.open_events ? options.open_events
                                  : [kfd = std::make_shared<KfdFile>(options.dev_kfd)](
                                        uint32_t id) { return kfd->OpenEvents(id); };
  // Discover() was run by the chain; the wrapper learns the indexes again.
  auto wrapped = std::make_unique<KfdPageFaultCollector>(std::move(inner), std::move(by_bus),
                                                         std::move(open), log);
  if (!wrapped->any()) return wrapped;
  (void)wrapped->Discover();
  return wrapped;
}

}  // namespace gpufleet
