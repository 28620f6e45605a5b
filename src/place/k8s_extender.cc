#include "place/k8s_extender.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/json_nesting.h"
#include "core/strings.h"
#include "place/placement_report.h"

namespace gpufleet::place {
namespace {

using nlohmann::json;

// Go's encoding/json matches keys case-insensitively; kube-scheduler sends
// the lower-case tags ("pod", "nodes", "nodenames").
const json* Get(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(std::string(key));
  if (it != obj.end()) return &*it;
  std::string lower = ToLower(key);
  for (auto i = obj.begin(); i != obj.end(); ++i) {
    if (ToLower(i.key()) == lower) return &*i;
  }
  return nullptr;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

struct GpuResource {
  std::string_view name;
  std::string_view vendor;
};
constexpr GpuResource kGpuResources[] = {{"nvidia.com/gpu", "nvidia"},
                                         {"amd.com/gpu", "amd"},
                                         {"gpu.intel.com/i915", "intel"},
                                         {"gpu.intel.com/xe", "intel"}};

// Quantity text of a resource value: "500m" or a bare JSON number.
std::optional<std::string> QuantityText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return FormatDouble(v.get<double>());
  return std::nullopt;
}

// Resource totals of one container: requests, else limits.
struct Amounts {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;
  std::string vendor;
};

StatusOr<Amounts> ContainerAmounts(const json& c, const std::string& where) {
  Amounts a;
  const json* res = Get(c, "resources");
  if (res == nullptr) return a;
  const json* requests = Get(*res, "requests");
  const json* limits = Get(*res, "limits");
  auto pick = [&](std::string_view name, std::string& field) -> const json* {
    if (requests != nullptr && requests->is_object() && requests->contains(std::string(name))) {
      field = where + ".resources.requests." + std::string(name);
      return &(*requests)[std::string(name)];
    }
    if (limits != nullptr && limits->is_object() && limits->contains(std::string(name))) {
      field = where + ".resources.limits." + std::string(name);
      return &(*limits)[std::string(name)];
    }
    return nullptr;
  };
  std::string field;
  if (const json* v = pick("cpu", field)) {
    std::optional<std::string> q = QuantityText(*v);
    StatusOr<int64_t> m = q ? ParseCpuMilli(*q) : InvalidArgumentError("want a quantity string");
    if (!m.ok()) return InvalidArgumentError(field + ": " + m.status().message());
    a.cpu_milli = *m;
  }
  if (const json* v = pick("memory", field)) {
    std::optional<std::string> q = QuantityText(*v);
    StatusOr<int64_t> m = q ? ParseMemoryMib(*q, /*bare_is_mib=*/false)
                            : InvalidArgumentError("want a quantity string");
    if (!m.ok()) return InvalidArgumentError(field + ": " + m.status().message());
    a.memory_mib = *m;
  }
  for (const GpuResource& g : kGpuResources) {
    const json* v = pick(g.name, field);
    if (v == nullptr) continue;
    std::optional<std::string> q = QuantityText(*v);
    StatusOr<int64_t> m = q ? ParseCpuMilli(*q) : InvalidArgumentError("want a quantity string");
    if (!m.ok() || *m % 1000 != 0) {
      return InvalidArgumentError(field + ": want a whole number of GPUs, got " + Dump(*v));
    }
    if (*m == 0) continue;
    if (!a.vendor.empty() && a.vendor != g.vendor) {
      return InvalidArgumentError(field + ": GPUs of two vendors (" + a.vendor + ", " +
                                  std::string(g.vendor) + ") in one container");
    }
    a.vendor = std::string(g.vendor);
    a.gpus += *m / 1000;
  }
  return a;
}

StatusOr<Amounts> PodAmounts(const json& spec) {
  Amounts sum, init_max;
  for (std::string_view kind : {"containers", "initContainers"}) {
    const json* list = Get(spec, kind);
    if (list == nullptr) continue;
    if (!list->is_array()) return InvalidArgumentError("pod.spec." + std::string(kind) + ": want an array");
    for (size_t i = 0; i < list->size(); ++i) {
      std::string where = "pod.spec." + std::string(kind) + "[" + std::to_string(i) + "]";
      ASSIGN_OR_RETURN(Amounts a, ContainerAmounts((*list)[i], where));
      Amounts& into = kind == "containers" ? sum : init_max;
      if (!a.vendor.empty() && !into.vendor.empty() && a.vendor != into.vendor) {
        return InvalidArgumentError(where + ": GPUs of two vendors (" + into.vendor + ", " +
                                    a.vendor + ") in one pod");
      }
      if (!a.vendor.empty()) into.vendor = a.vendor;
      if (kind == "containers") {
        sum.cpu_milli += a.cpu_milli;
        sum.memory_mib += a.memory_mib;
        sum.gpus += a.gpus;
      } else {
        init_max.cpu_milli = std::max(init_max.cpu_milli, a.cpu_milli);
        init_max.memory_mib = std::max(init_max.memory_mib, a.memory_mib);
        init_max.gpus = std::max(init_max.gpus, a.gpus);
      }
    }
  }
  // Init containers run one at a time before the app containers.
  if (!sum.vendor.empty() && !init_max.vendor.empty() && sum.vendor != init_max.vendor) {
    return InvalidArgumentError("pod.spec: GPUs of two vendors in one pod");
  }
  sum.cpu_milli = std::max(sum.cpu_milli, init_max.cpu_milli);
  sum.memory_mib = std::max(sum.memory_mib, init_max.memory_mib);
  sum.gpus = std::max(sum.gpus, init_max.gpus);
  if (sum.vendor.empty()) sum.vendor = init_max.vendor;
  return sum;
}

StatusOr<WorkloadRequest> PodJsonToRequest(const json& pod) {
  if (!pod.is_object()) return InvalidArgumentError("pod: want an object");
  WorkloadRequest req;
  const json* meta = Get(pod, "metadata");
  if (meta != nullptr && meta->is_object()) {
    const json* name = Get(*meta, "name");
    const json* ns = Get(*meta, "namespace");
    if (name != nullptr && name->is_string()) req.name = name->get<std::string>();
    if (ns != nullptr && ns->is_string() && !req.name.empty()) {
      req.name = ns->get<std::string>() + "/" + req.name;
    }
  }
  const json* spec = Get(pod, "spec");
  if (spec == nullptr || !spec->is_object()) return InvalidArgumentError("pod.spec: missing");
  ASSIGN_OR_RETURN(Amounts a, PodAmounts(*spec));
  req.cpu_milli = a.cpu_milli;
  req.memory_mib = a.memory_mib;
  if (a.gpus > kMaxGpusPerNode) {
    return InvalidArgumentError("pod.spec: " + std::to_string(a.gpus) + " GPUs, at most " +
                                std::to_string(kMaxGpusPerNode) + " per node");
  }
  req.gpu_count = static_cast<int>(a.gpus);
  req.gpu_milli = req.gpu_count > 0 ? kMilliPerGpu : 0;
  req.vendor = a.vendor;

  const json* ann = meta != nullptr ? Get(*meta, "annotations") : nullptr;
  auto annotation = [&](std::string_view key) -> StatusOr<std::optional<std::string>> {
    if (ann == nullptr || !ann->is_object()) return std::optional<std::string>();
    auto it = ann->find(std::string(key));
    if (it == ann->end()) return std::optional<std::string>();
    if (!it->is_string()) {
      return InvalidArgumentError("pod.metadata.annotations." + std::string(key) +
                                  ": want a string");
    }
    return std::optional<std::string>(it->get<std::string>());
  };
  ASSIGN_OR_RETURN(std::optional<std::string> milli, annotation("gpufleet.io/gpu-milli"));
  if (milli) {
    std::optional<int64_t> m = ParseInt64(TrimWhitespace(*milli));
    if (!m || *m < 1 || *m > kMilliPerGpu) {
      return InvalidArgumentError("pod.metadata.annotations.gpufleet.io/gpu-milli: want 1..1000, got '" +
                                  *milli + "'");
    }
    // GPU-sharing pods often request no device resource at all.
    if (req.gpu_count == 0) req.gpu_count = 1;
    req.gpu_milli = *m;
  }
  ASSIGN_OR_RETURN(std::optional<std::string> models, annotation("gpufleet.io/gpu-models"));
  if (models) {
    for (std::string_view m : SplitString(*models, ',')) {
      m = TrimWhitespace(m);
      if (!m.empty()) req.gpu_models.emplace_back(m);
    }
  }
  ASSIGN_OR_RETURN(std::optional<std::string> intent, annotation("gpufleet.io/intent"));
  if (intent) {
    std::string i = ToLower(TrimWhitespace(*intent));
    if (i == "latency") {
      req.intent = Intent::kLatency;
    } else if (i == "throughput") {
      req.intent = Intent::kThroughput;
    } else {
      return InvalidArgumentError(
          "pod.metadata.annotations.gpufleet.io/intent: want latency or throughput, got '" +
          *intent + "'");
    }
  }
  ASSIGN_OR_RETURN(std::optional<std::string> software, annotation("gpufleet.io/software"));
  if (software) {
    for (std::string_view kv : SplitString(*software, ',')) {
      kv = TrimWhitespace(kv);
      if (kv.empty()) continue;
      size_t eq = kv.find('=');
      std::string_view k = eq == std::string_view::npos ? kv : TrimWhitespace(kv.substr(0, eq));
      std::string_view v = eq == std::string_view::npos ? "" : TrimWhitespace(kv.substr(eq + 1));
      if (k.empty() || v.empty()) {
        return InvalidArgumentError(
            "pod.metadata.annotations.gpufleet.io/software: want name=version[,...], got '" +
            std::string(kv) + "'");
      }
      req.software[std::string(k)] = std::string(v);
    }
  }
  const json* selector = Get(*spec, "nodeSelector");
  if (selector != nullptr && selector->is_object()) {
    auto it = selector->find("topology.kubernetes.io/region");
    if (it != selector->end() && it->is_string()) req.region = it->get<std::string>();
  }
  Status s = CheckRequest(req);
  if (!s.ok()) return InvalidArgumentError("pod: " + s.message());
  return req;
}

// ExtenderArgs, read.
struct Args {
  WorkloadRequest req;
  bool by_name = false;            // "nodenames" given (nodeCacheCapable)
  std::vector<std::string> names;  // candidate node names, in order
  std::vector<const json*> node_objects;  // with !by_name, one per name
  json doc;
};

// Pods and Nodes nest about ten levels. Deeper bodies are refused before
// parsing: the node objects sent back are serialised recursively.
constexpr size_t kMaxJsonDepth = 64;

StatusOr<Args> ReadArgs(std::string_view body) {
  Args a;
  if (MaxJsonNesting(body) > kMaxJsonDepth) {
    return InvalidArgumentError("ExtenderArgs: nested deeper than " +
                                std::to_string(kMaxJsonDepth) + " levels");
  }
  a.doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (a.doc.is_discarded()) return InvalidArgumentError("ExtenderArgs: not valid JSON");
  if (!a.doc.is_object()) return InvalidArgumentError("ExtenderArgs: want a JSON object");
  const json* pod = Get(a.doc, "pod");
  if (pod == nullptr) return InvalidArgumentError("ExtenderArgs: missing pod");
  ASSIGN_OR_RETURN(a.req, PodJsonToRequest(*pod));
  const json* names = Get(a.doc, "nodenames");
  const json* nodes = Get(a.doc, "nodes");
  if (names != nullptr && !names->is_null()) {
    if (!names->is_array()) return InvalidArgumentError("ExtenderArgs.nodenames: want an array");
    a.by_name = true;
    for (const json& n : *names) {
      if (!n.is_string()) return InvalidArgumentError("ExtenderArgs.nodenames: want strings");
      a.names.push_back(n.get<std::string>());
    }
  } else if (nodes != nullptr && !nodes->is_null()) {
    const json* items = Get(*nodes, "items");
    if (items == nullptr || !items->is_array()) {
      return InvalidArgumentError("ExtenderArgs.nodes.items: want an array of Node objects");
    }
    for (size_t i = 0; i < items->size(); ++i) {
      const json& n = (*items)[i];
      const json* meta = Get(n, "metadata");
      const json* name = meta != nullptr ? Get(*meta, "name") : nullptr;
      if (name == nullptr || !name->is_string()) {
        return InvalidArgumentError("ExtenderArgs.nodes.items[" + std::to_string(i) +
                                    "].metadata.name: missing");
      }
      a.names.push_back(name->get<std::string>());
      a.node_objects.push_back(&n);
    }
  } else {
    return InvalidArgumentError("ExtenderArgs: neither nodes nor nodenames given");
  }
  return a;
}

// The candidate nodes that are in the inventory, as a cluster of their own;
// `index[i]` is candidate i's node in it, -1 when unknown.
struct Candidates {
  Cluster cluster{std::vector<NodeSpec>{}};
  std::vector<int> index;
};

Candidates Select(const Inventory& inv, const std::vector<std::string>& names) {
  std::map<std::string_view, int> by_name;
  for (size_t i = 0; i < inv.nodes.size(); ++i) by_name[inv.nodes[i].name] = static_cast<int>(i);
  std::vector<NodeSpec> specs;
  std::vector<NodeState> states;
  std::map<int, int> taken;  // inventory index -> sub-cluster index (names may repeat)
  Candidates c;
  for (const std::string& n : names) {
    auto it = by_name.find(n);
    if (it == by_name.end()) {
      c.index.push_back(-1);
      continue;
    }
    auto [t, inserted] = taken.emplace(it->second, static_cast<int>(specs.size()));
    if (inserted) {
      specs.push_back(inv.nodes[it->second]);
      states.push_back(inv.free[it->second]);
    }
    c.index.push_back(t->second);
  }
  c.cluster = Cluster(std::move(specs), std::move(states));
  return c;
}

bool Resolvable(RejectReason r) {
  return r == RejectReason::kCpu || r == RejectReason::kMemory || r == RejectReason::kGpuCapacity;
}

constexpr std::string_view kNotInInventory = "not in gpufleet inventory";

}  // namespace

StatusOr<WorkloadRequest> PodToRequest(std::string_view pod_json) {
  json pod = json::parse(pod_json, nullptr, /*allow_exceptions=*/false);
  if (pod.is_discarded()) return InvalidArgumentError("pod: not valid JSON");
  return PodJsonToRequest(pod);
}

ExtenderReply ExtenderFilter(const Inventory& inventory, const SoftwareCompatHook& compat,
                             std::string_view body) {
  StatusOr<Args> args = ReadArgs(body);
  if (!args.ok()) return {200, Dump(json{{"error", "gpufleet: " + args.status().message()}})};
  Candidates c = Select(inventory, args->names);
  json failed = json::object(), unresolvable = json::object();
  json pass_names = json::array(), pass_items = json::array();
  for (size_t i = 0; i < args->names.size(); ++i) {
    const std::string& name = args->names[i];
    if (c.index[i] < 0) {
      failed[name] = std::string(kNotInInventory);
      continue;
    }
    int n = c.index[i];
    Feasibility f = CheckFeasible(c.cluster.spec(n), c.cluster.state(n), args->req, compat);
    if (f.ok()) {
      if (args->by_name) {
        pass_names.push_back(name);
      } else {
        pass_items.push_back(*args->node_objects[i]);
      }
      continue;
    }
    std::string why = "gpufleet: " + std::string(RejectReasonName(f.reason)) + ": " + f.detail;
    (Resolvable(f.reason) ? failed : unresolvable)[name] = why;
  }
  json out = json::object();
  if (args->by_name) {
    out["nodenames"] = pass_names;
  } else {
    out["nodes"] = json{{"items", pass_items}};
  }
  out["failedNodes"] = failed;
  out["failedAndUnresolvableNodes"] = unresolvable;
  out["error"] = "";
  return {200, Dump(out)};
}

ExtenderReply ExtenderPrioritize(const Inventory& inventory, std::string_view policy_spec,
                                 const SoftwareCompatHook& compat, std::string_view body) {
  StatusOr<Args> args = ReadArgs(body);
  if (!args.ok()) return {400, Dump(json{{"error", "gpufleet: " + args.status().message()}})};
  StatusOr<std::unique_ptr<PlacementPolicy>> policy = MakePlacementPolicy(policy_spec);
  if (!policy.ok()) return {500, Dump(json{{"error", "gpufleet: " + policy.status().message()}})};
  Candidates c = Select(inventory, args->names);
  PlacementReport report = ExplainPlacement(c.cluster, args->req, **policy, compat);
  std::vector<std::optional<double>> score(c.cluster.size());
  double lo = 0, hi = 0;
  for (size_t i = 0; i < report.feasible.size(); ++i) {
    double s = report.feasible[i].score;
    score[report.feasible[i].node] = s;
    lo = i == 0 ? s : std::min(lo, s);
    hi = i == 0 ? s : std::max(hi, s);
  }
  json out = json::array();
  for (size_t i = 0; i < args->names.size(); ++i) {
    int64_t p = 0;
    int n = c.index[i];
    if (n >= 0 && score[n]) {
      // Min-max scaling onto 1..10: the best feasible node gets the
      // maximum (equal scores all get it), the worst feasible one 1, so it
      // still ranks above infeasible and unknown nodes (0).
      double x = hi > lo ? (*score[n] - lo) / (hi - lo) : 1.0;
      p = 1 + std::llround(x * (kMaxExtenderPriority - 1));
    }
    out.push_back({{"host", args->names[i]}, {"score", p}});
  }
  return {200, Dump(out)};
}

}  // namespace gpufleet::place
