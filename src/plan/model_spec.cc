#include "plan/model_spec.h"

#include "core/embedded.h"
#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet::plan {

double ModelSpec::AttnParamsPerLayer() const {
  double kv_dim = static_cast<double>(hidden) * kv_heads / heads;
  return static_cast<double>(hidden) * (2.0 * hidden + 2.0 * kv_dim);
}

double ModelSpec::MlpParamsPerExpert() const {
  return (gated_mlp ? 3.0 : 2.0) * hidden * static_cast<double>(ffn);
}

double ModelSpec::TotalParams() const {
  return layers * (AttnParamsPerLayer() + experts * MlpParamsPerExpert()) +
         2.0 * vocab * static_cast<double>(hidden);
}

double ModelSpec::FlopsPerToken() const {
  return 2.0 * (layers * (AttnParamsPerLayer() + active_experts * MlpParamsPerExpert()) +
                static_cast<double>(vocab) * hidden);
}

double ModelSpec::KvBytesPerToken() const {
  double kv_dim = static_cast<double>(hidden) * kv_heads / heads;
  return 2.0 * layers * kv_dim * kv_bytes_per_value;
}

StatusOr<std::vector<ModelSpec>> ParseModels(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  TomlReader top(root, origin);
  RETURN_IF_ERROR(top.CheckKeys({"model"}));
  std::vector<ModelSpec> out;
  const toml::array* arr = root["model"].as_array();
  if (arr == nullptr) return top.Missing("model");
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::table* t = (*arr)[i].as_table();
    if (t == nullptr)
      return top.Error((*arr)[i], "model[" + std::to_string(i) + "] must be a table");
    TomlReader r(*t, origin, "model[" + std::to_string(i) + "]");
    RETURN_IF_ERROR(r.CheckKeys({"key", "name", "layers", "hidden", "heads", "kv_heads", "ffn",
                                 "vocab", "gated_mlp", "experts", "active_experts"}));
    ModelSpec m;
    int64_t layers = 0, hidden = 0, heads = 0, kv = 0, ffn = 0, vocab = 0, ex = 1, act = 1;
    RETURN_IF_ERROR(r.Require("key", m.key));
    RETURN_IF_ERROR(r.Read("name", m.name));
    RETURN_IF_ERROR(r.Require("layers", layers, 1, 10000));
    RETURN_IF_ERROR(r.Require("hidden", hidden, 1, 1 << 20));
    RETURN_IF_ERROR(r.Require("heads", heads, 1, 1 << 16));
    RETURN_IF_ERROR(r.Require("kv_heads", kv, 1, heads));
    RETURN_IF_ERROR(r.Require("ffn", ffn, 1, 1 << 22));
    RETURN_IF_ERROR(r.Require("vocab", vocab, 1, 1 << 24));
    RETURN_IF_ERROR(r.Read("gated_mlp", m.gated_mlp));
    RETURN_IF_ERROR(r.Read("experts", ex, 1, 1024));
    RETURN_IF_ERROR(r.Read("active_experts", act, 1, ex));
    m.layers = static_cast<int>(layers);
    m.hidden = static_cast<int>(hidden);
    m.heads = static_cast<int>(heads);
    m.kv_heads = static_cast<int>(kv);
    m.ffn = static_cast<int>(ffn);
    m.vocab = static_cast<int>(vocab);
    m.experts = static_cast<int>(ex);
    m.active_experts = static_cast<int>(act);
    if (m.name.empty()) m.name = m.key;
    out.push_back(std::move(m));
  }
  return out;
}

const std::vector<ModelSpec>& ModelPresets() {
  static const std::vector<ModelSpec>* presets = [] {
    auto text = FindEmbeddedFile("plan/models.toml");
    GPUFLEET_CHECK(text.has_value());
    auto parsed = ParseModels(*text, "data/plan/models.toml");
    if (!parsed.ok()) CheckFailed(__FILE__, __LINE__, "model presets", parsed.status().ToString());
    return new std::vector<ModelSpec>(std::move(parsed).value());
  }();
  return *presets;
}

StatusOr<ModelSpec> FindModel(std::string_view key) {
  std::vector<std::string> keys;
  for (const ModelSpec& m : ModelPresets()) {
    if (EqualsIgnoreCase(m.key, key) || EqualsIgnoreCase(m.name, key)) return m;
    keys.push_back(m.key);
  }
  std::string_view best = SuggestClosest(key, keys);
  std::string msg = "unknown model '" + std::string(key) + "'";
  if (!best.empty()) msg += " (did you mean '" + std::string(best) + "'?)";
  msg += "; presets:";
  for (const std::string& k : keys) msg += " " + k;
  return NotFoundError(msg);
}

}  // namespace gpufleet::plan
