#include "detect/fleet_sim.h"

#include <algorithm>
#include <cmath>

#include "detect/device_series.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;

struct NodeSpec {
  const char* name;
  const char* cloud;
  const char* region;
  // The model's achievable share of its peak bandwidth (A) is the catalog's
  // stream_bandwidth_ratio: the middle of the measured anchors in
  // ../shared/reference/ecosystem.md (data/hardware.toml names them).
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
  kClock,
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
                                                "gpu_clock_hertz",
                                                "gpu_workload_info",
                                                "gpu_workload_step_duration_seconds"};

constexpr const char* kKindNames[] = {"memory_pressure",   "bandwidth_saturation",
                                      "coherency",         "variance",
                                      "cloud_specific",    "idle",
                                      "solo_memory_bound", "thermal_throttle",
                                      "power_cap",         "prefill_decode",
                                      "eval_pass",         "checkpoint",
                                      "dataloader_stall",  "maintenance_drain",
                                      "missing_scrapes",   "counter_reset",
                                      "clock_skew"};

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

bool IsContention(SimEpisodeKind k) {
  return k == SimEpisodeKind::kMemoryPressure || k == SimEpisodeKind::kBandwidthSaturation ||
         k == SimEpisodeKind::kCoherency;
}

ContentionCause CauseOf(SimEpisodeKind k) {
  if (k == SimEpisodeKind::kMemoryPressure) return ContentionCause::kMemoryPressure;
  if (k == SimEpisodeKind::kCoherency) return ContentionCause::kCoherency;
  return ContentionCause::kBandwidthSaturation;
}

}  // namespace

std::string_view SimEpisodeKindName(SimEpisodeKind kind) {
  const size_t i = static_cast<size_t>(kind);
  return i < std::size(kKindNames) ? kKindNames[i] : "?";
}

bool IsGroundTruth(SimEpisodeKind kind) {
  return static_cast<int>(kind) <= static_cast<int>(SimEpisodeKind::kIdle);
}

struct FleetSim::Gpu {
  std::string device;
  Labels labels[kMetrics];
  Labels neighbour_info;  // gpu_workload_info of a visible contending neighbour
  const GpuModelSpec* spec = nullptr;
  size_t node = 0;
  WorkloadClass cls = WorkloadClass::kTraining;
  TenantProfile profile;
  double achievable_bw = 0.8;
  int64_t next_step_end_ns = 0;
  double carry_s = 0;            // time a checkpoint added to the step it interrupted
  double idle_carry_s = 0;       // input waits drawn that run into the next interval
  std::vector<size_t> episodes;  // indexes into episodes_, by start
  size_t cursor = 0;
};

FleetSim::FleetSim(const FleetSimOptions& options)
    : options_(options), rng_(options.seed), clock_rng_(options.seed ^ 0x5eedc10cULL) {
  GPUFLEET_CHECK(!options_.colocation.empty());
  for (size_t ni = 0; ni < std::size(kNodes); ++ni) {
    const NodeSpec& n = kNodes[ni];
    const GpuModelSpec* spec = HardwareCatalog::Default().Find(n.model);
    GPUFLEET_CHECK(spec != nullptr);
    for (int i = 0; i < kGpusPerNode; ++i) {
      Gpu g;
      g.spec = spec;
      g.node = ni;
      GPUFLEET_CHECK(spec->stream_bandwidth_ratio > 0);
      g.achievable_bw = spec->stream_bandwidth_ratio;
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
      g.labels[kClock].Set("domain", "sm");
      for (Metric m : {kInfo, kStep}) {
        g.labels[m].Set("workload_name", workload);
        g.labels[m].Set("workload_pod", workload + "-" + n.cloud);
      }
      g.labels[kStep].Set("workload_team", i % 2 ? "search" : "research");
      g.neighbour_info = base;
      g.neighbour_info.Set("__name__", kMetricNames[kInfo]);
      g.neighbour_info.Set("workload_name", workload + "-neighbour");
      g.neighbour_info.Set("workload_pod", workload + "-neighbour-" + n.cloud);
      g.cls = i < 2 ? WorkloadClass::kTraining
                    : (i == 2 ? WorkloadClass::kInference : WorkloadClass::kMemoryBound);
      // Same workload, same profile on both clouds: a per-workload stream.
      std::mt19937_64 w(std::hash<std::string>{}(workload) ^ options.seed);
      g.profile = DrawProfile(g.cls, g.achievable_bw, w);
      g.next_step_end_ns =
          options.start_ns + static_cast<int64_t>(Uniform(rng_, 0, g.profile.step_s) * 1e9);
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

void FleetSim::DrawParameters(SimEpisode& e, const Gpu& g) {
  std::mt19937_64& r = rng_;
  if (IsContention(e.kind)) {
    const auto& table = options_.colocation;
    const CoLocationPair& pair =
        table[std::uniform_int_distribution<size_t>(0, table.size() - 1)(r)];
    e.contention.cause = CauseOf(e.kind);
    e.contention.slowdown = std::clamp(pair.slowdown_a(), 0.0, 0.95);
    e.contention.neighbour_rate = pair.norm_b;
    e.contention.neighbour = DrawNeighbour(e.contention.cause, g.achievable_bw, r);
    e.contention.link_efficiency = Uniform(r, 0.5, 0.9);
    e.contention.host_path = Uniform(r, 0, 1) < 0.5;
    e.neighbour_visible = Uniform(r, 0, 1) < 0.5;
    e.slowdown = e.contention.slowdown;
    return;
  }
  switch (e.kind) {
    case SimEpisodeKind::kVariance:
      e.heavy = Uniform(r, 0, 1) < 0.5;
      e.prob = Uniform(r, 0.05, 0.3);
      e.factor = Uniform(r, 1.2, 2.2);
      break;
    case SimEpisodeKind::kCloudSpecific:
      e.factor = Uniform(r, 0.05, 0.5);  // share of time waiting off the GPU
      e.slowdown = e.factor;
      break;
    case SimEpisodeKind::kThermalThrottle:
      e.factor = Uniform(r, 0.55, 0.95);  // SM clock / nominal
      break;
    case SimEpisodeKind::kPowerCap:
      e.factor = Uniform(r, 0.7, 0.95);
      break;
    case SimEpisodeKind::kPrefillDecode:
      e.period_s = Uniform(r, 20, 180);
      e.factor = Uniform(r, 1.5, 3);  // prefill step / usual step
      e.phase = DrawProfile(WorkloadClass::kMemoryBound, g.achievable_bw, r);
      e.phase.step_s = g.profile.step_s * Uniform(r, 0.4, 0.6);
      break;
    case SimEpisodeKind::kEvalPass:
      e.phase = DrawProfile(WorkloadClass::kInference, g.achievable_bw, r);
      e.phase.util = g.profile.util;
      e.phase.step_s = g.profile.step_s * Uniform(r, 0.3, 0.5);  // forward only
      break;
    case SimEpisodeKind::kCheckpoint:
      e.factor = Uniform(r, 0.5, 0.85);  // PCIe device-to-host / peak
      break;
    case SimEpisodeKind::kDataLoaderStall:
      e.factor = Uniform(r, 0.1, 0.6);  // share of time waiting for input
      break;
    case SimEpisodeKind::kClockSkew:
      e.skew_ns = static_cast<int64_t>(Uniform(r, 5, 60) * 1e9) * (Uniform(r, 0, 1) < 0.5 ? -1 : 1);
      break;
    default:
      break;
  }
}

void FleetSim::Schedule() {
  const int64_t t0 = options_.start_ns;
  const int64_t end = t0 + static_cast<int64_t>(options_.duration_s * 1e9);
  const int64_t warm = t0 + static_cast<int64_t>(options_.warmup_s * 1e9);
  auto add = [&](SimEpisodeKind kind, const std::vector<size_t>& gpus, int64_t start,
                 double dur_s) {
    SimEpisode e;
    e.kind = kind;
    e.start_ns = start;
    e.end_ns = std::min(end, start + static_cast<int64_t>(dur_s * 1e9));
    for (size_t gi : gpus) {
      e.devices.push_back(gpus_[gi].device);
      gpus_[gi].episodes.push_back(episodes_.size());
    }
    e.workload = std::string(gpus_[gpus[0]].labels[kStep].Get("workload_name"));
    DrawParameters(e, gpus_[gpus[0]]);
    episodes_.push_back(std::move(e));
  };
  // The memory-bound GPUs run alone at full speed for the whole run.
  for (size_t gi = 0; gi < gpus_.size(); ++gi) {
    if (gpus_[gi].cls == WorkloadClass::kMemoryBound) {
      add(SimEpisodeKind::kSoloMemoryBound, {gi}, t0, options_.duration_s);
    }
  }
  // Fleet level: one node's GPUs slowed by something off the GPU (cloud
  // specific); the GPU timelines below keep clear of it and of the partner
  // cloud, so the comparison has a reference.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> reserved(gpus_.size());
  if (options_.inject_truth) {
    int64_t t = warm + static_cast<int64_t>(Uniform(rng_, 0, 2 * options_.mean_gap_s) * 1e9);
    while (t < end) {
      const size_t node = std::uniform_int_distribution<size_t>(0, 3)(rng_);
      const double dur = Uniform(rng_, 1800, 3600);
      std::vector<size_t> gpus;
      for (int i = 0; i < kGpusPerNode; ++i) gpus.push_back(node * kGpusPerNode + i);
      const size_t partner = node ^ 1;
      for (size_t gi : gpus) {
        const std::pair<int64_t, int64_t> span{t - 2400 * kS,
                                               t + static_cast<int64_t>((dur + 2400) * 1e9)};
        reserved[gi].push_back(span);
        reserved[partner * kGpusPerNode + gi % kGpusPerNode].push_back(span);
      }
      add(SimEpisodeKind::kCloudSpecific, gpus, t, dur);
      t += static_cast<int64_t>((dur + 4 * options_.mean_gap_s * Uniform(rng_, 0.5, 1.5)) * 1e9);
    }
  }
  // Node level: the node's clock off for a while, then stepped back.
  if (options_.inject_negatives) {
    for (size_t node = 0; node < std::size(kNodes); ++node) {
      int64_t t = warm + static_cast<int64_t>(Uniform(rng_, 0, 4 * options_.mean_gap_s) * 1e9);
      while (t < end) {
        const double dur = Uniform(rng_, 1800, 7200);
        std::vector<size_t> gpus;
        for (int i = 0; i < kGpusPerNode; ++i) gpus.push_back(node * kGpusPerNode + i);
        add(SimEpisodeKind::kClockSkew, gpus, t, dur);
        t += static_cast<int64_t>((dur + 8 * options_.mean_gap_s * Uniform(rng_, 0.5, 1.5)) * 1e9);
      }
    }
  }
  for (size_t gi = 0; gi < gpus_.size(); ++gi) ScheduleGpu(gi, reserved);
  for (Gpu& g : gpus_) {
    std::sort(g.episodes.begin(), g.episodes.end(),
              [&](size_t a, size_t b) { return episodes_[a].start_ns < episodes_[b].start_ns; });
  }
}

void FleetSim::ScheduleGpu(size_t gi,
                           std::vector<std::vector<std::pair<int64_t, int64_t>>>& reserved) {
  const int64_t end = options_.start_ns + static_cast<int64_t>(options_.duration_s * 1e9);
  const WorkloadClass cls = gpus_[gi].cls;
  struct Choice {
    SimEpisodeKind kind;
    double weight, min_s, max_s;
  };
  std::vector<Choice> choices;
  if (options_.inject_truth) {
    choices.push_back({SimEpisodeKind::kMemoryPressure, 1, 600, 2400});
    choices.push_back({SimEpisodeKind::kBandwidthSaturation, 1, 600, 2400});
    choices.push_back({SimEpisodeKind::kCoherency, 1, 600, 2400});
    choices.push_back({SimEpisodeKind::kVariance, 0.7, 900, 2700});
    choices.push_back({SimEpisodeKind::kIdle, 0.5, 480, 1800});
  }
  if (options_.inject_negatives) {
    choices.push_back({SimEpisodeKind::kThermalThrottle, 0.4, 1800, 10800});
    choices.push_back({SimEpisodeKind::kPowerCap, 0.4, 1800, 10800});
    if (cls == WorkloadClass::kInference) {
      choices.push_back({SimEpisodeKind::kPrefillDecode, 1.2, 1800, 7200});
    }
    if (cls == WorkloadClass::kTraining) {
      choices.push_back({SimEpisodeKind::kEvalPass, 0.6, 180, 900});
      choices.push_back({SimEpisodeKind::kCheckpoint, 0.6, 60, 480});
      choices.push_back({SimEpisodeKind::kDataLoaderStall, 0.5, 300, 1800});
    }
    choices.push_back({SimEpisodeKind::kMaintenanceDrain, 0.3, 1800, 7200});
    choices.push_back({SimEpisodeKind::kMissingScrapes, 0.4, 120, 1200});
    choices.push_back({SimEpisodeKind::kCounterReset, 0.4, 10, 30});
  }
  if (choices.empty()) return;
  double total = 0;
  for (const Choice& c : choices) total += c.weight;
  int64_t t = options_.start_ns + static_cast<int64_t>(options_.warmup_s * 1e9) +
              static_cast<int64_t>(Uniform(rng_, 0, options_.mean_gap_s) * 1e9);
  while (t < end) {
    double pick = Uniform(rng_, 0, total);
    const Choice* chosen = &choices.back();
    for (const Choice& c : choices) {
      if (pick < c.weight) {
        chosen = &c;
        break;
      }
      pick -= c.weight;
    }
    const double dur = Uniform(rng_, chosen->min_s, chosen->max_s);
    const int64_t stop = t + static_cast<int64_t>(dur * 1e9);
    bool clash = false;
    for (const auto& [a, b] : reserved[gi]) clash = clash || (t < b && stop > a);
    if (!clash) {
      SimEpisode e;
      e.kind = chosen->kind;
      e.start_ns = t;
      e.end_ns = std::min(end, stop);
      e.devices = {gpus_[gi].device};
      e.workload = std::string(gpus_[gi].labels[kStep].Get("workload_name"));
      DrawParameters(e, gpus_[gi]);
      gpus_[gi].episodes.push_back(episodes_.size());
      episodes_.push_back(std::move(e));
    }
    // At least 40 minutes apart, so each episode's reference windows are clean.
    t = stop +
        static_cast<int64_t>(
            (2400 + std::exponential_distribution<double>(1 / options_.mean_gap_s)(rng_)) * 1e9);
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
  std::normal_distribution<double> noise(0, 0.01);
  std::normal_distribution<double> clock_noise(0, 0.005);
  auto clamp01 = [](double x) { return std::clamp(x, 0.0, 1.0); };

  // Active episodes: at most one per GPU timeline, plus fleet- and
  // node-level ones (cloud-specific, clock skew) and the background one.
  const SimEpisode* active = nullptr;
  const SimEpisode* cloud = nullptr;
  int64_t skew_ns = 0;
  while (g.cursor < g.episodes.size() && episodes_[g.episodes[g.cursor]].end_ns <= t &&
         episodes_[g.episodes[g.cursor]].kind != SimEpisodeKind::kSoloMemoryBound) {
    ++g.cursor;
  }
  for (size_t k = g.cursor; k < g.episodes.size(); ++k) {
    const SimEpisode& e = episodes_[g.episodes[k]];
    if (e.start_ns > t) break;
    if (e.end_ns <= t) continue;
    if (e.kind == SimEpisodeKind::kCloudSpecific) {
      cloud = &e;
    } else if (e.kind == SimEpisodeKind::kClockSkew) {
      skew_ns = e.skew_ns;
    } else if (e.kind != SimEpisodeKind::kSoloMemoryBound) {
      active = &e;
    }
  }
  const SimEpisodeKind kind = active ? active->kind : SimEpisodeKind::kSoloMemoryBound;
  if (active &&
      (kind == SimEpisodeKind::kMissingScrapes || kind == SimEpisodeKind::kCounterReset)) {
    // Nothing reaches the recording; the workload keeps stepping.
    while (g.next_step_end_ns <= t)
      g.next_step_end_ns += static_cast<int64_t>(g.profile.step_s * 1e9);
    return;
  }
  DeviceSignals sig = Solo(g.profile);
  bool steps = true, info = true;
  if (active) {
    switch (kind) {
      case SimEpisodeKind::kMemoryPressure:
      case SimEpisodeKind::kBandwidthSaturation:
      case SimEpisodeKind::kCoherency:
        sig = Contended(g.profile, active->contention, g.achievable_bw);
        break;
      case SimEpisodeKind::kIdle:              // a crashed job holding its GPU
      case SimEpisodeKind::kMaintenanceDrain:  // drained: no job attached at all
        sig = DeviceSignals{};
        sig.step_s = g.profile.step_s;
        steps = false;
        info = kind == SimEpisodeKind::kIdle;
        break;
      case SimEpisodeKind::kThermalThrottle:
      case SimEpisodeKind::kPowerCap:
        sig = Throttled(g.profile, active->factor);
        break;
      case SimEpisodeKind::kPrefillDecode: {
        const int64_t phase = (t - active->start_ns) /
                              std::max<int64_t>(1, static_cast<int64_t>(active->period_s * 1e9));
        if (phase % 2 == 1) {
          sig = Solo(active->phase);
        } else {
          sig.step_s = g.profile.step_s * active->factor;
        }
        break;
      }
      case SimEpisodeKind::kEvalPass:
        sig = Solo(active->phase);
        break;
      case SimEpisodeKind::kCheckpoint:
        sig = Starved(g.profile, 0.9);
        sig.pcie = active->factor;
        steps = false;
        g.carry_s = static_cast<double>(t + options_.interval_ns - active->start_ns) / 1e9;
        break;
      case SimEpisodeKind::kDataLoaderStall:
        sig = Starved(g.profile, active->factor);
        break;
      default:
        break;
    }
  }
  auto apply_cloud = [&](DeviceSignals& s) {
    if (!cloud) return;
    const double keep = 1 - cloud->factor;
    for (double* v : {&s.util, &s.sm_active, &s.bandwidth, &s.link, &s.pcie}) *v *= keep;
    s.step_s /= keep;
  };
  apply_cloud(sig);

  // The steps that start in this interval, drawn before the gauges: a
  // data-loader stall idles the GPU for the waits these steps drew, so the
  // interval's busy signals follow the realized waits, not their mean.
  struct StepPoint {
    int64_t at_ns;
    double d;
  };
  std::vector<StepPoint> step_points;
  const bool starved = active && kind == SimEpisodeKind::kDataLoaderStall;
  const int64_t from = t - options_.interval_ns;
  // Waits that run past the previous interval's end belong to this one.
  double idle_s = starved ? std::min(g.idle_carry_s, options_.interval_ns / 1e9) : 0;
  g.idle_carry_s = starved ? g.idle_carry_s - idle_s : 0;
  if (steps) {
    std::normal_distribution<double> step_noise(0, 0.02);
    std::uniform_real_distribution<double> u(0, 1);
    while (g.next_step_end_ns <= t) {
      double d = sig.step_s * (1 + step_noise(rng_));
      if (active && kind == SimEpisodeKind::kVariance) {
        if (active->heavy) {
          if (u(rng_) < active->prob / 3) d *= active->factor * Uniform(rng_, 1.2, 2.5);
        } else if (u(rng_) < active->prob) {
          d *= active->factor;
        }
      } else if (starved) {
        // Input waits arrive irregularly: the same mean, exponential spread.
        // The step waits for its batch first, then computes.
        const double solo = g.profile.step_s;
        const double w =
            std::exponential_distribution<double>(1 / std::max(1e-6, sig.step_s - solo))(rng_);
        d = solo * (1 + step_noise(rng_)) + w;
        const int64_t s = g.next_step_end_ns, e = s + static_cast<int64_t>(w * 1e9);
        idle_s +=
            static_cast<double>(std::max<int64_t>(0, std::min(e, t) - std::max(s, from))) / 1e9;
        g.idle_carry_s += static_cast<double>(std::max<int64_t>(0, e - std::max(s, t))) / 1e9;
      }
      d = std::max(d, 0.01);
      step_points.push_back({g.next_step_end_ns, d});
      g.next_step_end_ns += static_cast<int64_t>(d * 1e9);
    }
  } else {
    g.next_step_end_ns = t + options_.interval_ns;
  }
  if (starved) {
    sig = Starved(g.profile, idle_s / (options_.interval_ns / 1e9));
    apply_cloud(sig);
  }

  const int64_t te = t + skew_ns;
  auto put = [&](Metric m, int64_t at, double v) {
    store.Append(g.labels[m], at, v);
    if (sink_) sink_(g.labels[m], at, v);
  };
  put(kUtil, te, clamp01(sig.util + noise(rng_)));
  put(kSmActive, te, clamp01(sig.sm_active + noise(rng_)));
  put(kOccupancy, te, clamp01(sig.occupancy + noise(rng_)));
  put(kBandwidth, te, clamp01(sig.bandwidth + noise(rng_)));
  put(kStall, te, clamp01(sig.stall + noise(rng_)));
  put(kMiss, te, clamp01(sig.l2_miss + noise(rng_)));
  // Links in bytes/s: the catalog's per-direction peak, both directions.
  put(kLink, te, clamp01(sig.link + noise(rng_)) * 2 * g.spec->interconnect_bytes_per_s);
  put(kPcie, te, clamp01(sig.pcie + noise(rng_)) * g.spec->pcie_bytes_per_s);
  // The SM clock as every vendor reports it, in MHz steps.
  put(kClock, te,
      std::round(sig.sm_clock * (1 + clock_noise(clock_rng_)) * g.spec->max_sm_clock_hz / 1e6) *
          1e6);
  if (info && (t / options_.interval_ns) % 6 == 0) {
    put(kInfo, te, 1);
    if (active && IsContention(kind) && active->neighbour_visible) {
      store.Append(g.neighbour_info, te, 1);
      if (sink_) sink_(g.neighbour_info, te, 1);
    }
  }
  for (const StepPoint& p : step_points) {
    // The step a checkpoint interrupted reports the checkpoint's time too.
    put(kStep, p.at_ns + skew_ns, p.d + g.carry_s);
    g.carry_s = 0;
  }
}

}  // namespace gpufleet::detect
