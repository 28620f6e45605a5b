#include "plan/plan_input.h"

#include <cstdio>

#include "core/toml_reader.h"
#include "plan/gpu_type.h"
#include "plan/model_spec.h"

namespace gpufleet::plan {
namespace {

StatusOr<const toml::array*> Array(const toml::table& root, const TomlReader& top,
                                   std::string_view key) {
  const toml::node* n = root.get(key);
  if (n == nullptr) return top.Missing(key);
  if (!n->is_array())
    return top.FieldError(*n, key, "must be an array of tables ([[" + std::string(key) + "]])");
  return n->as_array();
}

}  // namespace

StatusOr<TrainingJob> ParseTrainingJob(std::string_view text, std::string_view origin,
                                       const LatencyTable* table, const StepLookup* lookup,
                                       std::vector<std::string>* notes) {
  auto note = [&](std::string s) {
    if (notes != nullptr) notes->push_back(std::move(s));
  };
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  TomlReader top(root, origin);
  RETURN_IF_ERROR(top.CheckKeys({"mode", "microbatches", "allreduce_ms", "layers", "model",
                                 "tokens_per_microbatch", "rank"}));
  TrainingJob job;
  std::string mode = "data", model_key;
  int64_t mb = 0, layers = 0, tokens = 0;
  double allreduce_ms = 0;
  RETURN_IF_ERROR(top.Read("mode", mode));
  if (mode != "data" && mode != "pipeline") {
    return top.FieldError(*root.get("mode"), "mode", "must be \"data\" or \"pipeline\"");
  }
  job.mode = mode == "data" ? TrainMode::kData : TrainMode::kPipeline;
  RETURN_IF_ERROR(top.Require("microbatches", mb, 1, 1'000'000));
  RETURN_IF_ERROR(top.Read("allreduce_ms", allreduce_ms, 0.0, 1e9));
  RETURN_IF_ERROR(top.Read("model", model_key));
  RETURN_IF_ERROR(top.Read("tokens_per_microbatch", tokens, 1, 100'000'000));
  std::optional<ModelSpec> model;
  if (!model_key.empty()) {
    auto m = FindModel(model_key);
    if (!m.ok()) return top.FieldError(*root.get("model"), "model", m.status().message());
    model = *m;
  }
  if (job.mode == TrainMode::kPipeline) {
    if (model && !top.Has("layers"))
      layers = model->layers;
    else
      RETURN_IF_ERROR(top.Require("layers", layers, 1, 100'000));
  }
  job.microbatches = static_cast<int>(mb);
  job.layers = static_cast<int>(layers);
  job.allreduce_s = allreduce_ms / 1000;
  ASSIGN_OR_RETURN(const toml::array* ranks, Array(root, top, "rank"));
  const bool data = job.mode == TrainMode::kData;
  for (size_t i = 0; i < ranks->size(); ++i) {
    const toml::table* t = (*ranks)[i].as_table();
    if (t == nullptr) return top.Error((*ranks)[i], "rank entries must be tables");
    TomlReader r(*t, origin, "rank[" + std::to_string(i) + "]");
    RETURN_IF_ERROR(r.CheckKeys(
        {"gpu", "count", "name", "measured_workload", "node", data ? "microbatch_ms" : "layer_ms",
         data ? "max_microbatches" : "max_layers", data ? "microbatch_ms" : "measured_layers"}));
    std::string gpu, name, workload, node;
    int64_t count = 1, cap = 0, measured_layers = 0;
    double ms = 0;
    RETURN_IF_ERROR(r.Require("gpu", gpu));
    RETURN_IF_ERROR(r.Read("name", name));
    RETURN_IF_ERROR(r.Read("count", count, 1, 100'000));
    RETURN_IF_ERROR(r.Read(data ? "microbatch_ms" : "layer_ms", ms, 0.0, 1e9));
    RETURN_IF_ERROR(r.Read(data ? "max_microbatches" : "max_layers", cap, 0, 1'000'000));
    RETURN_IF_ERROR(r.Read("measured_workload", workload));
    RETURN_IF_ERROR(r.Read("node", node));
    if (!data && !workload.empty())
      RETURN_IF_ERROR(r.Require("measured_layers", measured_layers, 1, 100'000));
    const std::string who = name.empty() ? gpu : name;
    if (!workload.empty()) {
      std::optional<MeasuredSteps> m;
      if (lookup != nullptr && *lookup) m = (*lookup)(workload, node);
      const std::string what = "workload " + workload + (node.empty() ? "" : " on " + node);
      const std::string fallback =
          ms > 0 ? std::string(data ? "microbatch_ms" : "layer_ms") + " from the job"
                 : "the latency model's estimate";
      if (m && m->median_s > 0) {
        ms = 1000 * m->median_s / (data ? 1.0 : static_cast<double>(measured_layers));
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "%s: %.1f ms per %s, the median of %lld steps of %s reported in the "
                      "last %.0f min",
                      who.c_str(), ms, data ? "micro-batch" : "layer",
                      static_cast<long long>(m->points), what.c_str(), m->window_s / 60);
        note(buf);
      } else if (lookup == nullptr || !*lookup) {
        note(who + ": " + what +
             " not looked up (only the server reads the agent's steps: POST the "
             "job to /api/v1/plan/training); using " +
             fallback);
      } else {
        note(who + ": no steps of " + what + " reported recently; using " + fallback);
      }
    }
    bool measured = ms > 0;
    double unit_s = ms / 1000;
    if (!measured) {
      // Estimate from the calibrated prefill (forward) model: fwd + bwd = 3x forward.
      if (!model || tokens <= 0 || table == nullptr) {
        if (!workload.empty()) {
          return r.FieldError(*t->get("measured_workload"), "measured_workload",
                              "no steps of workload " + workload + " to read, and no " +
                                  (data ? "microbatch_ms" : "layer_ms") +
                                  " (or model and tokens_per_microbatch) to fall back on");
        }
        return r.Missing(data ? "microbatch_ms" : "layer_ms");
      }
      const GpuLatency* lat = table->Find(gpu);
      GpuLatency est;
      if (lat == nullptr) {
        auto peaks = PeaksOf(gpu);
        if (!peaks.ok()) return r.FieldError(*t->get("gpu"), "gpu", peaks.status().message());
        est.peaks = *peaks;
        est.prefill = table->estimate_prefill;
        est.decode = table->estimate_decode;
        lat = &est;
      }
      double tok = static_cast<double>(tokens);
      double fwd = lat->PrefillS(*model, 1, tok, tok * tok);
      unit_s = 3 * fwd / (data ? 1.0 : model->layers);
    }
    for (int64_t k = 0; k < count; ++k) {
      std::string n = (name.empty() ? gpu : name) + (count > 1 ? "-" + std::to_string(k) : "");
      job.ranks.push_back(TrainRank{n, gpu, unit_s, static_cast<int>(cap), measured});
    }
  }
  return job;
}

StatusOr<RingTopology> ParseRingTopology(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  TomlReader top(root, origin);
  RETURN_IF_ERROR(top.CheckKeys({"message_mib", "links", "rank", "link"}));
  RingTopology t;
  double mib = 0;
  RETURN_IF_ERROR(top.Require("message_mib", mib, 1e-6, 1e9));
  t.message_bytes = mib * 1048576.0;
  auto read_link = [&](const TomlReader& r, LinkSpec* l) -> Status {
    double gb_s = 0, lat_us = 0;
    RETURN_IF_ERROR(r.Require("gb_s", gb_s, 1e-9, 1e9));
    RETURN_IF_ERROR(r.Read("latency_us", lat_us, 0.0, 1e9));
    RETURN_IF_ERROR(r.Read("egress_usd_per_gb", l->egress_usd_per_gb, 0.0, 1e6));
    l->bandwidth_bytes_per_s = gb_s * 1e9;
    l->latency_s = lat_us * 1e-6;
    return OkStatus();
  };
  const toml::table* links = root["links"].as_table();
  if (links == nullptr) return top.Missing("links");
  TomlReader lr(*links, origin, "links");
  RETURN_IF_ERROR(lr.CheckKeys({"node", "region", "cloud", "intercloud"}));
  for (auto [key, dst] :
       {std::pair{"node", &t.same_node}, std::pair{"region", &t.same_region},
        std::pair{"cloud", &t.same_cloud}, std::pair{"intercloud", &t.cross_cloud}}) {
    const toml::table* lt = (*links)[key].as_table();
    if (lt == nullptr) return lr.Missing(key);
    TomlReader r(*lt, origin, std::string("links.") + key);
    RETURN_IF_ERROR(r.CheckKeys({"gb_s", "latency_us", "egress_usd_per_gb"}));
    RETURN_IF_ERROR(read_link(r, dst));
  }
  ASSIGN_OR_RETURN(const toml::array* ranks, Array(root, top, "rank"));
  for (size_t i = 0; i < ranks->size(); ++i) {
    const toml::table* rt = (*ranks)[i].as_table();
    if (rt == nullptr) return top.Error((*ranks)[i], "rank entries must be tables");
    TomlReader r(*rt, origin, "rank[" + std::to_string(i) + "]");
    RETURN_IF_ERROR(r.CheckKeys({"node", "cloud", "region", "count"}));
    RingRank rank;
    int64_t count = 1;
    RETURN_IF_ERROR(r.Require("node", rank.node));
    RETURN_IF_ERROR(r.Require("cloud", rank.cloud));
    RETURN_IF_ERROR(r.Require("region", rank.region));
    RETURN_IF_ERROR(r.Read("count", count, 1, 4096));
    for (int64_t k = 0; k < count; ++k) {
      rank.name = rank.node + ":" + std::to_string(k);
      t.ranks.push_back(rank);
    }
  }
  if (const toml::node* ln = root.get("link")) {
    const toml::array* arr = ln->as_array();
    if (arr == nullptr) return top.FieldError(*ln, "link", "must be an array of tables ([[link]])");
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::table* lt = (*arr)[i].as_table();
      if (lt == nullptr) return top.Error((*arr)[i], "link entries must be tables");
      TomlReader r(*lt, origin, "link[" + std::to_string(i) + "]");
      RETURN_IF_ERROR(r.CheckKeys({"a", "b", "gb_s", "latency_us", "egress_usd_per_gb"}));
      RegionLink m;
      RETURN_IF_ERROR(r.Require("a", m.a));
      RETURN_IF_ERROR(r.Require("b", m.b));
      RETURN_IF_ERROR(read_link(r, &m.link));
      t.measured.push_back(m);
    }
  }
  if (t.ranks.size() > 4096)
    return InvalidArgumentError(std::string(origin) + ": more than 4096 ranks");
  return t;
}

}  // namespace gpufleet::plan
