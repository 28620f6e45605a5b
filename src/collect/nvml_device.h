// Internals of the NVML collector shared by its .cc files: the per-device
// state kept between collections, the bookkeeping of NVML return codes
// within one Collect(), and the reading families.
// Private to collect/nvml_*.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "collect/collector.h"
#include "collect/nvml_api.h"
#include "core/status.h"

namespace gpufleet {

// Running Xid counts of one GPU by code. Outlives re-discovery (keyed by
// UUID in the collector) so gpu_xid_errors_total stays monotonic.
struct NvmlXidCounts {
  std::mutex mu;
  std::map<unsigned long long, uint64_t> by_code;  // guarded by mu
};

// One discovered device: a whole GPU or a MIG GPU instance.
struct NvmlDevice {
  explicit NvmlDevice(const NvmlApi& a) : api(&a) {}
  // Frees the event set and GPM samples.
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  // Set at discovery, then read-only.
  const NvmlApi* api;
  nvml::nvmlDevice_t handle = nullptr;    // the GPU, or the MIG device
  nvml::nvmlDevice_t parent = nullptr;    // the GPU holding `handle` (== handle for a GPU)
  bool is_mig = false;                    // a MIG GPU instance
  bool mig_enabled = false;               // a whole GPU in MIG mode
  unsigned gpu_instance_id = 0;           // MIG only
  std::shared_ptr<NvmlXidCounts> xids;    // whole GPUs only
  nvml::nvmlEventSet_t events = nullptr;  // whole GPUs; null when events are unsupported

  // Serializes Collect() on this device; guards everything below.
  std::mutex mu;
  int gpm_support = -1;  // -1 not yet asked, 0 no, 1 yes
  nvml::nvmlGpmSample_t gpm_prev = nullptr;
  nvml::nvmlGpmSample_t gpm_cur = nullptr;
  bool gpm_have_prev = false;
  unsigned long long last_process_sample_us = 0;
  int nvlink_count = -1;  // -1 not yet asked
};

// NVML codes that fail a whole Collect() rather than one field.
bool IsDeviceFatal(nvml::nvmlReturn_t rc);
// Codes after which NVML must be initialized again (driver unloaded/reloaded).
bool NeedsReinit(nvml::nvmlReturn_t rc);
// The Status for a failed NVML call, naming the call: lost / reset ->
// Unavailable("lost: ..."), version mismatch and re-init codes ->
// FailedPrecondition, NO_PERMISSION -> PermissionDenied, NOT_FOUND ->
// NotFound, NOT_SUPPORTED -> Unimplemented, TIMEOUT -> DeadlineExceeded,
// anything else -> Internal.
Status NvmlStatus(const NvmlApi& api, nvml::nvmlReturn_t rc, std::string_view call);

// Bookkeeping for the NVML calls of one Collect(). Field-level failures are
// counted into the readings' field_errors; the first device-fatal failure is
// kept and ends the collection.
class NvmlCallScope {
 public:
  NvmlCallScope(const NvmlApi& api, DeviceReadings& out) : api_(api), out_(out) {}

  const NvmlApi& api() const { return api_; }
  DeviceReadings& out() { return out_; }

  // False, counting "symbol_missing", when the library lacks the function.
  template <typename FnPtr>
  bool Has(FnPtr fn) {
    if (fn != nullptr) return true;
    out_.CountError("symbol_missing");
    return false;
  }
  // True on NVML_SUCCESS. Otherwise counts NOT_SUPPORTED / NO_PERMISSION as
  // "not_supported", remembers a device-fatal code, or counts "error".
  bool Ok(nvml::nvmlReturn_t rc, std::string_view call);

  bool failed() const { return !status_.ok(); }
  const Status& status() const { return status_; }
  bool needs_reinit() const { return needs_reinit_; }

 private:
  const NvmlApi& api_;
  DeviceReadings& out_;
  Status status_;
  bool needs_reinit_ = false;
};

// Reading families. Each reads what the library offers and records failures
// in `s`; callers stop when s.failed(). REQUIRES: d.mu held.
void ReadUtilization(NvmlDevice& d, NvmlCallScope& s);
void ReadMemory(NvmlDevice& d, NvmlCallScope& s);  // GPU or MIG handle
void ReadPower(NvmlDevice& d, NvmlCallScope& s);
void ReadThermalAndClocks(NvmlDevice& d, NvmlCallScope& s);
void ReadReliability(NvmlDevice& d, NvmlCallScope& s);  // ECC, remapped rows, PCIe replays
void ReadClockEventReasons(NvmlDevice& d, NvmlCallScope& s);
void ReadFieldValues(NvmlDevice& d, NvmlCallScope& s);  // memory temp, PCIe, throttle, NVLink
void ReadProcesses(NvmlDevice& d, NvmlCallScope& s);
void ReadXidEvents(NvmlDevice& d, NvmlCallScope& s);
void ReadGpm(NvmlDevice& d, NvmlCallScope& s);

// Creates d.events and registers Xid events; leaves it null when the
// library or device does not support events.
void SetUpXidEvents(NvmlDevice& d);
// Counts the events still queued in d.events (before the set is dropped).
void DrainXidEvents(NvmlDevice& d);

}  // namespace gpufleet
