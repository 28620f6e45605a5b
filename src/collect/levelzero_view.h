// Private to the levelzero collector: the Sysman handles one DeviceInfo entry
// (a whole GPU or one tile) reads, and the reader that turns them into raw
// readings. See levelzero_collector.h for the reading semantics.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collect/collector.h"
#include "collect/levelzero_api.h"
#include "core/status.h"

namespace gpufleet::levelzero {

struct EngineHandle {
  zes_engine_handle_t handle;
  zes_engine_group_t group;
};
struct TempHandle {
  zes_temp_handle_t handle;
  zes_temp_sensors_t sensor;
};
struct FreqHandle {
  zes_freq_handle_t handle;
  zes_freq_domain_t domain;
};
struct RasHandle {
  zes_ras_handle_t handle;
  zes_ras_error_type_t type;
};
struct PortHandle {
  zes_fabric_port_handle_t handle;
  std::string link;  // "<fabricId>.<attachId>.<portNumber>"
};

// Handles of one device entry. For a whole device whose Sysman reports a kind
// only per tile, that kind holds every tile's handles (aggregated on read).
struct View {
  zes_device_handle_t device = nullptr;
  bool pci_bandwidth = false;  // read zesDevicePciGetStats rx/tx (whole device only)
  bool pci_replay = false;
  std::vector<EngineHandle> engines;
  std::vector<zes_pwr_handle_t> power;
  std::vector<zes_mem_handle_t> memory;  // device-local modules only
  std::vector<TempHandle> temperatures;
  std::vector<FreqHandle> frequencies;
  std::vector<RasHandle> ras;
  std::vector<PortHandle> ports;
  // Reasons ("permission", "symbol_missing", ...) for kinds whose enumeration
  // failed at Discover(); counted again on every collection so they stay
  // visible in the error counters.
  std::vector<std::string> enum_errors;
};

// Previous counter sample per handle, for ratios and power.
struct CounterSample {
  uint64_t value = 0;
  uint64_t timestamp_us = 0;
};
using CounterHistory = std::unordered_map<const void*, CounterSample>;

// Reads `view` into `out`, updating `history`. Returns Unavailable when the
// device is lost, FailedPrecondition when Sysman is no longer initialized;
// other failures are counted per field.
Status ReadView(const Api& api, const View& view, CounterHistory& history, DeviceReadings& out);

// Maps a field failure to the DeviceReadings error reason.
std::string FieldErrorReason(ze_result_t result);

}  // namespace gpufleet::levelzero
