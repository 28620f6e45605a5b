// FleetSim: a simulated fleet with known ground truth for evaluating the
// detectors. It writes canonical samples (the names and labels the
// normalizer produces) straight into a WindowStore, one collection interval
// at a time, and records which injected episode was active where.
//
// Why not the sim collector (src/collect)? That simulator models power,
// thermals and faults of the collector path, but has none of the signals the
// detectors need (memory stall share, L2-miss-like ratio, per-step
// durations, per-workload cross-cloud pairs). This generator is deliberately
// small and states its signal model here, so the evaluation measures the
// detection logic (thresholds, windows, joins, root-cause shares, noise and
// fault robustness), not the realism of the signals.
//
// Fleet: 4 nodes x 4 GPUs (aws and gcp H100 SXM, azure and aws MI300X); each
// GPU runs one workload; workload i of a model runs on both clouds of that
// model (same name), which is what the cross-cloud detector compares.
// Per GPU and interval, with Gaussian noise (sd 0.008 on ratios, 2% on
// step times):
//   normal: bandwidth 0.30-0.60, occupancy 0.58-0.80, utilization 0.90-0.98
//     (training) or 0.55-0.80 (inference), SM active 0.60-0.85, L2 miss
//     0.15-0.30, stall 0.04-0.10, links 0.05-0.25 of peak, step 0.5-2 s.
//   memory_pressure (a neighbour thrashing cache/DRAM): bandwidth 0.875-0.895,
//     occupancy x (1 - s), L2 miss +0.25 + 0.3 s, stall +0.15 + 0.3 s.
//   bandwidth_saturation: bandwidth 0.93-0.98, miss unchanged, occupancy
//     x (1 - s), stall +0.15 + 0.3 s.
//   coherency (host/peer page traffic): links 0.6-0.9 of peak, bandwidth x
//     0.45-0.62, utilization unchanged, stall +0.18 + 0.2 s.
//   In all three SM activity x (1 - s) and steps / (1 - s), with the
//   slowdown s drawn from the deciles (p10-p90) of Gavel's measured
//   co-location slowdowns (1 - norm_a over 1881 feasible pairs of
//   ../shared/traces/gavel/colocation_throughputs_sf1.csv: 0.156 ... 0.615).
//   variance: 15-30% of steps 1.5-2.2x slower (bimodal) or a log-normal tail.
//   cloud_specific: steps x 1.5-1.9 on every GPU of one cloud of a model.
//   idle (job crashed, xid): utilization, SM, bandwidth ~0, no steps.
// Not ground truth (must not alert): noisy-neighbour bursts of 30-90 s
// (bandwidth +0.35, occupancy -0.25, stall +0.2), thermal throttling (SM and
// bandwidth -10..18%, steps +12%), GPU lost (no samples for 5-20 min).
//
// Thread safety: not thread-safe. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "store/window_store.h"

namespace gpufleet::detect {

struct FleetSimOptions {
  double duration_s = 86400;
  uint64_t seed = 1;
  int64_t interval_ns = 10'000'000'000;
  int64_t start_ns = 1'800'000'000'000'000'000;
  bool inject_truth = true;      // false = clean scenario (bursts and faults only)
  bool inject_faults = true;     // noisy-neighbour bursts, throttling, GPU lost
  double warmup_s = 3600;        // no episode starts before (reference windows fill)
  double mean_gap_s = 4 * 3600;  // mean clean time between episodes on one GPU
};

// Ground-truth and nuisance episode kinds.
enum class SimEpisodeKind {
  kMemoryPressure,
  kBandwidthSaturation,
  kCoherency,
  kVariance,
  kCloudSpecific,
  kIdle,
  kBurst,    // nuisance
  kThermal,  // nuisance
  kLost,     // nuisance
};
std::string_view SimEpisodeKindName(SimEpisodeKind kind);
bool IsGroundTruth(SimEpisodeKind kind);

struct SimEpisode {
  SimEpisodeKind kind;
  std::vector<std::string> devices;  // DeviceKey()s
  std::string workload;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double slowdown = 0;  // contention kinds
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
  void Emit(WindowStore& store, Gpu& g, int64_t t_ns);

  const FleetSimOptions options_;
  std::mt19937_64 rng_;
  std::vector<Gpu> gpus_;
  std::vector<SimEpisode> episodes_;
  int64_t tick_ = 0;
  std::function<void(const Labels&, int64_t, double)> sink_;
};

}  // namespace gpufleet::detect
