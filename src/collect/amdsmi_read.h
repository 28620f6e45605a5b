// Per-device reading for the AMD SMI collector (see amdsmi_collector.h for
// the reading names, units and error policy). Private to the collector.
#pragma once

#include <atomic>

#include "collect/amdsmi_library.h"
#include "collect/collector.h"
#include "schema/device.h"

namespace gpufleet {

struct AmdSmiDevice {
  amdsmi_abi::amdsmi_processor_handle handle = nullptr;
  DeviceInfo info;
  // False on XCPs other than 0: board-level sensors live on partition 0.
  bool board_sensors = true;
};

struct AmdSmiReadContext {
  const AmdSmiLibrary& lib;
  bool enable_processes;
  DeviceReadings& out;
  std::atomic<bool>& needs_reinit;  // set when the library lost its init
};

// Reads one device. Unavailable when the device (or the driver) is gone.
Status ReadAmdSmiDevice(const AmdSmiDevice& device, AmdSmiReadContext& ctx);

}  // namespace gpufleet
