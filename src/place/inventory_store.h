// InventoryStore: what the fleet is made of, as last reported, in the SQLite
// state database (tables `inventory_nodes` and `inventory_devices`, component
// "inventory"; place owns them: the fleet's inventory is what placement
// decides over). The server feeds it from ingested `gpu_info` series, so the
// inventory survives restarts and answers "which nodes, clouds, regions,
// drivers and runtimes do we run" without the window store.
//
// Thread safety: all methods are thread-safe (serialized by an internal
// mutex). The StateDb must not be used by anything else concurrently.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/labels.h"
#include "core/status.h"
#include "store/state_db.h"

namespace gpufleet {

const std::vector<Migration>& InventoryMigrations();

struct InventoryNode {
  std::string name;
  std::string cloud;
  std::string region;
  std::string zone;
  int64_t last_seen_ns = 0;
};

struct InventoryDevice {
  std::string key;  // gpu_uuid, or node/pci_bus_id when the uuid is empty or all zero
  std::string node;
  std::string vendor;
  std::string model;
  std::string pci_bus_id;
  std::string driver_version;
  std::string runtime_version;
  std::string arch;
  std::string partition;  // "kind:id", "" when the device is not a partition
  int64_t last_seen_ns = 0;
};

class InventoryStore {
 public:
  // `db` must outlive the store and have InventoryMigrations() applied.
  explicit InventoryStore(StateDb* db) : db_(db) {}

  // Records the device (and its node) described by the labels of one
  // `gpu_info` series seen at `now_ns`. Rows only change when something did
  // (a driver upgrade shows up), but last_seen always moves.
  // InvalidArgument when the labels name neither a uuid nor node + pci_bus_id.
  Status ObserveInfo(const Labels& labels, int64_t now_ns);

  StatusOr<std::vector<InventoryNode>> Nodes();
  StatusOr<std::vector<InventoryDevice>> Devices();

 private:
  std::mutex mu_;
  StateDb* db_;  // guarded by mu_
};

}  // namespace gpufleet
