// AMD GPU page faults from the kernel's KFD SMI events, for any AMD source.
//
// The amdgpu driver's compute side (KFD) publishes "SMI events" to a file
// descriptor a client gets from /dev/kfd with the AMDKFD_IOC_SMI_EVENTS
// ioctl, one per GPU (its KFD gpu_id), after writing a 64-bit mask of the
// events it wants (bit i-1 for event i). Each event is one text line, "<id
// in hex> <payload>\n" (kernel kfd_smi_events.c, formats in the UAPI header
// kfd_ioctl.h since KFD 1.10); the two counted here:
//   7 <ns> -<pid> @<addr hex>(<node hex>) <R|W>    page fault start
//   8 <ns> -<pid> @<addr hex>(<node hex>) <M|U>    page fault end (migrated
//                                                  or mapping updated)
// Other events (migrations, queue evictions, resets) are counted by id but
// not published. Events of every process need the ALL_PROCESS bit and
// CAP_SYS_ADMIN: without it the kernel sends only the client's own, so the
// reader refuses to publish rather than report zeros.
//
// WithKfdPageFaults wraps whichever AMD collector the fallback chain chose:
// each device (matched by PCI bus id through the KFD topology in sysfs)
// gains the reading `kfd_page_faults_total` (page fault starts since the
// agent opened the events), which the mapping tables turn into
// gpu_page_faults_per_second{method="kfd_smi_events"}. Without /dev/kfd,
// without the capability, or on a kernel older than KFD 1.10 the inner
// collector is returned unchanged and `log` says why.
//
// Thread safety: Collect() may run for different devices at once; each
// device's events are read under its own lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collector.h"
#include "core/status.h"

namespace gpufleet {

// Event ids (enum kfd_smi_event in kfd_ioctl.h).
inline constexpr int kKfdEventPageFaultStart = 7;
inline constexpr int kKfdEventPageFaultEnd = 8;
inline constexpr int kKfdEventAllProcess = 64;

// Splits a byte stream of SMI event lines (reads may end mid-line) and
// counts events by id. A line that does not parse is counted as malformed
// and the first such is described with its byte offset in the stream.
class KfdEventStream {
 public:
  void Feed(std::string_view bytes);
  uint64_t count(int event) const;
  uint64_t malformed() const { return malformed_; }
  const std::string& first_error() const { return first_error_; }

 private:
  void Line(std::string_view line, uint64_t offset);

  std::string partial_;
  uint64_t offset_ = 0;  // of partial_'s first byte in the stream
  std::map<int, uint64_t> counts_;
  uint64_t malformed_ = 0;
  std::string first_error_;
};

// One GPU in the KFD topology (<sysfs>/class/kfd/kfd/topology/nodes/N).
struct KfdGpu {
  uint32_t gpu_id = 0;
  std::string pci_bus_id;  // "0000:c1:00.0", from properties domain + location_id
};
// Nodes with a non-zero gpu_id (CPU nodes have 0). NotFound without the tree.
StatusOr<std::vector<KfdGpu>> ReadKfdTopology(const std::string& sysfs_root);

struct KfdEventsOptions {
  std::string sysfs_root = "/sys";
  std::string dev_kfd = "/dev/kfd";
  // Opens the event descriptor of one GPU (for tests: a pipe); the default
  // opens dev_kfd once (kept open while the collector lives, as ROCm's SMI
  // library does), checks the KFD version, runs the ioctl and writes the
  // mask. Returns a non-blocking descriptor the reader owns.
  std::function<StatusOr<int>(uint32_t gpu_id)> open_events;
  // Whether this process may see every process's events; default: whether
  // CAP_SYS_ADMIN is in its effective set (/proc/self/status CapEff).
  std::function<bool()> may_see_all_processes;
};

std::unique_ptr<Collector> WithKfdPageFaults(std::unique_ptr<Collector> inner,
                                             KfdEventsOptions options,
                                             std::vector<std::string>* log = nullptr);

}  // namespace gpufleet
