// FleetSim: a simulated fleet with known ground truth and hard negatives,
// for scoring the detectors through the replay path (sim_recording.h,
// `gpufleet sim detect`). It writes canonical samples (the names and labels
// the normalizer produces) one collection interval at a time.
//
// Every signal comes from the physical model in fleet_sim_model.h: a
// workload's solo profile, the neighbour it shares the device with, the
// device's achievable bandwidth, and the slowdown of a co-located pair
// drawn from the full table of Gavel's measured pairs (gavel_colocation.h,
// read at run time, every feasible pair, including those that barely slow
// each other). docs/detection.md states the equations and sources.
//
// Fleet: 4 nodes x 4 GPUs (aws and gcp H100 SXM, azure and aws MI300X);
// GPUs 0-1 train, GPU 2 serves (inference), GPU 3 runs a memory-bound job
// alone at full speed the whole time (a hard negative). Workload i of a
// model runs on both clouds of that model, which is what the cross-cloud
// detector compares. A contending neighbour shows up as a second workload
// on the device (its gpu_workload_info) in half the episodes, as when
// process / pod attribution sees it; in the other half it is invisible
// (another VM, an unattributed process), so only the slowdown is evidence.
//
// Ground truth: contention (memory_pressure, bandwidth_saturation,
// coherency), variance, cloud_specific (a cloud that waits on something off
// the GPU), idle (a crashed job holding its GPU). Hard negatives (must not
// alert): solo_memory_bound, thermal_throttle, power_cap, prefill_decode,
// eval_pass, checkpoint, dataloader_stall, maintenance_drain,
// missing_scrapes, counter_reset (exporter restart), clock_skew (a node's
// clock off by 5-60 s, then stepped back).
//
// Thread safety: not thread-safe. Deterministic for a seed and a table.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "detect/fleet_sim_model.h"
#include "detect/gavel_colocation.h"
#include "store/window_store.h"

namespace gpufleet::detect {

struct FleetSimOptions {
  double duration_s = 86400;
  uint64_t seed = 1;
  int64_t interval_ns = 10'000'000'000;
  int64_t start_ns = 1'800'000'000'000'000'000;
  bool inject_truth = true;      // contention, variance, cloud-specific, idle
  bool inject_negatives = true;  // hard negatives (solo memory-bound GPUs always)
  double warmup_s = 3600;        // no episode starts before (reference windows fill)
  double mean_gap_s = 2 * 3600;  // mean extra time between episodes on one GPU
  // Gavel's feasible co-location pairs (REQUIRED: non-empty).
  std::vector<CoLocationPair> colocation;
};

enum class SimEpisodeKind {
  kMemoryPressure,
  kBandwidthSaturation,
  kCoherency,
  kVariance,
  kCloudSpecific,
  kIdle,
  // Hard negatives.
  kSoloMemoryBound,
  kThermalThrottle,
  kPowerCap,
  kPrefillDecode,
  kEvalPass,
  kCheckpoint,
  kDataLoaderStall,
  kMaintenanceDrain,
  kMissingScrapes,
  kCounterReset,
  kClockSkew,
};
std::string_view SimEpisodeKindName(SimEpisodeKind kind);
bool IsGroundTruth(SimEpisodeKind kind);

struct SimEpisode {
  SimEpisodeKind kind;
  std::vector<std::string> devices;  // DeviceKey()s
  std::string workload;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double slowdown = -1;  // contention and cloud_specific: the true slowdown
  // Drawn parameters (which apply depends on the kind).
  Contention contention;
  bool neighbour_visible = false;  // contention: the neighbour is attributed to the device
  double factor = 1;               // clock factor, wait fraction, step factor
  double prob = 0;                 // variance: share of slow steps
  bool heavy = false;
  double period_s = 60;  // prefill/decode alternation
  int64_t skew_ns = 0;
  TenantProfile phase;  // eval pass / decode phase profile
};

class FleetSim {
 public:
  explicit FleetSim(const FleetSimOptions& options);
  ~FleetSim();

  // Writes the samples of the next interval into `store`; returns its time.
  // False when the duration is over.
  bool Step(WindowStore& store, int64_t* now_ns);

  // Also hands every sample Step writes to `sink` (labels with __name__).
  void set_sink(std::function<void(const Labels&, int64_t, double)> sink) {
    sink_ = std::move(sink);
  }

  const std::vector<SimEpisode>& episodes() const { return episodes_; }
  size_t gpu_count() const;
  double gpu_days() const;
  int64_t interval_ns() const { return options_.interval_ns; }

 private:
  struct Gpu;
  void Schedule();
  void ScheduleGpu(size_t gi, std::vector<std::vector<std::pair<int64_t, int64_t>>>& reserved);
  void DrawParameters(SimEpisode& e, const Gpu& g);
  void Emit(WindowStore& store, Gpu& g, int64_t t_ns);

  const FleetSimOptions options_;
  std::mt19937_64 rng_;
  std::mt19937_64 clock_rng_;  // the clock's noise, apart so the other draws stay as they were
  std::vector<Gpu> gpus_;
  std::vector<SimEpisode> episodes_;
  int64_t tick_ = 0;
  std::function<void(const Labels&, int64_t, double)> sink_;
};

}  // namespace gpufleet::detect
