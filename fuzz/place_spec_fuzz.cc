// Fuzzes the placement input readers: inventory and request TOML, request
// JSON (POST /api/v1/place), and Kubernetes extender bodies (Pod and
// ExtenderArgs). Whatever parses must satisfy the model's invariants and be
// placeable without tripping a CHECK.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "place/k8s_extender.h"
#include "place/placement_report.h"
#include "place/spec_file.h"

namespace {

using namespace gpufleet::place;

void CheckRequestInvariants(const WorkloadRequest& r) {
  if (!CheckRequest(r).ok()) __builtin_trap();
  if (r.gpu_count < 0 || r.gpu_count > kMaxGpusPerNode) __builtin_trap();
  if (r.gpu_count > 0 && (r.gpu_milli < 1 || r.gpu_milli > kMilliPerGpu)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  static const Inventory* kFleet = [] {
    auto inv = ParseInventory(R"([[node]]
name = "a"
cpu = 16
memory = "64Gi"
gpus = 2
gpu_model = "H100-SXM"
vendor = "nvidia"
gpu_free = [1000, 250]
[node.software]
driver = "550.54.15"
cuda = "12.4"
[[node]]
name = "b"
cpu = 8
memory = 1024
)",
                              "fleet");
    if (!inv.ok()) __builtin_trap();
    return new Inventory(*inv);
  }();

  auto inv = ParseInventory(in, "fuzz");
  if (inv.ok()) {
    if (inv->nodes.size() != inv->free.size()) __builtin_trap();
    Cluster c = MakeCluster(*inv);  // CHECKs the per-GPU state sizes
    if (c.used_gpu_milli() < 0 || c.used_gpu_milli() > c.total_gpu_milli()) __builtin_trap();
  }
  for (auto req : {ParseRequest(in, "fuzz"), ParseRequestJson(in, "fuzz"), PodToRequest(in)}) {
    if (!req.ok()) continue;
    CheckRequestInvariants(*req);
    auto policy = MakePlacementPolicy("gpufleet");
    if (!policy.ok()) __builtin_trap();
    Cluster c = MakeCluster(*kFleet);
    (void)ExplainPlacement(c, *req, **policy, {});
  }
  (void)ExtenderFilter(*kFleet, {}, in);
  (void)ExtenderPrioritize(*kFleet, "bestfit", {}, in);
  return 0;
}
