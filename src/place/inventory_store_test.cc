#include "place/inventory_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace gpufleet {
namespace {

TEST(InventoryStoreTest, ObservesDevicesAndNodesAndTracksUpgrades) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("gpufleet_inventory_" + std::to_string(getpid()) + ".db");
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + s);
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(p.string(), InventoryMigrations());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  InventoryStore inv(db->get());
  Labels h100{{"gpu_uuid", "GPU-abc"},
              {"node", "aws-h100-0"},
              {"vendor", "nvidia"},
              {"model", "h100-sxm"},
              {"cloud", "aws"},
              {"region", "us-east-1"},
              {"driver_version", "550.54.15"},
              {"pci_bus_id", "00000000:17:00.0"}};
  Status first = inv.ObserveInfo(h100, 10);
  ASSERT_TRUE(first.ok()) << first.ToString();
  // SR-IOV guest with an all-zero uuid: keyed by node and bus id.
  Labels mi300{{"gpu_uuid", "00000000-0000-0000-0000-000000000000"},
               {"node", "azure-0"},
               {"pci_bus_id", "0000:0c:00.0"},
               {"vendor", "amd"}};
  ASSERT_TRUE(inv.ObserveInfo(mi300, 10).ok());
  h100.Set("driver_version", "560.35.03");
  ASSERT_TRUE(inv.ObserveInfo(h100, 20).ok());
  EXPECT_FALSE(inv.ObserveInfo(Labels{{"vendor", "intel"}}, 20).ok());

  StatusOr<std::vector<InventoryDevice>> devices = inv.Devices();
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].key, "GPU-abc");
  EXPECT_EQ((*devices)[0].driver_version, "560.35.03");
  EXPECT_EQ((*devices)[0].last_seen_ns, 20);
  EXPECT_EQ((*devices)[1].key, "azure-0/0000:0c:00.0");
  StatusOr<std::vector<InventoryNode>> nodes = inv.Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].name, "aws-h100-0");
  EXPECT_EQ((*nodes)[0].cloud, "aws");
  std::filesystem::remove(p);
}

}  // namespace
}  // namespace gpufleet
