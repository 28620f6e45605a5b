// The device model: one GPU or one partition of a GPU (MIG instance, AMD
// XCP, Intel tile) as a collector discovered it, and the raw readings a
// collector reports for it in its source's own vocabulary. Collectors fill
// these; normalize maps them to canonical samples. Neither side owns them,
// so they live here (DESIGN.md: schema holds the device model).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"

#include "schema/vendor.h"

namespace gpufleet {

struct PartitionInfo {
  std::string kind;     // "mig", "amd_xcp", "intel_tile"; "" for a whole GPU
  std::string id;       // MIG GPU-instance id, XCP index, tile index
  std::string profile;  // "1g.10gb", "cpx", ...; may be ""
};

struct DeviceInfo {
  Vendor vendor = Vendor::kUnknown;
  std::string model;       // vendor name, e.g. "NVIDIA H100 80GB HBM3"
  std::string uuid;        // for partitions: the parent GPU's UUID
  std::string pci_bus_id;  // "0000:3b:00.0" (lower-case, 4-digit domain)
  PartitionInfo partition;
  std::string driver_version;
  std::string runtime_version;  // CUDA / ROCm / Level Zero version
  std::string arch;             // compute capability "9.0" / gfx target / Intel arch
  uint64_t memory_total_bytes = 0;
  std::string node;             // set by the sim collector; others use the agent's node name
  std::string cloud;            // ditto
  std::string region;           // ditto
};

// Normalizes a PCI bus id to "dddd:bb:dd.f" lower-case ("00000000:29:00.0" ->
// "0000:29:00.0"). Returns the input unchanged when it does not parse.
std::string CanonicalPciBusId(std::string_view id);
// Parses a PCI vendor or device id as sysfs shows it ("0x74a1", any case of
// the hex digits or the x); nullopt for anything else.
std::optional<uint32_t> ParsePciId(std::string_view text);

// One value in the source's vocabulary. `labels` carries reading-specific
// dimensions (sensor="edge", link="3", pid="1234"), never device identity.
struct RawReading {
  std::string name;
  double value = 0;
  Labels labels;
};

struct DeviceReadings {
  std::vector<RawReading> readings;
  // Fields that failed without failing the device, by reason
  // ("not_supported", "sentinel", "symbol_missing", "error"): counted into
  // gpufleet_agent_collector_errors_total.
  std::map<std::string, uint64_t> field_errors;

  void Add(std::string name, double value, Labels labels = {}) {
    readings.push_back(RawReading{std::move(name), value, std::move(labels)});
  }
  void CountError(const std::string& reason) { ++field_errors[reason]; }
};

}  // namespace gpufleet
