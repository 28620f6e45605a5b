#include "plan/latency_model.h"

#include <algorithm>
#include <cmath>

namespace gpufleet::plan {
namespace {

// Bytes all-reduced per token per layer (two all-reduces of the 16-bit
// hidden state), ring cost 2(tp-1)/tp.
StepFeatures CommFeatures(const ModelSizes& m, const GpuPeaks& g, int tp, double tokens) {
  StepFeatures f;
  if (tp <= 1) return f;
  double bytes = 2.0 * m.layers * tokens * m.hidden * 2.0 * 2.0 * (tp - 1) / tp;
  f.comm_s = g.link_bytes_per_s > 0 ? bytes / g.link_bytes_per_s : 0;
  f.all_reduces = 2.0 * m.layers;
  return f;
}

}  // namespace

ModelSizes::ModelSizes(const ModelSpec& m)
    : layers(m.layers),
      hidden(m.hidden),
      experts(m.experts),
      active_experts(m.active_experts),
      weight_bytes_per_param(m.weight_bytes_per_param),
      flops_per_token(m.FlopsPerToken()),
      weight_bytes(m.WeightBytes()),
      kv_bytes_per_token(m.KvBytesPerToken()),
      mlp_params_per_expert(m.MlpParamsPerExpert()) {}

StepFeatures PrefillFeatures(const ModelSizes& m, const GpuPeaks& g, int tp, double tokens,
                             double sum_sq_tokens) {
  StepFeatures f = CommFeatures(m, g, tp, tokens);
  f.compute_s = m.flops_per_token * tokens / (tp * g.flops_per_s);
  // QK^T and AV of a causal prompt: 2 FLOPs per multiply-add, half the square.
  f.attention_s = 2.0 * m.layers * m.hidden * sum_sq_tokens / (tp * g.flops_per_s);
  f.memory_s = (m.weight_bytes + m.kv_bytes_per_token * tokens) / (tp * g.memory_bytes_per_s);
  return f;
}

StepFeatures PrefillFeatures(const ModelSpec& m, const GpuPeaks& g, int tp, double tokens,
                             double sum_sq_tokens) {
  return PrefillFeatures(ModelSizes(m), g, tp, tokens, sum_sq_tokens);
}

StepFeatures DecodeFeatures(const ModelSizes& m, const GpuPeaks& g, int tp, double batch,
                            double context_tokens) {
  StepFeatures f = CommFeatures(m, g, tp, batch);
  double flops = m.flops_per_token * batch + 4.0 * m.layers * m.hidden * context_tokens;
  f.compute_s = flops / (tp * g.flops_per_s);
  // A mixture of experts reads only the experts its batch touches.
  double experts_read = std::min<double>(m.experts, batch * m.active_experts);
  double weights = m.weight_bytes - m.layers * (m.experts - experts_read) *
                                        m.mlp_params_per_expert * m.weight_bytes_per_param;
  f.memory_s = (weights + m.kv_bytes_per_token * context_tokens) / (tp * g.memory_bytes_per_s);
  return f;
}

StepFeatures DecodeFeatures(const ModelSpec& m, const GpuPeaks& g, int tp, double batch,
                            double context_tokens) {
  return DecodeFeatures(ModelSizes(m), g, tp, batch, context_tokens);
}

namespace {

// Solves the k x k system a x = b in place (Gaussian elimination, partial
// pivoting); false when singular.
bool Solve(std::vector<std::vector<double>>& a, std::vector<double>& b) {
  size_t k = b.size();
  for (size_t c = 0; c < k; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < k; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    }
    if (std::fabs(a[p][c]) < 1e-300) return false;
    std::swap(a[p], a[c]);
    std::swap(b[p], b[c]);
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      double f = a[r][c] / a[c][c];
      for (size_t j = c; j < k; ++j) a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  for (size_t c = 0; c < k; ++c) b[c] /= a[c][c];
  return true;
}

double Feature(const StepFeatures& f, int i) {
  switch (i) {
    case 0:
      return 1.0;
    case 1:
      return f.compute_s;
    case 2:
      return f.memory_s;
    case 3:
      return f.comm_s;
    case 4:
      return f.all_reduces;
    default:
      return f.attention_s;
  }
}

double& Coeff(PhaseCoeffs& c, int i) {
  switch (i) {
    case 0:
      return c.overhead_s;
    case 1:
      return c.compute_scale;
    case 2:
      return c.memory_scale;
    case 3:
      return c.comm_scale;
    case 4:
      return c.comm_latency_s;
    default:
      return c.attention_scale;
  }
}

}  // namespace

StatusOr<PhaseCoeffs> FitPhase(const std::vector<StepFeatures>& rows,
                               const std::vector<double>& measured_s, const PhaseCoeffs& prior,
                               unsigned fit_mask) {
  if (rows.empty() || rows.size() != measured_s.size()) {
    return InvalidArgumentError("latency fit: no measured rows");
  }
  for (double y : measured_s) {
    if (!(y > 0) || !std::isfinite(y)) {
      return InvalidArgumentError("latency fit: measured time must be positive, got " +
                                  std::to_string(y));
    }
  }
  constexpr int kFeatures = 6;
  bool active[kFeatures];
  for (int i = 0; i < kFeatures; ++i) {
    double lo = Feature(rows[0], i), hi = lo;
    for (const StepFeatures& f : rows) {
      lo = std::min(lo, Feature(f, i));
      hi = std::max(hi, Feature(f, i));
    }
    // The constant always; the others when they vary.
    active[i] = (fit_mask & (1u << i)) != 0 && (i == 0 || hi > lo * (1 + 1e-9) + 1e-15);
  }
  PhaseCoeffs out = prior;
  for (int attempt = 0; attempt < kFeatures; ++attempt) {
    std::vector<int> idx;
    for (int i = 0; i < kFeatures; ++i) {
      if (active[i]) idx.push_back(i);
    }
    size_t k = idx.size();
    std::vector<std::vector<double>> ata(k, std::vector<double>(k, 0.0));
    std::vector<double> atb(k, 0.0);
    for (size_t r = 0; r < rows.size(); ++r) {
      double w = 1.0 / measured_s[r];
      // Inactive features contribute their prior coefficient as a fixed term.
      double fixed = 0;
      for (int i = 0; i < kFeatures; ++i) {
        if (!active[i]) fixed += Coeff(out, i) * Feature(rows[r], i);
      }
      double y = (measured_s[r] - fixed) * w;
      for (size_t a = 0; a < k; ++a) {
        double xa = Feature(rows[r], idx[a]) * w;
        atb[a] += xa * y;
        for (size_t b = 0; b < k; ++b) ata[a][b] += xa * Feature(rows[r], idx[b]) * w;
      }
    }
    // A little ridge keeps near-collinear features solvable.
    for (size_t a = 0; a < k; ++a) ata[a][a] *= 1 + 1e-9;
    if (!Solve(ata, atb)) return InvalidArgumentError("latency fit: singular system");
    int worst = -1;
    for (size_t a = 0; a < k; ++a) {
      if (atb[a] < 0 && (worst < 0 || atb[a] < atb[static_cast<size_t>(worst)])) {
        worst = static_cast<int>(a);
      }
    }
    if (worst < 0) {
      for (size_t a = 0; a < k; ++a) Coeff(out, idx[a]) = atb[a];
      return out;
    }
    active[idx[static_cast<size_t>(worst)]] = false;
    Coeff(out, idx[static_cast<size_t>(worst)]) = 0;
  }
  return out;
}

}  // namespace gpufleet::plan
