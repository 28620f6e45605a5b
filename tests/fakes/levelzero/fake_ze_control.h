// Control functions exported by the fake Level Zero loader
// (tests/fakes/levelzero/fake_ze_loader.cc). Tests bind them with
// DynamicLibrary from the same file the collector loads, so both share the
// fake's state.
//
// The fake scripts two Intel GPUs:
//   device 0: "Intel(R) Data Center GPU Max 1550", 0000:3a:00.0, 2 tiles;
//             engines, memory, temperatures, frequencies, RAS and Xe Link
//             ports per tile; power: one card domain plus one per tile.
//   device 1: "Intel(R) Data Center GPU Flex 170", 0000:4d:00.0, no tiles;
//             all handles device-level; media engines; no fabric ports.
// Counters advance with a monotonic clock plus an offset tests can push
// forward (fake_ze_advance_us) so rates are deterministic.
//
// Environment: GPUFLEET_FAKE_LEVELZERO_CONFIG names a file of `key = value`
// lines, re-read whenever its mtime changes, for end-to-end tests of the real
// agent: init = ok|permission|uninitialized, device.N.lost = 0|1,
// device.N.hang_ms = MS, device.N.busy = RATIO, device.N.power_w = WATTS,
// device.N.deny = KIND (engine|power|memory|temperature|frequency|ras|fabric|pci).
#pragma once

#include <cstdint>

extern "C" {
// Back to the scripted defaults (also clears the time offset).
void fake_ze_reset(void);
// Result returned by zesInit / zeInit (a ze_result_t value).
void fake_ze_set_init_result(int32_t result);
// Every call on the device returns ZE_RESULT_ERROR_DEVICE_LOST while set.
void fake_ze_set_device_lost(int device, int lost);
// Every call on the device sleeps this long first.
void fake_ze_set_hang_ms(int device, int ms);
// Busy fraction of the device's engines (ENGINE_GROUP_ALL).
void fake_ze_set_busy(int device, double ratio);
// Power draw of the device's card domain.
void fake_ze_set_power_watts(int device, double watts);
// State reads of one resource kind ("engine", "power", "memory",
// "temperature", "frequency", "ras", "fabric", "pci") return `result`.
void fake_ze_set_kind_result(int device, const char* kind, int32_t result);
// Moves the fake's clock forward.
void fake_ze_advance_us(uint64_t us);
}
