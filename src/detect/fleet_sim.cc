#include "detect/fleet_sim.h"

#include <algorithm>
#include <cmath>

#include "detect/device_series.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;

// Deciles p10..p90 of 1 - norm_a, Gavel co-location pairs (see header).
constexpr double kGavelSlowdowns[] = {0.156, 0.25, 0.316, 0.371, 0.419, 0.459, 0.503, 0.552, 0.615};

struct NodeSpec {
  const char* name;
  const char* cloud;
  const char* region;
  const char* model;
};
constexpr NodeSpec kNodes[] = {
    {"aws-h100-0", "aws", "us-east-1", "h100-sxm"},
    {"gcp-h100-0", "gcp", "us-central1", "h100-sxm"},
    {"azure-mi300x-0", "azure", "eastus", "mi300x"},
    {"aws-mi300x-0", "aws", "us-east-2", "mi300x"},
};
constexpr int kGpusPerNode = 4;

enum Metric {
  kUtil,
  kSmActive,
  kOccupancy,
  kBandwidth,
  kStall,
  kMiss,
  kLink,
  kPcie,
  kInfo,
  kStep,
  kMetrics
};
constexpr const char* kMetricNames[kMetrics] = {"gpu_utilization_ratio",
                                                "gpu_sm_active_ratio",
                                                "gpu_sm_occupancy_ratio",
                                                "gpu_memory_bandwidth_utilization_ratio",
                                                "gpu_memory_stall_ratio",
                                                "gpu_l2_miss_ratio",
                                                "gpu_interconnect_bytes_per_second",
                                                "gpu_pcie_receive_bytes_per_second",
                                                "gpu_workload_info",
                                                "gpu_workload_step_duration_seconds"};

}  // namespace

std::string_view SimEpisodeKindName(SimEpisodeKind kind) {
  switch (kind) {
    case SimEpisodeKind::kMemoryPressure:
      return "memory_pressure";
    case SimEpisodeKind::kBandwidthSaturation:
      return "bandwidth_saturation";
    case SimEpisodeKind::kCoherency:
      return "coherency";
    case SimEpisodeKind::kVariance:
      return "variance";
    case SimEpisodeKind::kCloudSpecific:
      return "cloud_specific";
    case SimEpisodeKind::kIdle:
      return "idle";
    case SimEpisodeKind::kBurst:
      return "burst";
    case SimEpisodeKind::kThermal:
      return "thermal";
    case SimEpisodeKind::kLost:
      return "lost";
  }
  return "?";
}

bool IsGroundTruth(SimEpisodeKind kind) {
  return kind != SimEpisodeKind::kBurst && kind != SimEpisodeKind::kThermal &&
         kind != SimEpisodeKind::kLost;
}

struct FleetSim::Gpu {
  std::string device;
  Labels labels[kMetrics];
  const GpuModelSpec* spec = nullptr;
  std::string cloud;
  bool training = true;
  double bw = 0, occ = 0, util = 0, sm = 0, miss = 0, stall = 0, link = 0, step_s = 1;
  int64_t next_step_end_ns = 0;
  std::vector<size_t> episodes;  // indexes into episodes_, by start
  size_t cursor = 0;
  // Per-episode draws.
  double ep_bw = 0, ep_link = 0, ep_factor = 1, ep_prob = 0;
  bool ep_heavy = false;
};

FleetSim::FleetSim(const FleetSimOptions& options) : options_(options), rng_(options.seed) {
  std::uniform_real_distribution<double> u(0, 1);
  auto range = [&](double lo, double hi) { return lo + (hi - lo) * u(rng_); };
  for (const NodeSpec& n : kNodes) {
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(n.model);
    GPUFLEET_CHECK(spec != nullptr);
    for (int i = 0; i < kGpusPerNode; ++i) {
      Gpu g;
      g.spec = spec;
      g.cloud = n.cloud;
      Labels base{
          {"node", n.name},      {"gpu", std::to_string(i)},
          {"model", spec->name}, {"cloud", n.cloud},
          {"region", n.region},  {"vendor", spec->vendor == Vendor::kNvidia ? "nvidia" : "amd"}};
      base.Set("gpu_uuid", std::string(n.name) + "-gpu" + std::to_string(i));
      g.device = DeviceKey(base);
      // Workload i of a model runs on both clouds that have the model.
      const std::string workload = std::string(n.model) + "-job-" + std::to_string(i);
      for (int m = 0; m < kMetrics; ++m) {
        g.labels[m] = base;
        g.labels[m].Set("__name__", kMetricNames[m]);
      }
      g.labels[kInfo].Set("workload_name", workload);
      g.labels[kInfo].Set("workload_pod", workload + "-" + n.cloud);
      g.labels[kStep].Set("workload_name", workload);
      g.labels[kStep].Set("workload_team", i % 2 ? "search" : "research");
      g.labels[kStep].Set("workload_pod", workload + "-" + n.cloud);
      // Same workload, same draw on both clouds: use a per-workload stream.
      std::mt19937_64 w(std::hash<std::string>{}(workload) ^ options.seed);
      std::uniform_real_distribution<double> wu(0, 1);
      auto wrange = [&](double lo, double hi) { return lo + (hi - lo) * wu(w); };
      g.training = i != 3;
      g.bw = wrange(0.30, 0.60);
      g.occ = wrange(0.58, 0.80);
      g.util = g.training ? wrange(0.90, 0.98) : wrange(0.55, 0.80);
      g.sm = wrange(0.60, 0.85);
      g.miss = wrange(0.15, 0.30);
      g.stall = wrange(0.04, 0.10);
      g.link = wrange(0.05, 0.25);
      g.step_s = wrange(0.5, 2.0);
      g.next_step_end_ns = options.start_ns + static_cast<int64_t>(range(0, g.step_s) * 1e9);
      gpus_.push_back(std::move(g));
    }
  }
  Schedule();
}

FleetSim::~FleetSim() = default;

size_t FleetSim::gpu_count() const { return gpus_.size(); }
double FleetSim::gpu_days() const {
  return static_cast<double>(gpus_.size()) * options_.duration_s / 86400;
}

void FleetSim::Schedule() {
  std::uniform_real_distribution<double> u(0, 1);
  auto range = [&](double lo, double hi) { return lo + (hi - lo) * u(rng_); };
  const int64_t t0 = options_.start_ns;
  const int64_t end = t0 + static_cast<int64_t>(options_.duration_s * 1e9);
  const int64_t warm = t0 + static_cast<int64_t>(options_.warmup_s * 1e9);
  auto add = [&](SimEpisodeKind kind, std::vector<size_t> gpus, int64_t start, double dur_s) {
    SimEpisode e;
    e.kind = kind;
    e.start_ns = start;
    e.end_ns = std::min(end, start + static_cast<int64_t>(dur_s * 1e9));
    e.slowdown = kGavelSlowdowns[static_cast<size_t>(u(rng_) * 9) % 9];
    for (size_t gi : gpus) {
      e.devices.push_back(gpus_[gi].device);
      gpus_[gi].episodes.push_back(episodes_.size());
    }
    e.workload = std::string(gpus_[gpus[0]].labels[kStep].Get("workload_name"));
    episodes_.push_back(std::move(e));
  };

  // Fleet level: a cloud-specific slowdown of one node (all its GPUs) now and
  // then; the GPU timelines below keep clear of these windows.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> reserved(gpus_.size());
  if (options_.inject_truth) {
    int64_t t = warm + static_cast<int64_t>(range(0, options_.mean_gap_s) * 1e9);
    while (t < end) {
      const size_t node = static_cast<size_t>(u(rng_) * 4) % 4;
      const double dur = range(1800, 3600);
      std::vector<size_t> gpus;
      for (int i = 0; i < kGpusPerNode; ++i) gpus.push_back(node * kGpusPerNode + i);
      // Keep the partner cloud clean too, so the comparison has a reference.
      const size_t partner = node ^ 1;
      for (size_t gi : gpus) {
        reserved[gi].push_back({t - 2400 * kS, t + static_cast<int64_t>((dur + 2400) * 1e9)});
        reserved[partner * kGpusPerNode + gi % kGpusPerNode].push_back(
            {t - 2400 * kS, t + static_cast<int64_t>((dur + 2400) * 1e9)});
      }
      add(SimEpisodeKind::kCloudSpecific, gpus, t, dur);
      t += static_cast<int64_t>((dur + 2 * options_.mean_gap_s * (0.5 + u(rng_))) * 1e9);
    }
  }

  for (size_t gi = 0; gi < gpus_.size(); ++gi) {
    int64_t t = warm + static_cast<int64_t>(range(0, options_.mean_gap_s) * 1e9);
    while (t < end) {
      struct Choice {
        SimEpisodeKind kind;
        double weight, min_s, max_s;
      };
      std::vector<Choice> choices;
      if (options_.inject_truth) {
        choices.push_back({SimEpisodeKind::kMemoryPressure, 1, 600, 2400});
        choices.push_back({SimEpisodeKind::kBandwidthSaturation, 1, 600, 2400});
        choices.push_back({SimEpisodeKind::kCoherency, 1, 600, 2400});
        choices.push_back({SimEpisodeKind::kVariance, 1, 900, 2700});
        choices.push_back({SimEpisodeKind::kIdle, 0.7, 480, 1800});
      }
      if (options_.inject_faults) {
        choices.push_back({SimEpisodeKind::kBurst, 2, 30, 90});
        choices.push_back({SimEpisodeKind::kThermal, 0.5, 900, 2400});
        choices.push_back({SimEpisodeKind::kLost, 0.5, 300, 1200});
      }
      if (choices.empty()) break;
      double total = 0;
      for (const Choice& c : choices) total += c.weight;
      double pick = u(rng_) * total;
      const Choice* chosen = &choices.back();
      for (const Choice& c : choices) {
        if (pick < c.weight) {
          chosen = &c;
          break;
        }
        pick -= c.weight;
      }
      const double dur = range(chosen->min_s, chosen->max_s);
      const int64_t stop = t + static_cast<int64_t>(dur * 1e9);
      bool clash = false;
      for (const auto& [a, b] : reserved[gi]) clash = clash || (t < b && stop > a);
      if (!clash) add(chosen->kind, {gi}, t, dur);
      // At least 40 minutes apart, so each episode's reference windows are
      // clean.
      t = stop +
          static_cast<int64_t>(
              (2400 + std::exponential_distribution<double>(1 / options_.mean_gap_s)(rng_)) * 1e9);
    }
  }
  for (Gpu& g : gpus_) {
    std::sort(g.episodes.begin(), g.episodes.end(),
              [&](size_t a, size_t b) { return episodes_[a].start_ns < episodes_[b].start_ns; });
  }
}

bool FleetSim::Step(WindowStore& store, int64_t* now_ns) {
  const int64_t t = options_.start_ns + tick_ * options_.interval_ns;
  if (t >= options_.start_ns + static_cast<int64_t>(options_.duration_s * 1e9)) return false;
  for (Gpu& g : gpus_) Emit(store, g, t);
  ++tick_;
  *now_ns = t;
  return true;
}

void FleetSim::Emit(WindowStore& store, Gpu& g, int64_t t) {
  std::normal_distribution<double> noise(0, 0.008);
  std::uniform_real_distribution<double> u(0, 1);
  auto range = [&](double lo, double hi) { return lo + (hi - lo) * u(rng_); };
  auto clamp01 = [](double x) { return std::clamp(x, 0.0, 1.0); };

  // Active episodes on this GPU (several only when a fleet-level one overlaps).
  const SimEpisode* active = nullptr;
  const SimEpisode* cloud = nullptr;
  while (g.cursor < g.episodes.size() && episodes_[g.episodes[g.cursor]].end_ns <= t) ++g.cursor;
  for (size_t k = g.cursor; k < g.episodes.size(); ++k) {
    const SimEpisode& e = episodes_[g.episodes[k]];
    if (e.start_ns > t) break;
    if (e.end_ns <= t) continue;
    if (e.kind == SimEpisodeKind::kCloudSpecific) {
      cloud = &e;
    } else {
      active = &e;
    }
    if (t - e.start_ns < options_.interval_ns) {
      // First interval of the episode: draw its parameters.
      g.ep_bw = range(0, 1);
      g.ep_link = range(0.6, 0.9);
      g.ep_factor = range(1.5, 2.2);
      g.ep_prob = range(0.15, 0.30);
      g.ep_heavy = u(rng_) < 0.5;
      if (e.kind == SimEpisodeKind::kCloudSpecific) g.ep_factor = range(1.5, 1.9);
    }
  }
  const SimEpisodeKind kind = active ? active->kind : SimEpisodeKind::kBurst;
  if (active && kind == SimEpisodeKind::kLost) {
    g.next_step_end_ns = t + options_.interval_ns;
    return;
  }
  double bw = g.bw, occ = g.occ, util = g.util, sm = g.sm, miss = g.miss, stall = g.stall;
  double link = g.link, step_factor = 1;
  if (active) {
    const double s = active->slowdown;
    switch (kind) {
      case SimEpisodeKind::kMemoryPressure:
        bw = 0.875 + 0.02 * g.ep_bw;
        occ *= 1 - s;
        miss += 0.25 + 0.3 * s;
        stall += 0.15 + 0.3 * s;
        sm *= 1 - s;
        step_factor = 1 / (1 - s);
        break;
      case SimEpisodeKind::kBandwidthSaturation:
        bw = 0.93 + 0.05 * g.ep_bw;
        occ *= 1 - s;
        stall += 0.15 + 0.3 * s;
        sm *= 1 - s;
        step_factor = 1 / (1 - s);
        break;
      case SimEpisodeKind::kCoherency:
        link = g.ep_link;
        bw *= 0.45 + 0.17 * g.ep_bw;
        stall += 0.18 + 0.2 * s;
        sm *= 1 - s;
        step_factor = 1 / (1 - s);
        break;
      case SimEpisodeKind::kIdle:
        util = 0.01;
        sm = occ = 0.005;
        bw = 0.01;
        stall = 0.01;
        link = 0.01;
        break;
      case SimEpisodeKind::kBurst:
        bw = std::min(0.97, bw + 0.35);
        occ -= 0.25;
        stall += 0.2;
        miss += 0.2;
        break;
      case SimEpisodeKind::kThermal:
        sm *= 1 - (0.10 + 0.08 * g.ep_bw);
        bw *= 1 - (0.10 + 0.08 * g.ep_bw);
        step_factor = 1.12;
        break;
      default:
        break;
    }
  }
  if (cloud) step_factor *= g.ep_factor;

  auto put = [&](Metric m, double v) {
    store.Append(g.labels[m], t, v);
    if (sink_) sink_(g.labels[m], t, v);
  };
  put(kUtil, clamp01(util + noise(rng_)));
  put(kSmActive, clamp01(sm + noise(rng_)));
  put(kOccupancy, clamp01(occ + noise(rng_)));
  put(kBandwidth, clamp01(bw + noise(rng_)));
  put(kStall, clamp01(stall + noise(rng_)));
  put(kMiss, clamp01(miss + noise(rng_)));
  // Link and PCIe: the coherency episode drives both; normal traffic is low.
  put(kLink, clamp01(link + noise(rng_)) * 2 * g.spec->interconnect_bytes_per_s);
  put(kPcie, clamp01(link * 0.8 + noise(rng_)) * g.spec->pcie_bytes_per_s);
  if ((t / options_.interval_ns) % 6 == 0) put(kInfo, 1);

  // One point per step that ended in this interval.
  if (active && kind == SimEpisodeKind::kIdle) {
    g.next_step_end_ns = t + options_.interval_ns;
    return;
  }
  std::normal_distribution<double> step_noise(0, 0.02);
  while (g.next_step_end_ns <= t) {
    double d = g.step_s * step_factor * (1 + step_noise(rng_));
    if (active && kind == SimEpisodeKind::kVariance) {
      if (g.ep_heavy) {
        if (u(rng_) < 0.05) d *= range(2.5, 5);
      } else if (u(rng_) < g.ep_prob) {
        d *= g.ep_factor;
      }
    }
    d = std::max(d, 0.01);
    store.Append(g.labels[kStep], g.next_step_end_ns, d);
    if (sink_) sink_(g.labels[kStep], g.next_step_end_ns, d);
    g.next_step_end_ns += static_cast<int64_t>(d * 1e9);
  }
}

}  // namespace gpufleet::detect
