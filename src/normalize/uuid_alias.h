// UuidAliases: the real UUID of a device that an exporter text also lists
// under an all-zero UUID. The AMD Device Metrics Exporter can publish one
// GPU twice, once with gpu_uuid="00000000-0000-0000-0000-000000000000" (and,
// in the deployments seen, amd_-prefixed names) and once with its real UUID;
// both rows carry the same host and gpu_id. Rows with a null UUID take the
// real UUID of the row with the same node and identity-fallback labels
// (gpu_id for DME), so the device is one canonical device.
//
// A (node, fallback) key seen with two different real UUIDs is ambiguous and
// aliases nothing. Private to normalize/; immutable after Scan().
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "normalize/mapping_table.h"

namespace gpufleet {

// True for a UUID that identifies nothing ("00000000-0000-...", "0").
bool IsNullUuid(std::string_view v);

class UuidAliases {
 public:
  // Reads `input` once when it contains a null UUID (else does nothing);
  // `default_node` is the node of rows without a node label.
  void Scan(std::string_view input, const MappingTable& table, std::string_view default_node);
  // The real UUID for a row on `node` whose identity-fallback labels,
  // rendered by Key(), are `key`; "" when unknown.
  std::string_view Find(std::string_view node, std::string_view key) const;
  bool empty() const { return by_key_.empty(); }
  // Appends "name=value\x1f" for an identity-fallback label to `key`.
  static void AppendKey(std::string_view name, std::string_view value, std::string& key);

 private:
  std::unordered_map<std::string, std::string> by_key_;  // node \x1e key -> uuid ("" ambiguous)
};

}  // namespace gpufleet
