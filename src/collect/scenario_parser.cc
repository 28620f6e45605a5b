// ParseScenario: the TOML reader of scenario files (format in
// collect/scenario.h). Messages name the field as written in its table
// ("field 'gpus'"); the line says which [[node]] / [[workload]] entry.
#include <algorithm>
#include <optional>
#include <set>

#include "collect/scenario.h"
#include "core/toml_reader.h"

namespace gpufleet {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A number in [lo, hi]; `fallback` when absent.
StatusOr<double> Number(const TomlReader& r, std::string_view key, double fallback, double lo,
                        double hi) {
  RETURN_IF_ERROR(r.Read(key, fallback, lo, hi));
  return fallback;
}

// A list of distinct indices in [0, 1024]; empty when absent.
StatusOr<std::vector<int>> IntList(const TomlReader& r, std::string_view key) {
  std::vector<int> out;
  const toml::node* n = r.Get(key);
  if (n == nullptr) return out;
  const toml::array* arr = n->as_array();
  if (arr == nullptr) return r.FieldError(*n, key, "must be a list of integers");
  for (const toml::node& v : *arr) {
    const auto* n = v.as_integer();
    std::optional<int64_t> i;
    if (n != nullptr) i = n->get();
    if (!i || *i < 0 || *i > 1024) {
      return r.FieldError(v, key, "must hold integers in [0, 1024]");
    }
    if (std::find(out.begin(), out.end(), static_cast<int>(*i)) != out.end()) {
      return r.FieldError(v, key, "lists " + std::to_string(*i) + " twice");
    }
    out.push_back(static_cast<int>(*i));
  }
  return out;
}

// Reads one scenario with errors that name origin:line and the field.
class ScenarioParser {
 public:
  explicit ScenarioParser(std::string_view origin) : origin_(origin) {}

  StatusOr<Scenario> Parse(std::string_view text);

 private:
  TomlReader Reader(const toml::table& t) const { return TomlReader(t, origin_); }
  StatusOr<size_t> NodeRef(const TomlReader& r, const Scenario& s) const;

  StatusOr<ScenarioNode> ParseNode(const TomlReader& r) const;
  Status ParseGpus(const TomlReader& node_reader, ScenarioNode& node) const;
  Status ParsePartitions(const TomlReader& r, ScenarioGpu& gpu) const;
  StatusOr<ScenarioWorkload> ParseWorkload(const TomlReader& r, const Scenario& s) const;
  StatusOr<LoadProfile> ParseLoad(const TomlReader& r, const ScenarioGpu& gpu) const;
  StatusOr<ScenarioEpisode> ParseEpisode(const TomlReader& r, const Scenario& s) const;

  std::string origin_;
};

StatusOr<size_t> ScenarioParser::NodeRef(const TomlReader& r, const Scenario& s) const {
  std::string name;
  RETURN_IF_ERROR(r.Require("node", name));
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].name == name) return i;
  }
  return r.FieldError(*r.Get("node"), "node", "unknown node '" + name + "'");
}

Status ScenarioParser::ParsePartitions(const TomlReader& r, ScenarioGpu& gpu) const {
  const toml::table& t = r.table();
  RETURN_IF_ERROR(r.CheckKeys({"kind", "count", "profile", "profiles"}));
  RETURN_IF_ERROR(r.Require("kind", gpu.partition_kind));
  Vendor want = gpu.partition_kind == "mig"          ? Vendor::kNvidia
                : gpu.partition_kind == "amd_xcp"    ? Vendor::kAmd
                : gpu.partition_kind == "intel_tile" ? Vendor::kIntel
                                                     : Vendor::kUnknown;
  if (want == Vendor::kUnknown) {
    return r.FieldError(
        *t.get("kind"), "kind",
        "unknown partition kind '" + gpu.partition_kind + "' (mig, amd_xcp, intel_tile)");
  }
  if (want != gpu.spec->vendor) {
    return r.FieldError(
        *t.get("kind"), "kind",
        "'" + gpu.partition_kind + "' partitions do not exist on " + gpu.spec->name);
  }
  if (t["profiles"].as_array() != nullptr) {
    RETURN_IF_ERROR(r.Read("profiles", gpu.partition_profiles));
  } else {  // a non-array `profiles` has always been ignored in favour of count
    ASSIGN_OR_RETURN(double count, Number(r, "count", 0, 1, 8));
    std::string profile;
    RETURN_IF_ERROR(r.Read("profile", profile));
    gpu.partition_profiles.assign(static_cast<size_t>(count), profile);
  }
  if (gpu.partition_profiles.empty() || gpu.partition_profiles.size() > 8) {
    return r.Error(t, "field 'partitions': 1 to 8 partitions per GPU");
  }
  return OkStatus();
}

Status ScenarioParser::ParseGpus(const TomlReader& node_reader, ScenarioNode& node) const {
  const toml::node* gpus = node_reader.Get("gpus");
  if (gpus == nullptr) {
    return node_reader.Error(node_reader.table(), "node '" + node.name + "': missing field 'gpus'");
  }
  const toml::array* arr = gpus->as_array();
  if (arr == nullptr) return node_reader.FieldError(*gpus, "gpus", "must be a list of tables");
  for (const toml::node& entry : *arr) {
    if (!entry.is_table()) {
      return node_reader.FieldError(entry, "gpus", "must hold tables like {model = \"h100-sxm\"}");
    }
    TomlReader r = Reader(*entry.as_table());
    RETURN_IF_ERROR(r.CheckKeys({"model", "count", "power_limit_watts", "partitions"}));
    ScenarioGpu gpu;
    std::string model;
    RETURN_IF_ERROR(r.Require("model", model));
    gpu.spec = HardwareCatalog::Default().Find(model);
    if (gpu.spec == nullptr) {
      return r.FieldError(*r.Get("model"), "model",
                          "unknown GPU model '" + model + "' (keys of data/hardware.toml)");
    }
    ASSIGN_OR_RETURN(double count, Number(r, "count", 1, 1, 64));
    gpu.power_limit_watts = gpu.spec->tdp_watts;
    RETURN_IF_ERROR(r.Read("power_limit_watts", gpu.power_limit_watts, gpu.spec->idle_watts + 1,
                           gpu.spec->tdp_watts));
    ASSIGN_OR_RETURN(std::optional<TomlReader> partitions, r.Table("partitions"));
    if (partitions) RETURN_IF_ERROR(ParsePartitions(Reader(partitions->table()), gpu));
    for (int i = 0; i < static_cast<int>(count); ++i) node.gpus.push_back(gpu);
  }
  if (node.gpus.empty() || node.gpus.size() > 64) {
    return node_reader.Error(*gpus, "node '" + node.name + "': 1 to 64 GPUs per node");
  }
  return OkStatus();
}

StatusOr<ScenarioNode> ScenarioParser::ParseNode(const TomlReader& r) const {
  RETURN_IF_ERROR(
      r.CheckKeys({"name", "cloud", "region", "zone", "price_usd_per_gpu_hour", "driver_version",
                   "runtime_version", "cpu_cores", "memory_gib", "gpus"}));
  ScenarioNode node;
  RETURN_IF_ERROR(r.Require("name", node.name));
  RETURN_IF_ERROR(r.Read("cloud", node.cloud));
  RETURN_IF_ERROR(r.Read("region", node.region));
  RETURN_IF_ERROR(r.Read("zone", node.zone));
  RETURN_IF_ERROR(r.Read("driver_version", node.driver_version));
  RETURN_IF_ERROR(r.Read("runtime_version", node.runtime_version));
  ASSIGN_OR_RETURN(double cores, Number(r, "cpu_cores", 0, 0, 4096));
  node.cpu_cores = static_cast<int>(cores);
  ASSIGN_OR_RETURN(double mem_gib, Number(r, "memory_gib", 0, 0, 65536));
  node.host_memory_bytes = static_cast<uint64_t>(mem_gib * kGiB);
  ASSIGN_OR_RETURN(std::optional<TomlReader> price, r.Table("price_usd_per_gpu_hour"));
  if (price) {
    price = Reader(price->table());
    RETURN_IF_ERROR(price->CheckKeys({"on_demand", "spot", "committed"}));
    RETURN_IF_ERROR(price->Read("on_demand", node.on_demand_usd_per_gpu_hour, 0.0, 1000.0));
    RETURN_IF_ERROR(price->Read("spot", node.spot_usd_per_gpu_hour, 0.0, 1000.0));
    RETURN_IF_ERROR(price->Read("committed", node.committed_usd_per_gpu_hour, 0.0, 1000.0));
  }
  RETURN_IF_ERROR(ParseGpus(r, node));
  return node;
}

StatusOr<LoadProfile> ScenarioParser::ParseLoad(const TomlReader& r, const ScenarioGpu& gpu) const {
  LoadProfile load;
  ASSIGN_OR_RETURN(std::optional<TomlReader> lr, r.Table("load"));
  if (!lr) return load;
  lr = Reader(lr->table());  // fields named as written: 'sm_activity'
  RETURN_IF_ERROR(lr->CheckKeys({"sm_activity", "memory_bandwidth", "tensor_share", "memory_gib",
                                 "memory_bytes", "step_period_s", "pcie", "interconnect"}));
  RETURN_IF_ERROR(lr->Read("sm_activity", load.sm_activity, 0.0, 1.0));
  RETURN_IF_ERROR(lr->Read("memory_bandwidth", load.memory_bandwidth, 0.0, 1.0));
  RETURN_IF_ERROR(lr->Read("tensor_share", load.tensor_share, 0.0, 1.0));
  RETURN_IF_ERROR(lr->Read("step_period_s", load.step_period_s, 0.0, 3600.0));
  RETURN_IF_ERROR(lr->Read("pcie", load.pcie, 0.0, 1.0));
  RETURN_IF_ERROR(lr->Read("interconnect", load.interconnect, 0.0, 1.0));
  const double device_bytes = static_cast<double>(gpu.spec->memory_bytes) /
                              static_cast<double>(std::max<size_t>(1, gpu.partition_count()));
  ASSIGN_OR_RETURN(double gib, Number(*lr, "memory_gib", 0, 0, 1e6));
  ASSIGN_OR_RETURN(double bytes, Number(*lr, "memory_bytes", gib * kGiB, 0, 1e18));
  if (bytes > device_bytes) {
    const toml::node* at =
        lr->Has("memory_bytes") ? lr->Get("memory_bytes") : lr->Get("memory_gib");
    return lr->Error(*at, "load footprint " + std::to_string(bytes / kGiB) +
                              " GiB exceeds the device's " + std::to_string(device_bytes / kGiB) +
                              " GiB");
  }
  load.memory_bytes = static_cast<uint64_t>(bytes);
  return load;
}

StatusOr<ScenarioWorkload> ScenarioParser::ParseWorkload(const TomlReader& r,
                                                         const Scenario& s) const {
  const toml::table& t = r.table();
  RETURN_IF_ERROR(r.CheckKeys({"id", "team", "kind", "node", "gpus", "partitions", "pod",
                               "namespace", "container", "start_s", "duration_s", "load"}));
  ScenarioWorkload w;
  RETURN_IF_ERROR(r.Require("id", w.id));
  RETURN_IF_ERROR(r.Read("team", w.team));
  std::string kind;
  RETURN_IF_ERROR(r.Read("kind", kind));
  if (kind.empty() || kind == "training") {
    w.kind = WorkloadKind::kTraining;
  } else if (kind == "inference") {
    w.kind = WorkloadKind::kInference;
  } else if (kind == "batch") {
    w.kind = WorkloadKind::kBatch;
  } else {
    return r.FieldError(*t.get("kind"), "kind",
                        "unknown workload kind '" + kind + "' (training, inference, batch)");
  }
  ASSIGN_OR_RETURN(w.node, NodeRef(r, s));
  const ScenarioNode& node = s.nodes[w.node];
  ASSIGN_OR_RETURN(w.gpus, IntList(r, "gpus"));
  if (w.gpus.empty()) return r.Error(t, "workload '" + w.id + "': field 'gpus' must list GPUs");
  for (int g : w.gpus) {
    if (static_cast<size_t>(g) >= node.gpus.size()) {
      return r.FieldError(*t.get("gpus"), "gpus",
                          "GPU index " + std::to_string(g) + " out of range for node '" +
                              node.name + "' (" + std::to_string(node.gpus.size()) + " GPUs)");
    }
  }
  ASSIGN_OR_RETURN(w.partitions, IntList(r, "partitions"));
  for (int p : w.partitions) {
    for (int g : w.gpus) {
      if (static_cast<size_t>(p) >= node.gpus[g].partition_count()) {
        return r.FieldError(*t.get("partitions"), "partitions",
                            "partition " + std::to_string(p) + " does not exist on GPU " +
                                std::to_string(g) + " of node '" + node.name + "'");
      }
    }
  }
  RETURN_IF_ERROR(r.Read("pod", w.pod));
  RETURN_IF_ERROR(r.Read("namespace", w.pod_namespace));
  RETURN_IF_ERROR(r.Read("container", w.container));
  ASSIGN_OR_RETURN(w.start_s, Number(r, "start_s", 0, 0, 1e9));
  ASSIGN_OR_RETURN(double duration, Number(r, "duration_s", -1, 0, 1e9));
  if (r.Has("duration_s")) w.end_s = w.start_s + duration;
  // The smallest device the workload lands on bounds its footprint.
  const ScenarioGpu* smallest = &node.gpus[w.gpus[0]];
  for (int g : w.gpus) {
    if (node.gpus[g].partition_count() > smallest->partition_count()) smallest = &node.gpus[g];
  }
  ASSIGN_OR_RETURN(w.load, ParseLoad(r, *smallest));
  return w;
}

StatusOr<ScenarioEpisode> ScenarioParser::ParseEpisode(const TomlReader& r,
                                                       const Scenario& s) const {
  const toml::table& t = r.table();
  RETURN_IF_ERROR(r.CheckKeys(
      {"kind", "node", "gpus", "start_s", "duration_s", "magnitude", "code", "severity"}));
  ScenarioEpisode e;
  std::string kind;
  RETURN_IF_ERROR(r.Require("kind", kind));
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
    return r.FieldError(*t.get("kind"), "kind",
                        "unknown episode kind '" + kind + "' (" + names + ")");
  }
  ASSIGN_OR_RETURN(e.node, NodeRef(r, s));
  ASSIGN_OR_RETURN(e.gpus, IntList(r, "gpus"));
  for (int g : e.gpus) {
    if (static_cast<size_t>(g) >= s.nodes[e.node].gpus.size()) {
      return r.FieldError(*t.get("gpus"), "gpus",
                          "GPU index " + std::to_string(g) + " out of range for node '" +
                              s.nodes[e.node].name + "'");
    }
  }
  ASSIGN_OR_RETURN(e.start_s, Number(r, "start_s", 0, 0, 1e9));
  ASSIGN_OR_RETURN(e.duration_s, Number(r, "duration_s", 60, 0, 1e9));
  const bool is_count = e.kind == EpisodeKind::kEcc;
  ASSIGN_OR_RETURN(e.magnitude, Number(r, "magnitude", is_count ? 1 : 0.5, 0, is_count ? 1e9 : 1));
  ASSIGN_OR_RETURN(double code, Number(r, "code", 13, 0, 1e6));
  e.code = static_cast<int>(code);
  if (t.get("code") != nullptr && e.kind != EpisodeKind::kXid) {
    return r.Error(*t.get("code"), "field 'code' applies only to kind = \"xid\"");
  }
  std::string severity;
  RETURN_IF_ERROR(r.Read("severity", severity));
  if (!severity.empty()) {
    if (e.kind != EpisodeKind::kEcc) {
      return r.Error(*t.get("severity"), "field 'severity' applies only to kind = \"ecc\"");
    }
    if (severity != "corrected" && severity != "uncorrected") {
      return r.Error(*t.get("severity"), "field 'severity' must be corrected or uncorrected");
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

StatusOr<Scenario> ScenarioParser::Parse(std::string_view text) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin_));
  TomlReader r = Reader(root);
  RETURN_IF_ERROR(
      r.CheckKeys({"name", "description", "seed", "interval_s", "node", "workload", "episode"}));
  Scenario s;
  s.origin = origin_;
  RETURN_IF_ERROR(r.Read("name", s.name));
  ASSIGN_OR_RETURN(double seed, Number(r, "seed", 1, 0, 9.0e15));
  s.seed = static_cast<uint64_t>(seed);
  RETURN_IF_ERROR(r.Read("interval_s", s.interval_s, 0.1, 3600.0));

  for (std::string_view key : {"node", "workload", "episode"}) {
    const toml::node* n = root.get(key);
    if (n != nullptr && !n->is_array_of_tables()) {
      return r.Error(*n, "'" + std::string(key) + "' must be written [[" + std::string(key) + "]]");
    }
  }
  if (root["node"].as_array() == nullptr || root["node"].as_array()->empty()) {
    return InvalidArgumentError(origin_ + ": a scenario needs at least one [[node]]");
  }
  // Entries are read without a path: messages name fields as written in
  // their table ("field 'gpus'"), the line says which entry.
  std::set<std::string> names;
  RETURN_IF_ERROR(r.ForEachTable("node", [&](const TomlReader& n) -> Status {
    ASSIGN_OR_RETURN(ScenarioNode node, ParseNode(Reader(n.table())));
    if (!names.insert(node.name).second) {
      return n.Error(n.table(), "field 'name': duplicate node name '" + node.name + "'");
    }
    s.nodes.push_back(std::move(node));
    return OkStatus();
  }));
  std::set<std::string> ids;
  RETURN_IF_ERROR(r.ForEachTable("workload", [&](const TomlReader& n) -> Status {
    ASSIGN_OR_RETURN(ScenarioWorkload w, ParseWorkload(Reader(n.table()), s));
    if (!ids.insert(w.id).second) {
      return n.Error(n.table(), "field 'id': duplicate workload id '" + w.id + "'");
    }
    w.pid = PidFor(w.id);
    s.workloads.push_back(std::move(w));
    return OkStatus();
  }));
  RETURN_IF_ERROR(r.ForEachTable("episode", [&](const TomlReader& n) -> Status {
    ASSIGN_OR_RETURN(ScenarioEpisode e, ParseEpisode(Reader(n.table()), s));
    s.episodes.push_back(std::move(e));
    return OkStatus();
  }));
  return s;
}

}  // namespace

StatusOr<Scenario> ParseScenario(std::string_view toml, std::string_view origin) {
  return ScenarioParser(origin).Parse(toml);
}

}  // namespace gpufleet
