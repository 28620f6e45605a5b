#include "place/spec_file.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/file_util.h"
#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet::place {
namespace {

// TOML and JSON requests are both read as a toml::table, so every field check
// is written once. Values built from JSON carry no source position, so their
// errors name only the source ("request: gpus: ..."). Files and messages use
// the bare field style: `inv.toml:12: node "a3": gpus: must be ...`.
constexpr TomlReader::Naming kBare = TomlReader::Naming::kBare;

// Our files nest three levels at most; deeper values are kept opaque.
constexpr int kMaxDepth = 8;

// JSON null and values nested too deep have no TOML counterpart; a date
// stands in for them, a type no field accepts.
toml::date Opaque() { return toml::date{}; }

// Where a converted value goes: appended to an array or set in a table.
struct ArraySink {
  toml::array& array;
  template <typename V>
  void operator()(V&& v) {
    array.push_back(std::forward<V>(v));
  }
};
struct TableSink {
  toml::table& table;
  const std::string& key;
  template <typename V>
  void operator()(V&& v) {
    table.insert_or_assign(key, std::forward<V>(v));
  }
};

template <typename Sink>
void FromJson(const nlohmann::json& j, int depth, Sink sink) {
  if (j.is_string()) {
    sink(j.get<std::string>());
  } else if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      sink(static_cast<int64_t>(u));
    } else {
      sink(static_cast<double>(u));
    }
  } else if (j.is_number_integer()) {
    sink(j.get<int64_t>());
  } else if (j.is_number_float()) {
    sink(j.get<double>());
  } else if (j.is_boolean()) {
    sink(j.get<bool>());
  } else if (depth < kMaxDepth && j.is_array()) {
    toml::array a;
    for (const nlohmann::json& e : j) FromJson(e, depth + 1, ArraySink{a});
    sink(std::move(a));
  } else if (depth < kMaxDepth && j.is_object()) {
    toml::table t;
    for (auto it = j.begin(); it != j.end(); ++it) {
      FromJson(it.value(), depth + 1, TableSink{t, it.key()});
    }
    sink(std::move(t));
  } else {
    sink(Opaque());
  }
}

// A string field that must be one of `allowed` (compared in lower case).
Status OneOf(const TomlReader& r, std::string_view key,
             std::initializer_list<std::string_view> allowed, std::string& out) {
  std::string s;
  RETURN_IF_ERROR(r.Read(key, s));
  if (!r.Has(key)) return OkStatus();
  std::string lower = ToLower(s);
  std::string list;
  for (std::string_view a : allowed) {
    if (lower == a) {
      out = lower;
      return OkStatus();
    }
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return r.FieldError(*r.Get(key), key, "'" + s + "' is not one of " + list);
}

// CPU: a number of cores (0.5) or a quantity string ("500m").
Status Cpu(const TomlReader& r, std::string_view key, int64_t& milli) {
  const toml::node* v = r.Get(key);
  if (v == nullptr) return OkStatus();
  StatusOr<int64_t> m = InvalidArgumentError("want a number of cores or a string like \"500m\"");
  if (v->is_integer()) {
    m = ParseCpuMilli(FormatDouble(static_cast<double>(v->as_integer()->get())));
  } else if (v->is_floating_point()) {
    m = ParseCpuMilli(FormatDouble(v->as_floating_point()->get()));
  } else if (v->is_string()) {
    m = ParseCpuMilli(v->as_string()->get());
  }
  if (!m.ok()) return r.FieldError(*v, key, m.status().message());
  milli = *m;
  return OkStatus();
}

// Memory: an integer number of MiB or a quantity string ("128Gi").
Status Memory(const TomlReader& r, std::string_view key, int64_t& mib) {
  const toml::node* v = r.Get(key);
  if (v == nullptr) return OkStatus();
  StatusOr<int64_t> m = InvalidArgumentError("want an integer MiB or a string like \"128Gi\"");
  if (v->is_integer()) {
    m = ParseMemoryMib(std::to_string(v->as_integer()->get()), /*bare_is_mib=*/true);
  } else if (v->is_string()) {
    m = ParseMemoryMib(v->as_string()->get(), /*bare_is_mib=*/true);
  }
  if (!m.ok()) return r.FieldError(*v, key, m.status().message());
  mib = *m;
  return OkStatus();
}

// An array of non-empty strings.
Status Names(const TomlReader& r, std::string_view key, std::vector<std::string>& out) {
  RETURN_IF_ERROR(r.Read(key, out));
  if (const toml::array* a = r.table()[key].as_array()) {
    for (const toml::node& e : *a) {
      if (e.as_string()->get().empty()) {
        return r.FieldError(e, key, "want an array of non-empty strings");
      }
    }
  }
  return OkStatus();
}

// A table of component -> version string. Numbers are refused: TOML would
// read cuda = 12.10 as 12.1.
Status Software(const TomlReader& r, std::string_view key,
                std::map<std::string, std::string>& out) {
  const toml::node* v = r.Get(key);
  if (v == nullptr) return OkStatus();
  if (!v->is_table()) return r.FieldError(*v, key, "want a table of name = \"version\"");
  for (const auto& [k, value] : *v->as_table()) {
    if (!value.is_string()) {
      return r.FieldError(value, std::string(key) + "." + std::string(k.str()),
                          "want a version string (quote it: \"12.4\")");
    }
    out[std::string(k.str())] = value.as_string()->get();
  }
  return OkStatus();
}

// objective = "cheapest-meeting-deadline", deadline_hours = 12,
// job_type = "ResNet-50 (batch size 64)", steps = 200000
Status ReadObjective(const TomlReader& r, WorkloadRequest& req) {
  RETURN_IF_ERROR(OneOf(r, "objective", {"fastest", "cheapest-per-job", "cheapest-meeting-deadline"},
                        req.objective));
  RETURN_IF_ERROR(r.Read("deadline_hours", req.deadline_hours, 0.0, 1e6));
  RETURN_IF_ERROR(r.Read("job_type", req.job_type));
  RETURN_IF_ERROR(r.Read("steps", req.steps, 0.0, 1e15));
  if (req.objective.empty()) {
    for (const char* key : {"deadline_hours", "job_type", "steps"}) {
      if (r.Has(key)) return r.FieldError(*r.Get(key), key, "only with an objective");
    }
    return OkStatus();
  }
  if (req.job_type.empty()) return r.Missing("job_type");
  if (req.steps <= 0) {
    return r.Has("steps") ? r.FieldError(*r.Get("steps"), "steps", "must be > 0") : r.Missing("steps");
  }
  if (req.objective == "cheapest-meeting-deadline" && req.deadline_hours <= 0) {
    return r.Has("deadline_hours")
               ? r.FieldError(*r.Get("deadline_hours"), "deadline_hours", "must be > 0")
               : r.Missing("deadline_hours");
  }
  if (req.objective != "cheapest-meeting-deadline" && r.Has("deadline_hours")) {
    return r.FieldError(*r.Get("deadline_hours"), "deadline_hours",
                        "only with objective = \"cheapest-meeting-deadline\"");
  }
  if (req.gpu_count < 1) return r.Error(r.table(), "an objective needs gpus >= 1");
  return OkStatus();
}

StatusOr<WorkloadRequest> ReadRequest(const toml::table& t, std::string_view source) {
  TomlReader r(t, source, "", "", kBare);
  RETURN_IF_ERROR(r.CheckKeys({"name", "cpu", "memory", "gpus", "gpu_share", "gpu_models",
                               "vendor", "min_gpu_memory", "interconnect", "region", "intent",
                               "priority", "software", "objective", "deadline_hours",
                               "job_type", "steps"}));
  WorkloadRequest req;
  RETURN_IF_ERROR(r.Read("name", req.name));
  RETURN_IF_ERROR(Cpu(r, "cpu", req.cpu_milli));
  RETURN_IF_ERROR(Memory(r, "memory", req.memory_mib));
  int64_t gpus = 0;
  RETURN_IF_ERROR(r.Read("gpus", gpus, 0, kMaxGpusPerNode));
  double share = 1.0;
  RETURN_IF_ERROR(r.Read("gpu_share", share, 0.001, 1.0));
  // A share without a count means one device.
  if (!r.Has("gpus") && r.Has("gpu_share")) gpus = 1;
  req.gpu_count = static_cast<int>(gpus);
  req.gpu_milli = gpus > 0 ? static_cast<int64_t>(std::llround(share * kMilliPerGpu)) : 0;
  if (req.gpu_milli < kMilliPerGpu && gpus > 1) {
    return r.FieldError(*r.Get("gpu_share"), "gpu_share",
                        "a share below 1 is for one GPU; got gpus = " + std::to_string(gpus));
  }
  RETURN_IF_ERROR(Names(r, "gpu_models", req.gpu_models));
  RETURN_IF_ERROR(OneOf(r, "vendor", {"nvidia", "amd", "intel"}, req.vendor));
  RETURN_IF_ERROR(Memory(r, "min_gpu_memory", req.min_gpu_memory_mib));
  RETURN_IF_ERROR(r.Read("interconnect", req.interconnect));
  RETURN_IF_ERROR(r.Read("region", req.region));
  std::string intent;
  RETURN_IF_ERROR(OneOf(r, "intent", {"latency", "throughput"}, intent));
  req.intent = intent == "latency"      ? Intent::kLatency
               : intent == "throughput" ? Intent::kThroughput
                                        : Intent::kUnspecified;
  int64_t priority = 0;
  RETURN_IF_ERROR(r.Read("priority", priority, -1000000000, 1000000000));
  req.priority = static_cast<int>(priority);
  RETURN_IF_ERROR(Software(r, "software", req.software));
  RETURN_IF_ERROR(ReadObjective(r, req));
  Status s = CheckRequest(req);
  if (!s.ok()) return r.Error(t, s.message());
  return req;
}

struct NodeEntry {
  NodeSpec spec;
  NodeState state;
};

StatusOr<NodeEntry> ReadNode(const toml::table& t, std::string_view source) {
  std::string name;
  {
    TomlReader r(t, source, "", "node: ", kBare);
    RETURN_IF_ERROR(r.Read("name", name));
    if (name.empty()) return r.Missing("name");
  }
  TomlReader r(t, source, "", "node \"" + name + "\": ", kBare);
  RETURN_IF_ERROR(r.CheckKeys({"name", "cpu", "memory", "gpus", "gpu_model", "vendor",
                               "gpu_memory", "gpu_free", "cpu_free", "memory_free",
                               "interconnect", "cloud", "region", "zone",
                               "price_usd_per_gpu_hour", "software"}));
  NodeEntry e;
  NodeSpec& n = e.spec;
  n.name = name;
  if (!r.Has("cpu")) return r.Missing("cpu");
  if (!r.Has("memory")) return r.Missing("memory");
  RETURN_IF_ERROR(Cpu(r, "cpu", n.cpu_milli));
  RETURN_IF_ERROR(Memory(r, "memory", n.memory_mib));
  int64_t gpus = 0;
  RETURN_IF_ERROR(r.Read("gpus", gpus, 0, kMaxGpusPerNode));
  n.gpu_count = static_cast<int>(gpus);
  RETURN_IF_ERROR(r.Read("gpu_model", n.gpu_model));
  if (gpus > 0 && n.gpu_model.empty()) return r.Missing("gpu_model");
  RETURN_IF_ERROR(OneOf(r, "vendor", {"nvidia", "amd", "intel"}, n.vendor));
  RETURN_IF_ERROR(Memory(r, "gpu_memory", n.gpu_memory_mib));
  RETURN_IF_ERROR(r.Read("interconnect", n.interconnect));
  RETURN_IF_ERROR(r.Read("cloud", n.cloud));
  RETURN_IF_ERROR(r.Read("region", n.region));
  RETURN_IF_ERROR(r.Read("zone", n.zone));
  RETURN_IF_ERROR(r.Read("price_usd_per_gpu_hour", n.price_usd_per_gpu_hour, 0.0, 1e6));
  RETURN_IF_ERROR(Software(r, "software", n.software));

  NodeState& s = e.state;
  s.cpu_free_milli = n.cpu_milli;
  s.memory_free_mib = n.memory_mib;
  RETURN_IF_ERROR(Cpu(r, "cpu_free", s.cpu_free_milli));
  if (s.cpu_free_milli > n.cpu_milli) {
    return r.FieldError(*r.Get("cpu_free"), "cpu_free", "more than the node's cpu");
  }
  RETURN_IF_ERROR(Memory(r, "memory_free", s.memory_free_mib));
  if (s.memory_free_mib > n.memory_mib) {
    return r.FieldError(*r.Get("memory_free"), "memory_free", "more than the node's memory");
  }
  s.gpu_free_milli.assign(n.gpu_count, kMilliPerGpu);
  if (const toml::node* v = r.Get("gpu_free")) {
    const toml::array* a = v->as_array();
    if (a == nullptr || static_cast<int64_t>(a->size()) != gpus) {
      return r.FieldError(*v, "gpu_free", "want an array of " + std::to_string(gpus) +
                                              " milli-GPU values (one per GPU)");
    }
    for (size_t g = 0; g < a->size(); ++g) {
      const toml::node& x = *a->get(g);
      const int64_t milli = x.is_integer() ? x.as_integer()->get() : -1;
      if (milli < 0 || milli > kMilliPerGpu) {
        return r.FieldError(x, "gpu_free[" + std::to_string(g) + "]", "must be an integer 0..1000");
      }
      s.gpu_free_milli[g] = milli;
    }
  }
  return e;
}

}  // namespace

Cluster MakeCluster(const Inventory& inventory) {
  return Cluster(inventory.nodes, inventory.free);
}

Status CheckRequest(const WorkloadRequest& req) {
  if (req.cpu_milli < 0) return InvalidArgumentError("cpu: must not be negative");
  if (req.memory_mib < 0) return InvalidArgumentError("memory: must not be negative");
  if (req.min_gpu_memory_mib < 0) return InvalidArgumentError("min_gpu_memory: must not be negative");
  if (req.gpu_count < 0 || req.gpu_count > kMaxGpusPerNode) {
    return InvalidArgumentError("gpus: must be 0.." + std::to_string(kMaxGpusPerNode));
  }
  if (req.gpu_count > 0 && (req.gpu_milli < 1 || req.gpu_milli > kMilliPerGpu)) {
    return InvalidArgumentError("gpu share: must be 1..1000 milli-GPU, got " +
                                std::to_string(req.gpu_milli));
  }
  if (req.gpu_count > 1 && req.gpu_milli < kMilliPerGpu) {
    return InvalidArgumentError("gpu share: a fraction of a GPU is for one GPU, got " +
                                std::to_string(req.gpu_count) + " GPUs");
  }
  if (req.gpu_count == 0 && (!req.gpu_models.empty() || req.min_gpu_memory_mib > 0)) {
    return InvalidArgumentError("gpu_models/min_gpu_memory given but no GPUs requested");
  }
  return OkStatus();
}

StatusOr<Inventory> ParseInventory(std::string_view toml, std::string_view source) {
  ASSIGN_OR_RETURN(toml::table top, ParseToml(toml, source));
  TomlReader r(top, source, "", "", kBare);
  RETURN_IF_ERROR(r.CheckKeys({"node"}));
  const toml::node* nodes = r.Get("node");
  if (nodes == nullptr) return InvalidArgumentError(std::string(source) + ": no [[node]] tables");
  if (!nodes->is_array()) return r.FieldError(*nodes, "node", "want [[node]] tables");
  if (nodes->as_array()->empty()) {
    return InvalidArgumentError(std::string(source) + ": no [[node]] tables");
  }
  Inventory inv;
  std::set<std::string> names;
  for (const toml::node& n : *nodes->as_array()) {
    if (!n.is_table()) return r.FieldError(n, "node", "want [[node]] tables");
    ASSIGN_OR_RETURN(NodeEntry e, ReadNode(*n.as_table(), source));
    if (!names.insert(e.spec.name).second) {
      return r.Error(n, "node \"" + e.spec.name + "\": duplicate node name");
    }
    inv.nodes.push_back(std::move(e.spec));
    inv.free.push_back(std::move(e.state));
  }
  return inv;
}

StatusOr<Inventory> LoadInventoryFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseInventory(text, path);
}

StatusOr<WorkloadRequest> ParseRequest(std::string_view toml, std::string_view source) {
  ASSIGN_OR_RETURN(toml::table top, ParseToml(toml, source));
  return ReadRequest(top, source);
}

StatusOr<WorkloadRequest> LoadRequestFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseRequest(text, path);
}

StatusOr<WorkloadRequest> ParseRequestJson(std::string_view json, std::string_view source) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgumentError(std::string(source) + ": not valid JSON");
  if (!j.is_object()) return InvalidArgumentError(std::string(source) + ": want a JSON object");
  toml::table top;
  for (auto it = j.begin(); it != j.end(); ++it) FromJson(it.value(), 1, TableSink{top, it.key()});
  return ReadRequest(top, source);
}

}  // namespace gpufleet::place
