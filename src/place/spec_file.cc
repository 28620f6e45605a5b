#include "place/spec_file.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/file_util.h"
#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet::place {
namespace {

// TOML and JSON are both read through this small tree, so every field check
// is written once. `where` is the location prefix of the value ("inv.toml:12: "
// for TOML, "request: " for JSON, which has no positions here).
struct Field;
struct Value {
  enum class Kind { kString, kInt, kFloat, kBool, kArray, kTable, kOther };
  Kind kind = Kind::kOther;
  std::string where;
  std::string str;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<Value> items;
  std::vector<Field> fields;

  const Value* Get(std::string_view key) const;
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  double number() const { return kind == Kind::kInt ? static_cast<double>(i) : f; }
};

// (Not std::pair: clang cannot instantiate pair<string, Value> while Value is
// incomplete.)
struct Field {
  std::string key;
  Value value;
};

const Value* Value::Get(std::string_view key) const {
  for (const auto& kv : fields) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

// Our files nest three levels at most; deeper values are kept opaque.
constexpr int kMaxDepth = 8;

Value FromToml(const toml::node& n, std::string_view origin, int depth) {
  Value v;
  v.where = TomlWhere(origin, n);
  if (n.is_string()) {
    v.kind = Value::Kind::kString;
    v.str = n.as_string()->get();
  } else if (n.is_integer()) {
    v.kind = Value::Kind::kInt;
    v.i = n.as_integer()->get();
  } else if (n.is_floating_point()) {
    v.kind = Value::Kind::kFloat;
    v.f = n.as_floating_point()->get();
  } else if (n.is_boolean()) {
    v.kind = Value::Kind::kBool;
    v.b = n.as_boolean()->get();
  } else if (depth < kMaxDepth && n.is_array()) {
    v.kind = Value::Kind::kArray;
    for (const toml::node& e : *n.as_array()) v.items.push_back(FromToml(e, origin, depth + 1));
  } else if (depth < kMaxDepth && n.is_table()) {
    v.kind = Value::Kind::kTable;
    for (const auto& [key, child] : *n.as_table()) {
      v.fields.push_back(Field{std::string(key.str()), FromToml(child, origin, depth + 1)});
    }
  }
  return v;
}

Value FromJson(const nlohmann::json& j, const std::string& where, int depth) {
  Value v;
  v.where = where;
  if (j.is_string()) {
    v.kind = Value::Kind::kString;
    v.str = j.get<std::string>();
  } else if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      v.kind = Value::Kind::kInt;
      v.i = static_cast<int64_t>(u);
    } else {
      v.kind = Value::Kind::kFloat;
      v.f = static_cast<double>(u);
    }
  } else if (j.is_number_integer()) {
    v.kind = Value::Kind::kInt;
    v.i = j.get<int64_t>();
  } else if (j.is_number_float()) {
    v.kind = Value::Kind::kFloat;
    v.f = j.get<double>();
  } else if (j.is_boolean()) {
    v.kind = Value::Kind::kBool;
    v.b = j.get<bool>();
  } else if (depth < kMaxDepth && j.is_array()) {
    v.kind = Value::Kind::kArray;
    for (const nlohmann::json& e : j) v.items.push_back(FromJson(e, where, depth + 1));
  } else if (depth < kMaxDepth && j.is_object()) {
    v.kind = Value::Kind::kTable;
    for (auto it = j.begin(); it != j.end(); ++it) {
      v.fields.push_back(Field{it.key(), FromJson(it.value(), where, depth + 1)});
    }
  }
  return v;
}

// Reads the fields of one table; every error names where, the table's prefix
// (e.g. `node "a3-node-01": `) and the field.
class TableReader {
 public:
  TableReader(const Value& t, std::string prefix) : t_(t), prefix_(std::move(prefix)) {}

  Status CheckKeys(std::initializer_list<std::string_view> known) const {
    for (const auto& kv : t_.fields) {
      bool ok = false;
      for (std::string_view k : known) ok |= kv.key == k;
      if (ok) continue;
      std::string msg = kv.value.where + prefix_ + "unknown key '" + kv.key + "'";
      std::string_view hint = SuggestClosest(kv.key, known);
      if (!hint.empty()) msg += " (did you mean '" + std::string(hint) + "'?)";
      return InvalidArgumentError(msg);
    }
    return OkStatus();
  }

  Status Error(const Value& v, std::string_view key, std::string_view msg) const {
    return InvalidArgumentError(v.where + prefix_ + std::string(key) + ": " + std::string(msg));
  }
  Status Missing(std::string_view key) const {
    return InvalidArgumentError(t_.where + prefix_ + "missing field '" + std::string(key) + "'");
  }
  bool Has(std::string_view key) const { return t_.Get(key) != nullptr; }

  Status String(std::string_view key, std::string& out) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    if (v->kind != Value::Kind::kString) return Error(*v, key, "want a string");
    out = v->str;
    return OkStatus();
  }
  Status OneOf(std::string_view key, std::initializer_list<std::string_view> allowed,
               std::string& out) const {
    std::string s;
    RETURN_IF_ERROR(String(key, s));
    if (!Has(key)) return OkStatus();
    std::string lower = ToLower(s);
    std::string list;
    for (std::string_view a : allowed) {
      if (lower == a) {
        out = lower;
        return OkStatus();
      }
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    return Error(*t_.Get(key), key, "'" + s + "' is not one of " + list);
  }
  Status Int(std::string_view key, int64_t lo, int64_t hi, int64_t& out) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    if (v->kind != Value::Kind::kInt || v->i < lo || v->i > hi) {
      return Error(*v, key, "must be an integer " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    out = v->i;
    return OkStatus();
  }
  Status Number(std::string_view key, double lo, double hi, double& out) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    if (!v->is_number() || !(v->number() >= lo && v->number() <= hi)) {
      return Error(*v, key, "must be a number " + FormatDouble(lo) + ".." + FormatDouble(hi));
    }
    out = v->number();
    return OkStatus();
  }
  // CPU: a number of cores (0.5) or a quantity string ("500m").
  Status Cpu(std::string_view key, int64_t& milli) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    StatusOr<int64_t> m = InvalidArgumentError("want a number of cores or a string like \"500m\"");
    if (v->is_number()) {
      m = ParseCpuMilli(FormatDouble(v->number()));
    } else if (v->kind == Value::Kind::kString) {
      m = ParseCpuMilli(v->str);
    }
    if (!m.ok()) return Error(*v, key, m.status().message());
    milli = *m;
    return OkStatus();
  }
  // Memory: an integer number of MiB or a quantity string ("128Gi").
  Status Memory(std::string_view key, int64_t& mib) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    StatusOr<int64_t> m = InvalidArgumentError("want an integer MiB or a string like \"128Gi\"");
    if (v->kind == Value::Kind::kInt) {
      m = ParseMemoryMib(std::to_string(v->i), /*bare_is_mib=*/true);
    } else if (v->kind == Value::Kind::kString) {
      m = ParseMemoryMib(v->str, /*bare_is_mib=*/true);
    }
    if (!m.ok()) return Error(*v, key, m.status().message());
    mib = *m;
    return OkStatus();
  }
  Status Strings(std::string_view key, std::vector<std::string>& out) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    if (v->kind != Value::Kind::kArray) return Error(*v, key, "want an array of strings");
    out.clear();
    for (const Value& e : v->items) {
      if (e.kind != Value::Kind::kString || e.str.empty()) {
        return Error(e, key, "want an array of non-empty strings");
      }
      out.push_back(e.str);
    }
    return OkStatus();
  }
  // A table of component -> version string. Numbers are refused: TOML would
  // read cuda = 12.10 as 12.1.
  Status Software(std::string_view key, std::map<std::string, std::string>& out) const {
    const Value* v = t_.Get(key);
    if (v == nullptr) return OkStatus();
    if (v->kind != Value::Kind::kTable) return Error(*v, key, "want a table of name = \"version\"");
    for (const auto& kv : v->fields) {
      if (kv.value.kind != Value::Kind::kString) {
        return Error(kv.value, std::string(key) + "." + kv.key,
                     "want a version string (quote it: \"12.4\")");
      }
      out[kv.key] = kv.value.str;
    }
    return OkStatus();
  }

 private:
  const Value& t_;
  std::string prefix_;
};


StatusOr<WorkloadRequest> ReadRequest(const Value& t) {
  TableReader r(t, "");
  RETURN_IF_ERROR(r.CheckKeys({"name", "cpu", "memory", "gpus", "gpu_share", "gpu_models",
                               "vendor", "min_gpu_memory", "interconnect", "region", "intent",
                               "priority", "software"}));
  WorkloadRequest req;
  RETURN_IF_ERROR(r.String("name", req.name));
  RETURN_IF_ERROR(r.Cpu("cpu", req.cpu_milli));
  RETURN_IF_ERROR(r.Memory("memory", req.memory_mib));
  int64_t gpus = 0;
  RETURN_IF_ERROR(r.Int("gpus", 0, kMaxGpusPerNode, gpus));
  double share = 1.0;
  RETURN_IF_ERROR(r.Number("gpu_share", 0.001, 1.0, share));
  // A share without a count means one device.
  if (!r.Has("gpus") && r.Has("gpu_share")) gpus = 1;
  req.gpu_count = static_cast<int>(gpus);
  req.gpu_milli = gpus > 0 ? static_cast<int64_t>(std::llround(share * kMilliPerGpu)) : 0;
  if (req.gpu_milli < kMilliPerGpu && gpus > 1) {
    return r.Error(*t.Get("gpu_share"), "gpu_share",
                   "a share below 1 is for one GPU; got gpus = " + std::to_string(gpus));
  }
  RETURN_IF_ERROR(r.Strings("gpu_models", req.gpu_models));
  RETURN_IF_ERROR(r.OneOf("vendor", {"nvidia", "amd", "intel"}, req.vendor));
  RETURN_IF_ERROR(r.Memory("min_gpu_memory", req.min_gpu_memory_mib));
  RETURN_IF_ERROR(r.String("interconnect", req.interconnect));
  RETURN_IF_ERROR(r.String("region", req.region));
  std::string intent;
  RETURN_IF_ERROR(r.OneOf("intent", {"latency", "throughput"}, intent));
  req.intent = intent == "latency"      ? Intent::kLatency
               : intent == "throughput" ? Intent::kThroughput
                                        : Intent::kUnspecified;
  int64_t priority = 0;
  RETURN_IF_ERROR(r.Int("priority", -1000000000, 1000000000, priority));
  req.priority = static_cast<int>(priority);
  RETURN_IF_ERROR(r.Software("software", req.software));
  Status s = CheckRequest(req);
  if (!s.ok()) return InvalidArgumentError(t.where + s.message());
  return req;
}

struct NodeEntry {
  NodeSpec spec;
  NodeState state;
};

StatusOr<NodeEntry> ReadNode(const Value& t) {
  std::string name;
  {
    TableReader r(t, "node: ");
    RETURN_IF_ERROR(r.String("name", name));
    if (name.empty()) return r.Missing("name");
  }
  TableReader r(t, "node \"" + name + "\": ");
  RETURN_IF_ERROR(r.CheckKeys({"name", "cpu", "memory", "gpus", "gpu_model", "vendor",
                               "gpu_memory", "gpu_free", "cpu_free", "memory_free",
                               "interconnect", "cloud", "region", "zone",
                               "price_usd_per_gpu_hour", "software"}));
  NodeEntry e;
  NodeSpec& n = e.spec;
  n.name = name;
  if (!r.Has("cpu")) return r.Missing("cpu");
  if (!r.Has("memory")) return r.Missing("memory");
  RETURN_IF_ERROR(r.Cpu("cpu", n.cpu_milli));
  RETURN_IF_ERROR(r.Memory("memory", n.memory_mib));
  int64_t gpus = 0;
  RETURN_IF_ERROR(r.Int("gpus", 0, kMaxGpusPerNode, gpus));
  n.gpu_count = static_cast<int>(gpus);
  RETURN_IF_ERROR(r.String("gpu_model", n.gpu_model));
  if (gpus > 0 && n.gpu_model.empty()) return r.Missing("gpu_model");
  RETURN_IF_ERROR(r.OneOf("vendor", {"nvidia", "amd", "intel"}, n.vendor));
  RETURN_IF_ERROR(r.Memory("gpu_memory", n.gpu_memory_mib));
  RETURN_IF_ERROR(r.String("interconnect", n.interconnect));
  RETURN_IF_ERROR(r.String("cloud", n.cloud));
  RETURN_IF_ERROR(r.String("region", n.region));
  RETURN_IF_ERROR(r.String("zone", n.zone));
  RETURN_IF_ERROR(r.Number("price_usd_per_gpu_hour", 0, 1e6, n.price_usd_per_gpu_hour));
  RETURN_IF_ERROR(r.Software("software", n.software));

  NodeState& s = e.state;
  s.cpu_free_milli = n.cpu_milli;
  s.memory_free_mib = n.memory_mib;
  RETURN_IF_ERROR(r.Cpu("cpu_free", s.cpu_free_milli));
  if (s.cpu_free_milli > n.cpu_milli) {
    return r.Error(*t.Get("cpu_free"), "cpu_free", "more than the node's cpu");
  }
  RETURN_IF_ERROR(r.Memory("memory_free", s.memory_free_mib));
  if (s.memory_free_mib > n.memory_mib) {
    return r.Error(*t.Get("memory_free"), "memory_free", "more than the node's memory");
  }
  s.gpu_free_milli.assign(n.gpu_count, kMilliPerGpu);
  if (const Value* v = t.Get("gpu_free")) {
    if (v->kind != Value::Kind::kArray || static_cast<int64_t>(v->items.size()) != gpus) {
      return r.Error(*v, "gpu_free",
                     "want an array of " + std::to_string(gpus) + " milli-GPU values (one per GPU)");
    }
    for (size_t g = 0; g < v->items.size(); ++g) {
      const Value& x = v->items[g];
      if (x.kind != Value::Kind::kInt || x.i < 0 || x.i > kMilliPerGpu) {
        return r.Error(x, "gpu_free[" + std::to_string(g) + "]", "must be an integer 0..1000");
      }
      s.gpu_free_milli[g] = x.i;
    }
  }
  return e;
}

StatusOr<Value> TomlTree(std::string_view text, std::string_view source) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, source));
  return FromToml(t, source, 0);
}

// Splits "4Gi" into 4 and 2^30; nullopt when malformed, negative or not finite.
std::optional<std::pair<double, double>> SplitQuantity(std::string_view q) {
  struct Suffix {
    std::string_view s;
    double mult;
  };
  static constexpr Suffix kSuffixes[] = {
      {"Ki", 1024.0},  {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}, {"m", 1e-3}, {"k", 1e3},
      {"M", 1e6},      {"G", 1e9},        {"T", 1e12},          {"P", 1e15},  {"E", 1e18}};
  q = TrimWhitespace(q);
  double mult = 1;
  for (const Suffix& s : kSuffixes) {
    if (q.size() > s.s.size() && EndsWith(q, s.s)) {
      q.remove_suffix(s.s.size());
      mult = s.mult;
      break;
    }
  }
  // ParseDouble accepts "nan"/"inf"; a quantity is a plain decimal number.
  if (q.empty() || !(std::isdigit(static_cast<unsigned char>(q[0])) || q[0] == '.' || q[0] == '+')) {
    return std::nullopt;
  }
  std::optional<double> v = ParseDouble(q);
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return std::make_pair(*v, mult);
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

StatusOr<int64_t> ParseCpuMilli(std::string_view quantity) {
  std::optional<std::pair<double, double>> q = SplitQuantity(quantity);
  if (!q) {
    return InvalidArgumentError("'" + std::string(quantity) +
                                "' is not a CPU quantity (e.g. \"500m\", \"2\")");
  }
  double milli = std::ceil(q->first * q->second * 1000 - 1e-6);
  if (milli > 1e12) return InvalidArgumentError("'" + std::string(quantity) + "' is too large");
  return static_cast<int64_t>(std::max(0.0, milli));
}

StatusOr<int64_t> ParseMemoryMib(std::string_view quantity, bool bare_is_mib) {
  std::optional<std::pair<double, double>> q = SplitQuantity(quantity);
  if (!q || q->second < 1) {
    return InvalidArgumentError("'" + std::string(quantity) +
                                "' is not a memory quantity (e.g. \"4Gi\", \"512Mi\")");
  }
  double bytes = q->first * q->second;
  if (q->second == 1 && bare_is_mib) bytes *= 1048576.0;
  double mib = std::ceil(bytes / 1048576.0 - 1e-9);
  if (mib > 1e12) return InvalidArgumentError("'" + std::string(quantity) + "' is too large");
  return static_cast<int64_t>(std::max(0.0, mib));
}

StatusOr<Inventory> ParseInventory(std::string_view toml, std::string_view source) {
  ASSIGN_OR_RETURN(Value top, TomlTree(toml, source));
  TableReader r(top, "");
  RETURN_IF_ERROR(r.CheckKeys({"node"}));
  const Value* nodes = top.Get("node");
  if (nodes == nullptr) return InvalidArgumentError(std::string(source) + ": no [[node]] tables");
  if (nodes->kind != Value::Kind::kArray) return r.Error(*nodes, "node", "want [[node]] tables");
  if (nodes->items.empty()) {
    return InvalidArgumentError(std::string(source) + ": no [[node]] tables");
  }
  Inventory inv;
  std::set<std::string> names;
  for (const Value& n : nodes->items) {
    if (n.kind != Value::Kind::kTable) return r.Error(n, "node", "want [[node]] tables");
    ASSIGN_OR_RETURN(NodeEntry e, ReadNode(n));
    if (!names.insert(e.spec.name).second) {
      return InvalidArgumentError(n.where + "node \"" + e.spec.name + "\": duplicate node name");
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
  ASSIGN_OR_RETURN(Value top, TomlTree(toml, source));
  return ReadRequest(top);
}

StatusOr<WorkloadRequest> LoadRequestFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseRequest(text, path);
}

StatusOr<WorkloadRequest> ParseRequestJson(std::string_view json, std::string_view source) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgumentError(std::string(source) + ": not valid JSON");
  if (!j.is_object()) return InvalidArgumentError(std::string(source) + ": want a JSON object");
  return ReadRequest(FromJson(j, std::string(source) + ": ", 0));
}

}  // namespace gpufleet::place
