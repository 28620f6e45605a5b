// gpufleet's own placement policy (see NewGpufleetPolicy in policy.h).
//
// It scores a node by how much placing the request there lowers the node's
// expected waste against the target workload. The waste generalises FGD's
// fragmentation: for each typical shape s, the GPU milli of the node that s
// could not use, where "use" is limited by CPU (and memory) as well as by the
// devices' free shares:
//
//   usable_s = min(GPU milli on devices that fit s,
//                  copies of s the node's free CPU/memory allow * s's GPU milli)
//   waste_s  = idle - usable_s   (idle when s needs no GPU or the model differs)
//
// FGD counts CPU only as a yes/no: a node with CPU for one more copy of s
// counts all its fitting GPUs as usable by s, so FGD happily spends the CPU of
// a node with four free GPUs on a CPU-only pod as long as one copy still fits.
// The copies bound makes that cost visible.
//
// On top: packing tie-breaks, and for GPU requests a dominant penalty per GPU
// the node's CPU could no longer feed (CpuStarvedGpus); see
// docs/placement.md for what each part gains and what did not work.
//
// The candidate loop and its cache per (request shape, node) are FGD's
// (CandidatePolicy, candidate_eval.h); waste results are also cached by node state
// (MemoWaste), since many nodes are in the same state.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "core/strings.h"
#include "place/candidate_eval.h"
#include "place/gpufleet_policy.h"
#include "place/policy.h"

namespace gpufleet::place {

GpufleetWasteModel::GpufleetWasteModel(const TargetWorkload& target) : shapes_(target.shapes()) {
  group_of_.assign(shapes_.size(), -1);
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const TypicalShape& s = shapes_[i];
    if (s.gpu_milli <= 0 || s.gpu_count <= 0) continue;
    size_t k = 0;
    while (k < groups_.size() &&
           !(groups_[k].gpu_milli == s.gpu_milli && groups_[k].gpu_count == s.gpu_count)) {
      ++k;
    }
    if (k == groups_.size()) groups_.push_back({s.gpu_milli, s.gpu_count});
    group_of_[i] = static_cast<int>(k);
  }
}

void GpufleetWasteModel::Bind(const Cluster& cluster) {
  std::map<std::string, int> ids;
  model_index_.assign(cluster.size(), 0);
  access_.clear();
  for (int n = 0; n < cluster.size(); ++n) {
    const std::string& model = cluster.spec(n).gpu_model;
    auto [it, inserted] = ids.emplace(model, static_cast<int>(access_.size()));
    if (inserted) {
      WorkloadRequest probe;
      std::vector<char> row(shapes_.size());
      for (size_t s = 0; s < shapes_.size(); ++s) {
        probe.gpu_models = SplitModels(shapes_[s].gpu_models);
        probe.gpu_count = 1;
        row[s] = ModelAllowed(probe, model);
      }
      access_.push_back(std::move(row));
    }
    model_index_[n] = it->second;
  }
}

std::vector<std::string> GpufleetWasteModel::SplitModels(const std::string& joined) {
  std::vector<std::string> out;
  if (joined.empty()) return out;
  for (std::string_view m : SplitString(joined, '|')) out.emplace_back(m);
  return out;
}

double GpufleetWasteModel::Waste(int node, int64_t cpu_free, int64_t mem_free,
                                 const int64_t* gpu_free, int gpus) const {
  int64_t idle = 0;
  for (int g = 0; g < gpus; ++g) idle += gpu_free[g];
  if (idle == 0) return 0;
  const std::vector<char>& access = access_[model_index_[node]];
  double waste = 0;
  if (groups_.size() > kMaxGroups) {
    for (size_t i = 0; i < shapes_.size(); ++i) {
      const TypicalShape& s = shapes_[i];
      waste += s.weight * static_cast<double>(idle - Usable(s, access[i] != 0, cpu_free, mem_free,
                                                            gpu_free, gpus));
    }
    return waste;
  }
  // Usable, with the device part computed once per group (same arithmetic).
  struct Stats {
    int with_room;
    int64_t fit_milli;
    int64_t copies_gpu;
  } stats[kMaxGroups];
  for (size_t k = 0; k < groups_.size(); ++k) {
    const GpuGroup& grp = groups_[k];
    Stats& st = stats[k];
    st = {0, 0, 0};
    for (int g = 0; g < gpus; ++g) {
      if (gpu_free[g] < grp.gpu_milli) continue;
      ++st.with_room;
      st.fit_milli += gpu_free[g];
      if (grp.gpu_count == 1) {
        st.copies_gpu += gpu_free[g] < 2 * grp.gpu_milli ? 1 : gpu_free[g] / grp.gpu_milli;
      }
    }
    if (grp.gpu_count > 1) st.copies_gpu = st.with_room / grp.gpu_count;
  }
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const TypicalShape& s = shapes_[i];
    int64_t usable = 0;
    const int k = group_of_[i];
    if (k >= 0 && access[i] != 0 && stats[k].with_room >= s.gpu_count) {
      const Stats& st = stats[k];
      // min(copies on the devices, CPU copies, memory copies), dividing only
      // when CPU or memory is the tighter bound.
      int64_t copies = st.copies_gpu;
      if (s.cpu_milli > 0 && cpu_free < copies * s.cpu_milli) copies = cpu_free / s.cpu_milli;
      if (s.memory_mib > 0 && mem_free < copies * s.memory_mib) copies = mem_free / s.memory_mib;
      if (copies <= 0) {
        usable = 0;
      } else if (copies >= st.copies_gpu) {
        usable = st.fit_milli;
      } else {
        usable = std::min(st.fit_milli, copies * s.gpu_milli * s.gpu_count);
      }
    }
    waste += s.weight * static_cast<double>(idle - usable);
  }
  return waste;
}

int64_t GpufleetWasteModel::Usable(const TypicalShape& s, bool model_ok, int64_t cpu_free,
                                   int64_t mem_free, const int64_t* gpu_free, int gpus) {
  if (s.gpu_milli <= 0 || s.gpu_count <= 0 || !model_ok) return 0;
  // GPU side: devices with room for s (FGD's measure), and how many copies of
  // s they hold.
  int with_room = 0;
  int64_t fit_milli = 0;
  int64_t copies_gpu = 0;
  for (int g = 0; g < gpus; ++g) {
    if (gpu_free[g] < s.gpu_milli) continue;
    ++with_room;
    fit_milli += gpu_free[g];
    copies_gpu += gpu_free[g] / s.gpu_milli;
  }
  if (with_room < s.gpu_count) return 0;
  if (s.gpu_count > 1) copies_gpu = with_room / s.gpu_count;
  // CPU and memory side: copies the node's free CPU and memory allow.
  int64_t copies = copies_gpu;
  if (s.cpu_milli > 0) copies = std::min(copies, cpu_free / s.cpu_milli);
  if (s.memory_mib > 0) copies = std::min(copies, mem_free / s.memory_mib);
  if (copies <= 0) return 0;
  if (copies >= copies_gpu) return fit_milli;
  return std::min(fit_milli, copies * s.gpu_milli * s.gpu_count);
}

double TargetCpuPerGpuMilli(const TargetWorkload& target) {
  double cpu = 0;
  double gpu = 0;
  for (const TypicalShape& s : target.shapes()) {
    if (s.gpu_milli <= 0 || s.gpu_count <= 0) continue;
    cpu += s.weight * static_cast<double>(s.cpu_milli);
    gpu += s.weight * static_cast<double>(s.gpu_milli * s.gpu_count);
  }
  return gpu > 0 ? cpu / gpu : 0;
}

double CpuStarvedGpus(const NodeSpec& spec, double target_cpu_per_gpu_milli, double gpu_free_milli,
                      double cpu_free_milli) {
  if (spec.gpu_count <= 0 || spec.cpu_milli <= 0) return 0;
  double per = static_cast<double>(spec.cpu_milli) /
               static_cast<double>(static_cast<int64_t>(spec.gpu_count) * kMilliPerGpu);
  if (target_cpu_per_gpu_milli > 0) per = std::min(per, target_cpu_per_gpu_milli);
  return std::max(0.0, gpu_free_milli - cpu_free_milli / per) / static_cast<double>(kMilliPerGpu);
}

namespace {

class GpufleetPolicy : public CandidatePolicy {
 public:
  explicit GpufleetPolicy(TargetWorkload target)
      : CandidatePolicy(/*memory_matters=*/true),
        model_(target),
        cpu_per_gpu_milli_(TargetCpuPerGpuMilli(target)) {}

  std::string_view name() const override { return "gpufleet"; }

 private:
  struct WasteEntry {
    uint64_t version_plus1 = 0;
    double waste = 0;
  };

  void Bind(const Cluster& cluster) override {
    model_.Bind(cluster);
    memo_.assign(kMemoSlots, Slot{});
    before_.assign(cluster.size(), WasteEntry{});
  }

  double Before(const Cluster& cluster, int node) {
    WasteEntry& c = before_[node];
    const NodeState& st = cluster.state(node);
    if (c.version_plus1 != st.version + 1) {
      c.waste = MemoWaste(node, st.cpu_free_milli, st.memory_free_mib, st.gpu_free_milli.data(),
                          static_cast<int>(st.gpu_free_milli.size()));
      c.version_plus1 = st.version + 1;
    }
    return c.waste;
  }

  double CandidateScore(const Cluster& cluster, int node, const WorkloadRequest& req,
                        double before, double after, int64_t gpu_free_after) const {
    const NodeState& st = cluster.state(node);
    // Waste removed, in steps of kBucketMilli: exact deltas make near-equal
    // candidates distinct and scatter load (measured: worse on every trace
    // tried); coarser steps let the tie-breaks and the selector's fixed node
    // order consolidate.
    double score = std::floor((before - after) / kBucketMilli);
    const double gpu_left = static_cast<double>(st.total_gpu_free_milli() - req.total_gpu_milli());
    const double cpu_left = static_cast<double>(st.cpu_free_milli - req.cpu_milli);
    // Packing tie-breaks (each below one step): fuller node, tighter device.
    score -= 0.1 * gpu_left / kMaxSpecGpuMilli + 0.1 * cpu_left / kMaxSpecCpuMilli;
    if (gpu_free_after >= 0) score -= 0.05 * static_cast<double>(gpu_free_after) / kMilliPerGpu;
    if (req.needs_gpu()) {
      score -= kBalanceWeight * CpuStarvedGpus(cluster.spec(node), cpu_per_gpu_milli_, gpu_left,
                                               cpu_left);
    }
    return score;
  }

  void EvaluateNode(const Cluster& cluster, int node, const WorkloadRequest& req,
                    CandidateEval& e) override {
    const NodeState& st = cluster.state(node);
    const double before = Before(cluster, node);
    const int64_t cpu_after = st.cpu_free_milli - req.cpu_milli;
    const int64_t mem_after = st.memory_free_mib - req.memory_mib;
    EvaluateCandidates(
        st, req,
        [&](const int64_t* free, int gpus, int64_t device_free_after) {
          const double after = MemoWaste(node, cpu_after, mem_after, free, gpus);
          return CandidateScore(cluster, node, req, before, after, device_free_after);
        },
        e);
  }

  static constexpr int kMemoGpus = 8;
  static constexpr size_t kMemoSlots = 1 << 14;  // a power of two
  // Waste depends on a node's model class, free CPU and memory and the
  // multiset of its devices' free milli, and many nodes share states (empty
  // ones early, near-full ones later): results are kept in a direct-mapped
  // cache keyed by that state (a slot holds the last state that hashed there).
  struct StateKey {
    int64_t cpu = 0;
    int64_t mem = 0;
    int32_t model = 0;
    int32_t gpus = 0;
    std::array<int16_t, kMemoGpus> free{};
    bool operator==(const StateKey&) const = default;
  };
  struct StateHash {
    size_t operator()(const StateKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ull;
      h ^= static_cast<uint64_t>(k.mem) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      h ^= (static_cast<uint64_t>(k.model) << 32 | static_cast<uint32_t>(k.gpus)) +
           0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      for (int16_t f : k.free) h = (h ^ static_cast<uint16_t>(f)) * 0x100000001B3ull;
      return static_cast<size_t>(h);
    }
  };

  double MemoWaste(int node, int64_t cpu_free, int64_t mem_free, const int64_t* gpu_free,
                   int gpus) {
    if (gpus > kMemoGpus) return model_.Waste(node, cpu_free, mem_free, gpu_free, gpus);
    StateKey key;
    key.cpu = cpu_free;
    key.mem = mem_free;
    key.model = model_.model_class(node);
    key.gpus = gpus;
    for (int g = 0; g < gpus; ++g) {
      if (gpu_free[g] < 0 || gpu_free[g] > INT16_MAX) {
        return model_.Waste(node, cpu_free, mem_free, gpu_free, gpus);
      }
      key.free[g] = static_cast<int16_t>(gpu_free[g]);
    }
    std::sort(key.free.begin(), key.free.begin() + gpus);
    Slot& slot = memo_[StateHash()(key) & (kMemoSlots - 1)];
    if (slot.used && slot.key == key) return slot.waste;
    slot.used = true;
    slot.key = key;
    slot.waste = model_.Waste(node, cpu_free, mem_free, gpu_free, gpus);
    return slot.waste;
  }

  // Near-lexicographic: a starved GPU costs more than any waste step.
  static constexpr double kBalanceWeight = 100;
  static constexpr double kBucketMilli = 100;
  struct Slot {
    StateKey key;
    double waste = 0;
    bool used = false;
  };
  std::vector<Slot> memo_;

  GpufleetWasteModel model_;
  std::vector<WasteEntry> before_;
  double cpu_per_gpu_milli_ = 0;  // set at construction
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGpufleetPolicy(TargetWorkload target) {
  return std::make_unique<GpufleetPolicy>(std::move(target));
}

}  // namespace gpufleet::place
