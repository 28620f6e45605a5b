// Inventory and workload request files for `gpufleet place`, the server's
// placement endpoint, the Kubernetes extender and the Slurm adapter (TOML).
//
//   # inventory.toml
//   [[node]]
//   name = "a3-node-01"
//   cpu = 96                    # vCPUs (fractions allowed: 0.5)
//   memory = "1024Gi"           # Ki/Mi/Gi/Ti, or a number of MiB
//   gpus = 8
//   gpu_model = "H100-SXM"
//   vendor = "nvidia"
//   gpu_memory = "80Gi"
//   gpu_free = [1000, 1000, 500, 0, 1000, 1000, 1000, 1000]  # optional, milli-GPU per device
//   cpu_free = 64               # optional; default: all of `cpu`
//   memory_free = "512Gi"       # optional
//   interconnect = "nvlink"
//   cloud = "gcp"  region = "us-central1"  zone = "us-central1-a"
//   price_usd_per_gpu_hour = 3.2
//   [node.software]
//   driver = "550.54.15"  cuda = "12.4"  nccl = "2.21.5"
//
//   # request.toml
//   name = "train-llm"
//   cpu = 16  memory = "128Gi"  gpus = 2  gpu_share = 1.0  # share < 1: one device, fraction
//   gpu_models = ["H100-SXM", "H200"]  vendor = "nvidia"  min_gpu_memory = "80Gi"
//   interconnect = "nvlink"  region = "us-central1"  intent = "throughput"  priority = 10
//   [software]
//   cuda = "12.4"
//
// Errors name the file, the line and the field (`inventory.toml:12: node
// "a3-node-01": gpus: must be 0..32`). Unknown keys are errors (a typo must
// not silently drop a constraint).
//
// Thread safety: stateless functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "place/model.h"

namespace gpufleet::place {

struct Inventory {
  std::vector<NodeSpec> nodes;
  // Free capacity per node (same order as `nodes`); all free when the file
  // gives none.
  std::vector<NodeState> free;
};

// A Cluster of the inventory's nodes with the inventory's free capacity.
Cluster MakeCluster(const Inventory& inventory);

StatusOr<Inventory> ParseInventory(std::string_view toml, std::string_view source);
StatusOr<Inventory> LoadInventoryFile(const std::string& path);
StatusOr<WorkloadRequest> ParseRequest(std::string_view toml, std::string_view source);
StatusOr<WorkloadRequest> LoadRequestFile(const std::string& path);

// The same request as a JSON object with the same keys as request.toml
// (`{"gpus": 2, "memory": "128Gi", "software": {"cuda": "12.4"}}`), for the
// server's POST /api/v1/place. Field checks are shared with ParseRequest;
// errors name the source and the field (JSON carries no line numbers here).
StatusOr<WorkloadRequest> ParseRequestJson(std::string_view json, std::string_view source);

// Cross-field checks of a request however it was built (files, JSON, a
// Kubernetes Pod): a GPU share is for one device, gpu_milli in 1..1000, at
// most kMaxGpusPerNode GPUs, no negative amounts. The message has no location.
Status CheckRequest(const WorkloadRequest& req);

// Kubernetes resource quantities ("500m", "2", "1.5", "4Gi", "512M", "1e3").
// CPU: a number of cores, returned in milli-cores (rounded up).
StatusOr<int64_t> ParseCpuMilli(std::string_view quantity);
// Memory: a quantity of bytes, returned in MiB (rounded up). With
// `bare_is_mib`, a number without a suffix means MiB (inventory files);
// otherwise bytes (Kubernetes).
StatusOr<int64_t> ParseMemoryMib(std::string_view quantity, bool bare_is_mib);

}  // namespace gpufleet::place
