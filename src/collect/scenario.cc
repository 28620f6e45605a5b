#include "collect/scenario.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/embedded.h"
#include "core/file_util.h"
#include "core/toml_reader.h"

namespace gpufleet {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Reads one scenario with errors that name origin:line and the field.
class ScenarioParser {
 public:
  explicit ScenarioParser(std::string_view origin) : origin_(origin) {}

  StatusOr<Scenario> Parse(std::string_view text);

 private:
  Status Error(const toml::node& at, const std::string& msg) const {
    return InvalidArgumentError(TomlWhere(origin_, at) + msg);
  }
  Status CheckKeys(const toml::table& t, std::string_view what,
                   std::initializer_list<std::string_view> allowed) const;
  StatusOr<double> Number(const toml::table& t, std::string_view key, double fallback, double lo,
                          double hi) const;
  StatusOr<std::vector<int>> IntList(const toml::table& t, std::string_view key) const;
  StatusOr<size_t> NodeRef(const toml::table& t, const Scenario& s) const;

  StatusOr<ScenarioNode> ParseNode(const toml::table& t) const;
  Status ParseGpus(const toml::table& node_table, ScenarioNode& node) const;
  Status ParsePartitions(const toml::node& n, ScenarioGpu& gpu) const;
  StatusOr<ScenarioWorkload> ParseWorkload(const toml::table& t, const Scenario& s) const;
  StatusOr<LoadProfile> ParseLoad(const toml::table& t, const ScenarioGpu& gpu) const;
  StatusOr<ScenarioEpisode> ParseEpisode(const toml::table& t, const Scenario& s) const;

  std::string origin_;
};

Status ScenarioParser::CheckKeys(const toml::table& t, std::string_view what,
                                 std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : t) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
      return Error(value, "unknown field '" + std::string(key.str()) + "' in " + std::string(what));
    }
  }
  return OkStatus();
}

StatusOr<double> ScenarioParser::Number(const toml::table& t, std::string_view key, double fallback,
                                        double lo, double hi) const {
  if (t.get(key) == nullptr) return fallback;
  ASSIGN_OR_RETURN(double v, OptionalNumber(t, key, fallback, origin_));
  if (!(v >= lo && v <= hi)) {  // also rejects NaN
    return Error(*t.get(key), "field '" + std::string(key) + "' = " + std::to_string(v) +
                                  " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "]");
  }
  return v;
}

StatusOr<std::vector<int>> ScenarioParser::IntList(const toml::table& t,
                                                   std::string_view key) const {
  std::vector<int> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* arr = n->as_array();
  if (arr == nullptr)
    return Error(*n, "field '" + std::string(key) + "' must be a list of integers");
  for (const toml::node& v : *arr) {
    auto i = v.value<int64_t>();
    if (!v.is_integer() || !i || *i < 0 || *i > 1024) {
      return Error(v, "field '" + std::string(key) + "' must hold integers in [0, 1024]");
    }
    if (std::find(out.begin(), out.end(), static_cast<int>(*i)) != out.end()) {
      return Error(v, "field '" + std::string(key) + "' lists " + std::to_string(*i) + " twice");
    }
    out.push_back(static_cast<int>(*i));
  }
  return out;
}

StatusOr<size_t> ScenarioParser::NodeRef(const toml::table& t, const Scenario& s) const {
  ASSIGN_OR_RETURN(std::string name, RequiredString(t, "node", origin_));
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].name == name) return i;
  }
  return Error(*t.get("node"), "field 'node': unknown node '" + name + "'");
}

Status ScenarioParser::ParsePartitions(const toml::node& n, ScenarioGpu& gpu) const {
  const toml::table* t = n.as_table();
  if (t == nullptr) return Error(n, "field 'partitions' must be a table");
  RETURN_IF_ERROR(CheckKeys(*t, "partitions", {"kind", "count", "profile", "profiles"}));
  ASSIGN_OR_RETURN(gpu.partition_kind, RequiredString(*t, "kind", origin_));
  Vendor want = gpu.partition_kind == "mig"          ? Vendor::kNvidia
                : gpu.partition_kind == "amd_xcp"    ? Vendor::kAmd
                : gpu.partition_kind == "intel_tile" ? Vendor::kIntel
                                                     : Vendor::kUnknown;
  if (want == Vendor::kUnknown) {
    return Error(*t->get("kind"), "field 'kind': unknown partition kind '" + gpu.partition_kind +
                                      "' (mig, amd_xcp, intel_tile)");
  }
  if (want != gpu.spec->vendor) {
    return Error(*t->get("kind"), "field 'kind': '" + gpu.partition_kind + "' partitions do not " +
                                      "exist on " + gpu.spec->name);
  }
  if (const toml::array* profiles = (*t)["profiles"].as_array()) {
    for (const toml::node& p : *profiles) {
      auto s = p.value<std::string>();
      if (!s) return Error(p, "field 'profiles' must hold strings");
      gpu.partition_profiles.push_back(*s);
    }
  } else {
    ASSIGN_OR_RETURN(double count, Number(*t, "count", 0, 1, 8));
    ASSIGN_OR_RETURN(std::string profile, OptionalString(*t, "profile", origin_));
    gpu.partition_profiles.assign(static_cast<size_t>(count), profile);
  }
  if (gpu.partition_profiles.empty() || gpu.partition_profiles.size() > 8) {
    return Error(n, "field 'partitions': 1 to 8 partitions per GPU");
  }
  return OkStatus();
}

Status ScenarioParser::ParseGpus(const toml::table& node_table, ScenarioNode& node) const {
  const toml::node* gpus = node_table.get("gpus");
  if (gpus == nullptr) return Error(node_table, "node '" + node.name + "': missing field 'gpus'");
  const toml::array* arr = gpus->as_array();
  if (arr == nullptr) return Error(*gpus, "field 'gpus' must be a list of tables");
  for (const toml::node& entry : *arr) {
    const toml::table* t = entry.as_table();
    if (t == nullptr)
      return Error(entry, "field 'gpus' must hold tables like {model = \"h100-sxm\"}");
    RETURN_IF_ERROR(CheckKeys(*t, "gpus", {"model", "count", "power_limit_watts", "partitions"}));
    ScenarioGpu gpu;
    ASSIGN_OR_RETURN(std::string model, RequiredString(*t, "model", origin_));
    gpu.spec = HardwareCatalog::Default().Find(model);
    if (gpu.spec == nullptr) {
      return Error(*t->get("model"),
                   "field 'model': unknown GPU model '" + model + "' (keys of data/hardware.toml)");
    }
    ASSIGN_OR_RETURN(double count, Number(*t, "count", 1, 1, 64));
    ASSIGN_OR_RETURN(gpu.power_limit_watts, Number(*t, "power_limit_watts", gpu.spec->tdp_watts,
                                                   gpu.spec->idle_watts + 1, gpu.spec->tdp_watts));
    if (const toml::node* p = t->get("partitions")) RETURN_IF_ERROR(ParsePartitions(*p, gpu));
    for (int i = 0; i < static_cast<int>(count); ++i) node.gpus.push_back(gpu);
  }
  if (node.gpus.empty() || node.gpus.size() > 64) {
    return Error(*gpus, "node '" + node.name + "': 1 to 64 GPUs per node");
  }
  return OkStatus();
}

StatusOr<ScenarioNode> ScenarioParser::ParseNode(const toml::table& t) const {
  RETURN_IF_ERROR(
      CheckKeys(t, "[[node]]",
                {"name", "cloud", "region", "zone", "price_usd_per_gpu_hour", "driver_version",
                 "runtime_version", "cpu_cores", "memory_gib", "gpus"}));
  ScenarioNode node;
  ASSIGN_OR_RETURN(node.name, RequiredString(t, "name", origin_));
  ASSIGN_OR_RETURN(node.cloud, OptionalString(t, "cloud", origin_));
  ASSIGN_OR_RETURN(node.region, OptionalString(t, "region", origin_));
  ASSIGN_OR_RETURN(node.zone, OptionalString(t, "zone", origin_));
  ASSIGN_OR_RETURN(node.driver_version, OptionalString(t, "driver_version", origin_));
  ASSIGN_OR_RETURN(node.runtime_version, OptionalString(t, "runtime_version", origin_));
  ASSIGN_OR_RETURN(double cores, Number(t, "cpu_cores", 0, 0, 4096));
  node.cpu_cores = static_cast<int>(cores);
  ASSIGN_OR_RETURN(double mem_gib, Number(t, "memory_gib", 0, 0, 65536));
  node.host_memory_bytes = static_cast<uint64_t>(mem_gib * kGiB);
  if (const toml::node* p = t.get("price_usd_per_gpu_hour")) {
    const toml::table* pt = p->as_table();
    if (pt == nullptr) return Error(*p, "field 'price_usd_per_gpu_hour' must be a table");
    RETURN_IF_ERROR(CheckKeys(*pt, "price_usd_per_gpu_hour", {"on_demand", "spot", "committed"}));
    ASSIGN_OR_RETURN(node.on_demand_usd_per_gpu_hour, Number(*pt, "on_demand", 0, 0, 1000));
    ASSIGN_OR_RETURN(node.spot_usd_per_gpu_hour, Number(*pt, "spot", 0, 0, 1000));
    ASSIGN_OR_RETURN(node.committed_usd_per_gpu_hour, Number(*pt, "committed", 0, 0, 1000));
  }
  RETURN_IF_ERROR(ParseGpus(t, node));
  return node;
}

StatusOr<LoadProfile> ScenarioParser::ParseLoad(const toml::table& t,
                                                const ScenarioGpu& gpu) const {
  LoadProfile load;
  const toml::node* n = t.get("load");
  if (n == nullptr) return load;
  const toml::table* lt = n->as_table();
  if (lt == nullptr) return Error(*n, "field 'load' must be a table");
  RETURN_IF_ERROR(CheckKeys(*lt, "load",
                            {"sm_activity", "memory_bandwidth", "tensor_share", "memory_gib",
                             "memory_bytes", "step_period_s", "pcie", "interconnect"}));
  ASSIGN_OR_RETURN(load.sm_activity, Number(*lt, "sm_activity", load.sm_activity, 0, 1));
  ASSIGN_OR_RETURN(load.memory_bandwidth,
                   Number(*lt, "memory_bandwidth", load.memory_bandwidth, 0, 1));
  ASSIGN_OR_RETURN(load.tensor_share, Number(*lt, "tensor_share", load.tensor_share, 0, 1));
  ASSIGN_OR_RETURN(load.step_period_s, Number(*lt, "step_period_s", 0, 0, 3600));
  ASSIGN_OR_RETURN(load.pcie, Number(*lt, "pcie", load.pcie, 0, 1));
  ASSIGN_OR_RETURN(load.interconnect, Number(*lt, "interconnect", load.interconnect, 0, 1));
  const double device_bytes = static_cast<double>(gpu.spec->memory_bytes) /
                              static_cast<double>(std::max<size_t>(1, gpu.partition_count()));
  ASSIGN_OR_RETURN(double gib, Number(*lt, "memory_gib", 0, 0, 1e6));
  ASSIGN_OR_RETURN(double bytes, Number(*lt, "memory_bytes", gib * kGiB, 0, 1e18));
  if (bytes > device_bytes) {
    const toml::node* at =
        lt->get("memory_bytes") ? lt->get("memory_bytes") : lt->get("memory_gib");
    return Error(*at, "load footprint " + std::to_string(bytes / kGiB) +
                          " GiB exceeds the device's " + std::to_string(device_bytes / kGiB) +
                          " GiB");
  }
  load.memory_bytes = static_cast<uint64_t>(bytes);
  return load;
}

StatusOr<ScenarioWorkload> ScenarioParser::ParseWorkload(const toml::table& t,
                                                         const Scenario& s) const {
  RETURN_IF_ERROR(CheckKeys(t, "[[workload]]",
                            {"id", "team", "kind", "node", "gpus", "partitions", "pod", "namespace",
                             "container", "start_s", "duration_s", "load"}));
  ScenarioWorkload w;
  ASSIGN_OR_RETURN(w.id, RequiredString(t, "id", origin_));
  ASSIGN_OR_RETURN(w.team, OptionalString(t, "team", origin_));
  ASSIGN_OR_RETURN(std::string kind, OptionalString(t, "kind", origin_));
  if (kind.empty() || kind == "training") {
    w.kind = WorkloadKind::kTraining;
  } else if (kind == "inference") {
    w.kind = WorkloadKind::kInference;
  } else if (kind == "batch") {
    w.kind = WorkloadKind::kBatch;
  } else {
    return Error(*t.get("kind"),
                 "field 'kind': unknown workload kind '" + kind + "' (training, inference, batch)");
  }
  ASSIGN_OR_RETURN(w.node, NodeRef(t, s));
  const ScenarioNode& node = s.nodes[w.node];
  ASSIGN_OR_RETURN(w.gpus, IntList(t, "gpus"));
  if (w.gpus.empty()) return Error(t, "workload '" + w.id + "': field 'gpus' must list GPUs");
  for (int g : w.gpus) {
    if (static_cast<size_t>(g) >= node.gpus.size()) {
      return Error(*t.get("gpus"), "field 'gpus': GPU index " + std::to_string(g) +
                                       " out of range for node '" + node.name + "' (" +
                                       std::to_string(node.gpus.size()) + " GPUs)");
    }
  }
  ASSIGN_OR_RETURN(w.partitions, IntList(t, "partitions"));
  for (int p : w.partitions) {
    for (int g : w.gpus) {
      if (static_cast<size_t>(p) >= node.gpus[g].partition_count()) {
        return Error(*t.get("partitions"), "field 'partitions': partition " + std::to_string(p) +
                                               " does not exist on GPU " + std::to_string(g) +
                                               " of node '" + node.name + "'");
      }
    }
  }
  ASSIGN_OR_RETURN(w.pod, OptionalString(t, "pod", origin_));
  ASSIGN_OR_RETURN(w.pod_namespace, OptionalString(t, "namespace", origin_));
  ASSIGN_OR_RETURN(w.container, OptionalString(t, "container", origin_));
  ASSIGN_OR_RETURN(w.start_s, Number(t, "start_s", 0, 0, 1e9));
  ASSIGN_OR_RETURN(double duration, Number(t, "duration_s", -1, 0, 1e9));
  if (t.get("duration_s") != nullptr) w.end_s = w.start_s + duration;
  // The smallest device the workload lands on bounds its footprint.
  const ScenarioGpu* smallest = &node.gpus[w.gpus[0]];
  for (int g : w.gpus) {
    if (node.gpus[g].partition_count() > smallest->partition_count()) smallest = &node.gpus[g];
  }
  ASSIGN_OR_RETURN(w.load, ParseLoad(t, *smallest));
  return w;
}

StatusOr<ScenarioEpisode> ScenarioParser::ParseEpisode(const toml::table& t,
                                                       const Scenario& s) const {
  RETURN_IF_ERROR(CheckKeys(
      t, "[[episode]]",
      {"kind", "node", "gpus", "start_s", "duration_s", "magnitude", "code", "severity"}));
  ScenarioEpisode e;
  ASSIGN_OR_RETURN(std::string kind, RequiredString(t, "kind", origin_));
  static constexpr EpisodeKind kAll[] = {EpisodeKind::kMemoryContention,
                                         EpisodeKind::kBandwidthSaturation,
                                         EpisodeKind::kCoherency,
                                         EpisodeKind::kThermalThrottle,
                                         EpisodeKind::kPowerCap,
                                         EpisodeKind::kGpuLost,
                                         EpisodeKind::kXid,
                                         EpisodeKind::kEcc,
                                         EpisodeKind::kHang};
  bool found = false;
  for (EpisodeKind k : kAll) {
    if (EpisodeKindName(k) == kind) {
      e.kind = k;
      found = true;
    }
  }
  if (!found) {
    std::string names;
    for (EpisodeKind k : kAll)
      names += (names.empty() ? "" : ", ") + std::string(EpisodeKindName(k));
    return Error(*t.get("kind"),
                 "field 'kind': unknown episode kind '" + kind + "' (" + names + ")");
  }
  ASSIGN_OR_RETURN(e.node, NodeRef(t, s));
  ASSIGN_OR_RETURN(e.gpus, IntList(t, "gpus"));
  for (int g : e.gpus) {
    if (static_cast<size_t>(g) >= s.nodes[e.node].gpus.size()) {
      return Error(*t.get("gpus"), "field 'gpus': GPU index " + std::to_string(g) +
                                       " out of range for node '" + s.nodes[e.node].name + "'");
    }
  }
  ASSIGN_OR_RETURN(e.start_s, Number(t, "start_s", 0, 0, 1e9));
  ASSIGN_OR_RETURN(e.duration_s, Number(t, "duration_s", 60, 0, 1e9));
  const bool is_count = e.kind == EpisodeKind::kEcc;
  ASSIGN_OR_RETURN(e.magnitude, Number(t, "magnitude", is_count ? 1 : 0.5, 0, is_count ? 1e9 : 1));
  ASSIGN_OR_RETURN(double code, Number(t, "code", 13, 0, 1e6));
  e.code = static_cast<int>(code);
  if (t.get("code") != nullptr && e.kind != EpisodeKind::kXid) {
    return Error(*t.get("code"), "field 'code' applies only to kind = \"xid\"");
  }
  ASSIGN_OR_RETURN(std::string severity, OptionalString(t, "severity", origin_));
  if (!severity.empty()) {
    if (e.kind != EpisodeKind::kEcc) {
      return Error(*t.get("severity"), "field 'severity' applies only to kind = \"ecc\"");
    }
    if (severity != "corrected" && severity != "uncorrected") {
      return Error(*t.get("severity"), "field 'severity' must be corrected or uncorrected");
    }
    e.uncorrected = severity == "uncorrected";
  }
  return e;
}

// Stable small pid per workload id (FNV-1a), so the same scenario shows the
// same pids on every run.
int64_t PidFor(std::string_view id) {
  uint64_t h = 1469598103934665603ull;
  for (char c : id) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return 1000 + static_cast<int64_t>(h % 3'000'000);
}

const toml::array* TableArray(const toml::table& root, std::string_view key) {
  const toml::node* n = root.get(key);
  return n == nullptr ? nullptr : n->as_array();
}

StatusOr<Scenario> ScenarioParser::Parse(std::string_view text) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin_));
  RETURN_IF_ERROR(
      CheckKeys(root, "the scenario",
                {"name", "description", "seed", "interval_s", "node", "workload", "episode"}));
  Scenario s;
  s.origin = origin_;
  ASSIGN_OR_RETURN(s.name, OptionalString(root, "name", origin_));
  ASSIGN_OR_RETURN(double seed, Number(root, "seed", 1, 0, 9.0e15));
  s.seed = static_cast<uint64_t>(seed);
  ASSIGN_OR_RETURN(s.interval_s, Number(root, "interval_s", 10, 0.1, 3600));

  for (std::string_view key : {"node", "workload", "episode"}) {
    const toml::node* n = root.get(key);
    if (n != nullptr && !n->is_array_of_tables()) {
      return Error(*n, "'" + std::string(key) + "' must be written [[" + std::string(key) + "]]");
    }
  }
  const toml::array* nodes = TableArray(root, "node");
  if (nodes == nullptr || nodes->empty()) {
    return InvalidArgumentError(origin_ + ": a scenario needs at least one [[node]]");
  }
  std::set<std::string> names;
  for (const toml::node& n : *nodes) {
    ASSIGN_OR_RETURN(ScenarioNode node, ParseNode(*n.as_table()));
    if (!names.insert(node.name).second) {
      return Error(n, "field 'name': duplicate node name '" + node.name + "'");
    }
    s.nodes.push_back(std::move(node));
  }
  std::set<std::string> ids;
  if (const toml::array* workloads = TableArray(root, "workload")) {
    for (const toml::node& n : *workloads) {
      ASSIGN_OR_RETURN(ScenarioWorkload w, ParseWorkload(*n.as_table(), s));
      if (!ids.insert(w.id).second) {
        return Error(n, "field 'id': duplicate workload id '" + w.id + "'");
      }
      w.pid = PidFor(w.id);
      s.workloads.push_back(std::move(w));
    }
  }
  if (const toml::array* episodes = TableArray(root, "episode")) {
    for (const toml::node& n : *episodes) {
      ASSIGN_OR_RETURN(ScenarioEpisode e, ParseEpisode(*n.as_table(), s));
      s.episodes.push_back(std::move(e));
    }
  }
  return s;
}

}  // namespace

std::string_view WorkloadKindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kTraining:
      return "training";
    case WorkloadKind::kInference:
      return "inference";
    case WorkloadKind::kBatch:
      return "batch";
  }
  return "training";
}

std::string_view EpisodeKindName(EpisodeKind kind) {
  switch (kind) {
    case EpisodeKind::kMemoryContention:
      return "memory_contention";
    case EpisodeKind::kBandwidthSaturation:
      return "bandwidth_saturation";
    case EpisodeKind::kCoherency:
      return "coherency";
    case EpisodeKind::kThermalThrottle:
      return "thermal_throttle";
    case EpisodeKind::kPowerCap:
      return "power_cap";
    case EpisodeKind::kGpuLost:
      return "gpu_lost";
    case EpisodeKind::kXid:
      return "xid";
    case EpisodeKind::kEcc:
      return "ecc";
    case EpisodeKind::kHang:
      return "hang";
  }
  return "memory_contention";
}

bool ScenarioEpisode::Targets(size_t node_index, int gpu) const {
  if (node_index != node) return false;
  return gpus.empty() || std::find(gpus.begin(), gpus.end(), gpu) != gpus.end();
}

StatusOr<Scenario> ParseScenario(std::string_view toml, std::string_view origin) {
  return ScenarioParser(origin).Parse(toml);
}

StatusOr<Scenario> LoadScenario(std::string_view path_or_default) {
  if (path_or_default == "default") {
    auto text = FindEmbeddedFile("scenarios/default.toml");
    if (!text) return NotFoundError("the embedded scenarios/default.toml is missing");
    return ParseScenario(*text, "data/scenarios/default.toml");
  }
  std::string path(path_or_default);
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseScenario(text, path);
}

}  // namespace gpufleet
