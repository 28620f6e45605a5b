// Scenario: a simulated fleet for the sim collector (data/scenarios/*.toml):
// nodes with GPUs from the hardware catalog, workloads with load profiles, and
// injected episodes (contention, throttling, faults) on a timeline that starts
// when the collector is created.
//
// File format (TOML; data/scenarios/default.toml is a complete example):
//
//   name = "mixed-fleet"
//   seed = 42                       # noise seed; same seed + time = same values
//   interval_s = 10                 # suggested collection interval
//
//   [[node]]
//   name = "aws-h100-0"
//   cloud = "aws"                   # region, zone likewise
//   price_usd_per_gpu_hour = { on_demand = 6.88, spot = 2.5, committed = 4.3 }
//   driver_version = "550.90.07"    # optional; vendor default otherwise
//   gpus = [{ model = "h100-sxm", count = 8 }]
//   # per-GPU overrides: more entries with count = 1, power_limit_watts = ...
//   # partitions = { kind = "mig", profiles = ["3g.40gb", "3g.40gb"] }
//   # partitions = { kind = "intel_tile", count = 2 } / { kind = "amd_xcp", count = 4, profile =
//   "cpx" }
//
//   [[workload]]
//   id = "llm-pretrain"
//   team = "research"
//   kind = "training"               # training | inference | batch
//   node = "aws-h100-0"
//   gpus = [0, 1, 2, 3]             # physical GPU indices on the node
//   partitions = [0]                # optional: partition indices on those GPUs
//   pod = "pretrain-0"              # optional workload labels: namespace, container
//   start_s = 0                     # optional window: start_s, duration_s
//   load = { sm_activity = 0.85, memory_bandwidth = 0.45, tensor_share = 0.6,
//            memory_gib = 60, step_period_s = 1.2, pcie = 0.02, interconnect = 0.3 }
//
//   [[episode]]
//   kind = "memory_contention"      # see EpisodeKind
//   node = "aws-h100-0"
//   gpus = [2]                      # optional; default: every GPU of the node
//   start_s = 600
//   duration_s = 300
//   magnitude = 0.6                 # 0-1 severity (kind specific, see sim_model.h)
//   code = 79                       # xid only: the vendor's error code
//   severity = "uncorrected"        # ecc only: corrected | uncorrected
//
// Thread safety: a Scenario is a plain value, immutable once loaded.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {

struct ScenarioGpu {
  const GpuModelSpec* spec = nullptr;  // owned by HardwareCatalog::Default() (static)
  double power_limit_watts = 0;        // set: defaults to spec->tdp_watts
  std::string partition_kind;          // "", "mig", "amd_xcp", "intel_tile"
  // One entry per partition ("" when the kind has no profile names); empty
  // for a whole GPU.
  std::vector<std::string> partition_profiles;

  size_t partition_count() const { return partition_profiles.size(); }
};

struct ScenarioNode {
  std::string name;
  std::string cloud;
  std::string region;
  std::string zone;
  double on_demand_usd_per_gpu_hour = 0;
  double spot_usd_per_gpu_hour = 0;  // 0 = not offered
  double committed_usd_per_gpu_hour = 0;
  std::string driver_version;   // "" = the vendor default of the simulator
  std::string runtime_version;  // ditto
  int cpu_cores = 0;
  uint64_t host_memory_bytes = 0;
  std::vector<ScenarioGpu> gpus;
};

enum class WorkloadKind { kTraining, kInference, kBatch };
std::string_view WorkloadKindName(WorkloadKind kind);

// What a workload asks of each of its GPUs (or partitions), as fractions of
// that device's peak.
struct LoadProfile {
  double sm_activity = 0.7;       // fraction of SMs/CUs busy
  double memory_bandwidth = 0.3;  // DRAM throughput / peak
  double tensor_share = 0.5;      // fraction of the SM activity spent in tensor pipes
  uint64_t memory_bytes = 0;      // device memory footprint per device
  double step_period_s = 0;       // >0: activity dips once per step (sync/communication)
  double pcie = 0.02;             // PCIe throughput / per-direction peak
  double interconnect = 0;        // GPU-GPU link throughput / per-direction peak
};

struct ScenarioWorkload {
  std::string id;
  std::string team;
  WorkloadKind kind = WorkloadKind::kTraining;
  size_t node = 0;              // index into Scenario::nodes
  std::vector<int> gpus;        // physical GPU indices on the node
  std::vector<int> partitions;  // partition indices; empty = all partitions
  std::string pod;
  std::string pod_namespace;
  std::string container;
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();
  LoadProfile load;
  int64_t pid = 0;  // derived from the id: stable across runs
};

enum class EpisodeKind {
  kMemoryContention,     // a neighbour hammers DRAM: bandwidth high, occupancy and throughput down
  kBandwidthSaturation,  // the workload itself saturates DRAM: tensor throughput down
  kCoherency,            // host/peer page traffic: PCIe and link bytes up, SM activity down
  kThermalThrottle,      // cooling fault: temperature up, clocks down, thermal throttle time
  kPowerCap,             // power limit lowered: power clamped, clocks down, power throttle time
  kGpuLost,              // Collect returns Unavailable("lost") for the window
  kXid,                  // one critical error event (code) at start_s
  kEcc,                  // `magnitude` ECC errors spread over the window
  kHang,                 // Collect blocks (on the real clock, bounded)
};
std::string_view EpisodeKindName(EpisodeKind kind);

struct ScenarioEpisode {
  EpisodeKind kind = EpisodeKind::kMemoryContention;
  size_t node = 0;        // index into Scenario::nodes
  std::vector<int> gpus;  // physical GPU indices; empty = every GPU of the node
  double start_s = 0;
  double duration_s = 0;
  double magnitude = 0.5;
  int code = 0;              // xid
  bool uncorrected = false;  // ecc

  bool ActiveAt(double t_s) const { return t_s >= start_s && t_s < start_s + duration_s; }
  bool Targets(size_t node_index, int gpu) const;
};

struct Scenario {
  std::string name;
  std::string origin;  // file name, for messages
  uint64_t seed = 1;
  double interval_s = 10;
  std::vector<ScenarioNode> nodes;
  std::vector<ScenarioWorkload> workloads;
  std::vector<ScenarioEpisode> episodes;
};

// Parses a scenario. Errors are InvalidArgument naming origin:line and the
// field: unknown model or field, bad GPU or partition index, duplicate node
// or workload ids, ratios outside [0, 1], footprints larger than the device.
StatusOr<Scenario> ParseScenario(std::string_view toml, std::string_view origin);

// "default" = the embedded data/scenarios/default.toml; anything else is a
// file path (NotFound when missing).
StatusOr<Scenario> LoadScenario(std::string_view path_or_default);

}  // namespace gpufleet
