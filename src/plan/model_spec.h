// Transformer model shapes for the planners (data/plan/models.toml) and the
// quantities the latency model needs: parameters, FLOPs per token, weight
// and KV-cache bytes.
//
// Thread safety: plain values; the preset table is immutable after load.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpufleet::plan {

struct ModelSpec {
  std::string key;   // "llama2-70b"
  std::string name;  // "Llama-2-70B"
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;
  int vocab = 0;
  bool gated_mlp = true;
  int experts = 1;
  int active_experts = 1;
  double weight_bytes_per_param = 2;  // 1 for FP8 checkpoints
  double kv_bytes_per_value = 2;      // 1 for an FP8 KV cache

  // Attention projections of one layer (Q, K, V, O).
  double AttnParamsPerLayer() const;
  // One expert's MLP of one layer.
  double MlpParamsPerExpert() const;
  // Everything stored (all experts, embedding and LM head).
  double TotalParams() const;
  double WeightBytes() const { return TotalParams() * weight_bytes_per_param; }
  // Multiply-adds x 2 of the dense part per token (active experts, LM head).
  double FlopsPerToken() const;
  // K and V of one token over all layers.
  double KvBytesPerToken() const;
};

// The presets of data/plan/models.toml.
const std::vector<ModelSpec>& ModelPresets();
// By key or name (case-insensitive); NotFound lists the keys.
StatusOr<ModelSpec> FindModel(std::string_view key);
// Parses a models.toml text (exposed for tests and the fuzz target).
StatusOr<std::vector<ModelSpec>> ParseModels(std::string_view toml, std::string_view origin);

}  // namespace gpufleet::plan
