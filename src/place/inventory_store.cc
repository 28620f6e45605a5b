#include "place/inventory_store.h"

namespace gpufleet {
namespace {

bool IsZeroUuid(std::string_view uuid) {
  for (char c : uuid) {
    if (c != '0' && c != '-') return false;
  }
  return true;
}

}  // namespace

const std::vector<Migration>& InventoryMigrations() {
  static const std::vector<Migration> kMigrations = {
      {"inventory", 1,
       "CREATE TABLE inventory_nodes ("
       " name TEXT PRIMARY KEY,"
       " cloud TEXT NOT NULL, region TEXT NOT NULL, zone TEXT NOT NULL,"
       " last_seen_ns INTEGER NOT NULL);"
       "CREATE TABLE inventory_devices ("
       " key TEXT PRIMARY KEY,"
       " node TEXT NOT NULL, vendor TEXT NOT NULL, model TEXT NOT NULL,"
       " pci_bus_id TEXT NOT NULL, driver_version TEXT NOT NULL,"
       " runtime_version TEXT NOT NULL, arch TEXT NOT NULL, partition TEXT NOT NULL,"
       " last_seen_ns INTEGER NOT NULL);"},
  };
  return kMigrations;
}

Status InventoryStore::ObserveInfo(const Labels& labels, int64_t now_ns) {
  InventoryDevice d;
  d.node = std::string(labels.Get("node"));
  d.pci_bus_id = std::string(labels.Get("pci_bus_id"));
  std::string_view uuid = labels.Get("gpu_uuid");
  std::string_view part_kind = labels.Get("partition_kind");
  if (!uuid.empty() && !IsZeroUuid(uuid)) {
    d.key = std::string(uuid);
  } else if (!d.node.empty() && !d.pci_bus_id.empty()) {
    // AMD SR-IOV guests may report an all-zero uuid.
    d.key = d.node + "/" + d.pci_bus_id;
  } else {
    return InvalidArgumentError("gpu_info" + labels.ToString() +
                                ": neither gpu_uuid nor node + pci_bus_id");
  }
  if (!part_kind.empty()) {
    d.partition = std::string(part_kind) + ":" + std::string(labels.Get("partition_id"));
    d.key += "/" + d.partition;
  }
  d.vendor = std::string(labels.Get("vendor"));
  d.model = std::string(labels.Get("model"));
  d.driver_version = std::string(labels.Get("driver_version"));
  d.runtime_version = std::string(labels.Get("runtime_version"));
  d.arch = std::string(labels.Get("arch"));

  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  Status st = [&]() -> Status {
    ASSIGN_OR_RETURN(
        Statement dev,
        db_->Prepare("INSERT INTO inventory_devices (key, node, vendor, model, pci_bus_id, "
                     "driver_version, runtime_version, arch, partition, last_seen_ns) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                     "node = excluded.node, vendor = excluded.vendor, model = excluded.model, "
                     "pci_bus_id = excluded.pci_bus_id, driver_version = excluded.driver_version, "
                     "runtime_version = excluded.runtime_version, arch = excluded.arch, "
                     "partition = excluded.partition, last_seen_ns = excluded.last_seen_ns"));
    RETURN_IF_ERROR(dev.Bind(1, d.key)
                        .Bind(2, d.node)
                        .Bind(3, d.vendor)
                        .Bind(4, d.model)
                        .Bind(5, d.pci_bus_id)
                        .Bind(6, d.driver_version)
                        .Bind(7, d.runtime_version)
                        .Bind(8, d.arch)
                        .Bind(9, d.partition)
                        .Bind(10, now_ns)
                        .Run());
    if (d.node.empty()) return OkStatus();
    ASSIGN_OR_RETURN(
        Statement node,
        db_->Prepare("INSERT INTO inventory_nodes (name, cloud, region, zone, last_seen_ns) "
                     "VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                     "cloud = excluded.cloud, region = excluded.region, zone = excluded.zone, "
                     "last_seen_ns = excluded.last_seen_ns"));
    // std::string: an empty string_view may carry a null pointer, which SQLite binds as NULL.
    return node.Bind(1, d.node)
        .Bind(2, std::string(labels.Get("cloud")))
        .Bind(3, std::string(labels.Get("region")))
        .Bind(4, std::string(labels.Get("zone")))
        .Bind(5, now_ns)
        .Run();
  }();
  RETURN_IF_ERROR(st);
  return tx.Commit();
}

StatusOr<std::vector<InventoryNode>> InventoryStore::Nodes() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement st, db_->Prepare("SELECT name, cloud, region, zone, last_seen_ns "
                                              "FROM inventory_nodes ORDER BY name"));
  std::vector<InventoryNode> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back({st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnText(3),
                   st.ColumnInt64(4)});
  }
  return out;
}

StatusOr<std::vector<InventoryDevice>> InventoryStore::Devices() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement st,
                   db_->Prepare("SELECT key, node, vendor, model, pci_bus_id, driver_version, "
                                "runtime_version, arch, partition, last_seen_ns "
                                "FROM inventory_devices ORDER BY node, key"));
  std::vector<InventoryDevice> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back({st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnText(3),
                   st.ColumnText(4), st.ColumnText(5), st.ColumnText(6), st.ColumnText(7),
                   st.ColumnText(8), st.ColumnInt64(9)});
  }
  return out;
}

}  // namespace gpufleet
