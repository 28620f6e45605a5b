#include "plan/calibration_data.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/file_util.h"
#include "core/strings.h"
#include "plan/gpu_type.h"
#include "plan/model_spec.h"

namespace gpufleet::plan {
namespace {

// Lines of a CSV text without CR and a leading UTF-8 BOM.
std::vector<std::string_view> Lines(std::string_view text) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::string_view> out;
  for (std::string_view l : SplitString(text, '\n')) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
  }
  while (!out.empty() && TrimWhitespace(out.back()).empty()) out.pop_back();
  return out;
}

Status RowError(std::string_view origin, size_t line, std::string_view field,
                std::string_view msg) {
  return InvalidArgumentError(std::string(origin) + ":" + std::to_string(line) + ": field '" +
                              std::string(field) + "': " + std::string(msg));
}

StatusOr<double> Number(std::string_view s, std::string_view origin, size_t line,
                        std::string_view field) {
  auto v = ParseDouble(TrimWhitespace(s));
  if (!v || !std::isfinite(*v)) {
    return RowError(origin, line, field, "not a number: '" + std::string(s) + "'");
  }
  return *v;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

StatusOr<GpuPeaks> PeaksOfType(const std::string& gpu_type) {
  for (const GpuType& g : DefaultGpuTypes()) {
    if (g.key == gpu_type) return g.peaks;
  }
  return PeaksOf(gpu_type);
}

std::string Fmt(double v) { return FormatDouble(v); }

}  // namespace

// perf_model.csv, e.g.
// llama2-70b,a100-80gb,512,1,128,1.0000125,0.73599375,196.25,54.88,7168.98,2
StatusOr<std::vector<CalPoint>> ParseSplitwise(std::string_view csv, std::string_view origin,
                                               int* skipped) {
  std::vector<std::string_view> lines = Lines(csv);
  if (lines.empty() || !StartsWith(lines[0], "model,hardware,prompt_size")) {
    return InvalidArgumentError(std::string(origin) +
                                ":1: expected the header 'model,hardware,"
                                "prompt_size,...'");
  }
  using Key = std::tuple<std::string, std::string, int, int, int, int>;
  std::map<Key, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string_view> f = SplitString(lines[i], ',');
    if (f.size() != 11) return RowError(origin, i + 1, "row", "expected 11 columns");
    ASSIGN_OR_RETURN(double prompt, Number(f[2], origin, i + 1, "prompt_size"));
    ASSIGN_OR_RETURN(double batch, Number(f[3], origin, i + 1, "batch_size"));
    ASSIGN_OR_RETURN(double tokens, Number(f[4], origin, i + 1, "token_size"));
    ASSIGN_OR_RETURN(double pt, Number(f[7], origin, i + 1, "prompt_time"));
    ASSIGN_OR_RETURN(double tt, Number(f[8], origin, i + 1, "token_time"));
    ASSIGN_OR_RETURN(double tp, Number(f[10], origin, i + 1, "tensor_parallel"));
    if (prompt < 1 || batch < 1 || tp < 1 || tp > 64 || pt <= 0 || tt <= 0) {
      return RowError(origin, i + 1, "row", "sizes and times must be positive");
    }
    // Before the casts to int below (a larger double has no int value).
    if (prompt > 1e7 || batch > 1e7 || tokens < 0 || tokens > 1e7) {
      return RowError(origin, i + 1, "row", "sizes must be at most 10,000,000 tokens / requests");
    }
    Key k{std::string(f[0]),        std::string(f[1]),       static_cast<int>(tp),
          static_cast<int>(prompt), static_cast<int>(batch), static_cast<int>(tokens)};
    groups[k].first.push_back(pt / 1000.0);
    groups[k].second.push_back(tt / 1000.0);
  }
  std::vector<CalPoint> out;
  for (const auto& [k, times] : groups) {
    const auto& [model_key, hw, tp, prompt, batch, tokens] = k;
    std::string gpu = hw == "a100-80gb"        ? "a100-80gb"
                      : hw == "h100-80gb"      ? "h100"
                      : hw == "h100-80gb-pcap" ? "h100-pcap"
                                               : "";
    if (gpu.empty())
      return InvalidArgumentError(std::string(origin) + ": unknown hardware '" + hw + "'");
    auto model = FindModel(model_key == "llama2-70b" ? "llama2-70b" : model_key);
    if (!model.ok())
      return InvalidArgumentError(std::string(origin) + ": " + model.status().message());
    ASSIGN_OR_RETURN(GpuPeaks peaks, PeaksOfType(gpu));
    std::string cfg = model_key + " tp" + std::to_string(tp) + " p" + std::to_string(prompt) +
                      " b" + std::to_string(batch) + " o" + std::to_string(tokens);
    double ptok = static_cast<double>(prompt) * batch;
    double kv_tokens = static_cast<double>(batch) * (prompt + tokens);
    if (model->WeightBytes() + kv_tokens * model->KvBytesPerToken() > tp * peaks.memory_bytes) {
      ++*skipped;
      continue;
    }
    CalPoint p{"splitwise",
               gpu,
               "prefill",
               cfg,
               PrefillFeatures(*model, peaks, tp, ptok, static_cast<double>(prompt) * ptok),
               Median(times.first),
               false};
    // Faster than the GPUs' peak FLOP/s allows: not a real measurement (the
    // table holds such rows, e.g. Llama-2-70B TP2 batch 64 at 0.79 s).
    if (p.measured_s < p.features.compute_s + p.features.attention_s) {
      ++*skipped;
    } else {
      out.push_back(p);
    }
    // The decode time is the mean over the output, whose context grows from
    // the prompt to prompt + output.
    double ctx = batch * (prompt + tokens / 2.0);
    out.push_back(CalPoint{"splitwise", gpu, "decode", cfg,
                           DecodeFeatures(*model, peaks, tp, batch, ctx), Median(times.second),
                           false});
  }
  return out;
}

// mlp.csv: per-layer operator times (ms) per num_tokens and TP degree.
StatusOr<std::vector<CalPoint>> ParseVidurMlp(std::string_view csv, std::string_view origin,
                                              const std::string& gpu_type,
                                              const std::string& model_key) {
  std::vector<std::string_view> lines = Lines(csv);
  if (lines.empty()) return InvalidArgumentError(std::string(origin) + ": empty file");
  std::vector<std::string_view> header = SplitString(lines[0], ',');
  std::vector<size_t> medians;
  size_t tokens_col = header.size(), tp_col = header.size();
  for (size_t c = 0; c < header.size(); ++c) {
    std::string_view h = header[c];
    if (StartsWith(h, "time_stats.") && EndsWith(h, ".median") && h != "time_stats.emb.median") {
      medians.push_back(c);
    }
    if (h == "num_tokens") tokens_col = c;
    if (h == "num_tensor_parallel_workers") tp_col = c;
  }
  if (medians.empty() || tokens_col == header.size() || tp_col == header.size()) {
    return InvalidArgumentError(std::string(origin) +
                                ":1: header lacks time_stats.*.median, num_tokens or "
                                "num_tensor_parallel_workers");
  }
  ASSIGN_OR_RETURN(ModelSpec m, FindModel(model_key));
  ASSIGN_OR_RETURN(GpuPeaks g, PeaksOfType(gpu_type));
  std::vector<CalPoint> out;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string_view> f = SplitString(lines[i], ',');
    if (f.size() != header.size())
      return RowError(origin, i + 1, "row", "column count differs from header");
    double total_ms = 0;
    for (size_t c : medians) {
      ASSIGN_OR_RETURN(double v, Number(f[c], origin, i + 1, header[c]));
      total_ms += v;
    }
    ASSIGN_OR_RETURN(double tokens, Number(f[tokens_col], origin, i + 1, "num_tokens"));
    ASSIGN_OR_RETURN(double tp, Number(f[tp_col], origin, i + 1, "num_tensor_parallel_workers"));
    if (tokens < 1 || tp < 1 || tp > 64 || total_ms <= 0) {
      return RowError(origin, i + 1, "row", "tokens, TP and times must be positive");
    }
    // One layer's projections and element-wise operators (no attention core).
    double params = m.AttnParamsPerLayer() + m.MlpParamsPerExpert();
    double act_bytes = tokens * (10.0 * m.hidden + 4.0 * m.ffn) * 2.0;
    StepFeatures sf;
    sf.compute_s = 2.0 * tokens * params / (tp * g.flops_per_s);
    sf.memory_s = (params * 2.0 + act_bytes) / (tp * g.memory_bytes_per_s);
    out.push_back(CalPoint{"vidur", gpu_type, "linear",
                           model_key + " tp" + Fmt(tp) + " t" + Fmt(tokens), sf, total_ms / 1000.0,
                           false});
  }
  return out;
}

// profiler-a100-80g.distserve.json: {"facebook/opt-13b": {"1": {"prefill":
// [a, b, c], "decoding_smallbs": [a, b, c], ...}}}; times in ms.
StatusOr<std::vector<CalPoint>> ParseDistServe(std::string_view text, std::string_view origin) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError(std::string(origin) + ": not a JSON object");
  }
  ASSIGN_OR_RETURN(GpuPeaks g, PeaksOfType("a100-80gb"));
  std::vector<CalPoint> out;
  for (const auto& model_item : j.items()) {
    // Plain names, not structured bindings: lambdas below capture them.
    const std::string name = model_item.key();
    const nlohmann::json& per_tp = model_item.value();
    std::string key = name.substr(name.find('/') + 1);
    auto m = FindModel(key);
    if (!m.ok() || !per_tp.is_object()) {
      return InvalidArgumentError(std::string(origin) + ": model '" + name +
                                  "' unknown or malformed");
    }
    for (const auto& tp_item : per_tp.items()) {
      const std::string tp_s = tp_item.key();
      const nlohmann::json& fit = tp_item.value();
      auto tpv = ParseInt64(tp_s);
      auto coef = [&](const char* k, int i) -> StatusOr<double> {
        if (!fit.is_object() || !fit.contains(k) || !fit[k].is_array() || fit[k].size() != 3 ||
            !fit[k][i].is_number()) {
          return InvalidArgumentError(std::string(origin) + ": " + name + "." + tp_s + "." + k +
                                      " must be an array of 3 numbers");
        }
        return fit[k][i].get<double>();
      };
      if (!tpv || *tpv < 1 || *tpv > 64) {
        return InvalidArgumentError(std::string(origin) + ": " + name + ": bad TP '" + tp_s + "'");
      }
      int tp = static_cast<int>(*tpv);
      ASSIGN_OR_RETURN(double pa, coef("prefill", 0));
      ASSIGN_OR_RETURN(double pb, coef("prefill", 1));
      ASSIGN_OR_RETURN(double pc, coef("prefill", 2));
      for (double len : {128.0, 256.0, 512.0, 1024.0, 2048.0}) {
        double ms = pa + pb * len + pc * len * len;
        if (ms <= 0) continue;
        out.push_back(CalPoint{"distserve", "a100-80gb", "prefill",
                               key + " tp" + tp_s + " p" + Fmt(len),
                               PrefillFeatures(*m, g, tp, len, len * len), ms / 1000.0, true});
      }
      ASSIGN_OR_RETURN(double da, coef("decoding_smallbs", 0));
      ASSIGN_OR_RETURN(double db, coef("decoding_smallbs", 1));
      ASSIGN_OR_RETURN(double dc, coef("decoding_smallbs", 2));
      for (double b : {1.0, 4.0, 16.0, 64.0}) {
        for (double ctx : {256.0, 1024.0}) {
          double ms = da + db * b * ctx + dc * b;
          out.push_back(CalPoint{"distserve", "a100-80gb", "decode",
                                 key + " tp" + tp_s + " b" + Fmt(b) + " c" + Fmt(ctx),
                                 DecodeFeatures(*m, g, tp, b, b * ctx), ms / 1000.0, true});
        }
      }
    }
  }
  return out;
}

// matmul_A100.csv: "64, 12288, 12288, 0.1900ms, 101.7124Tflops" (M, N, K).
StatusOr<std::vector<CalPoint>> ParseLlmCompassMatmul(std::string_view csv, std::string_view origin,
                                                      const std::string& gpu_type) {
  ASSIGN_OR_RETURN(GpuPeaks g, PeaksOfType(gpu_type));
  std::vector<CalPoint> out;
  std::vector<std::string_view> lines = Lines(csv);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string_view> f = SplitString(lines[i], ',');
    if (f.size() < 4) return RowError(origin, i + 1, "row", "expected M, N, K, latency");
    ASSIGN_OR_RETURN(double mm, Number(f[0], origin, i + 1, "M"));
    ASSIGN_OR_RETURN(double n, Number(f[1], origin, i + 1, "N"));
    ASSIGN_OR_RETURN(double k, Number(f[2], origin, i + 1, "K"));
    std::string_view lat = TrimWhitespace(f[3]);
    if (!EndsWith(lat, "ms")) return RowError(origin, i + 1, "latency", "expected a value in ms");
    lat.remove_suffix(2);
    ASSIGN_OR_RETURN(double ms, Number(lat, origin, i + 1, "latency"));
    if (mm < 1 || n < 1 || k < 1 || ms <= 0)
      return RowError(origin, i + 1, "row", "must be positive");
    StepFeatures sf;
    sf.compute_s = 2 * mm * n * k / g.flops_per_s;
    sf.memory_s = 2 * (mm * k + k * n + mm * n) / g.memory_bytes_per_s;
    out.push_back(CalPoint{"llmcompass", gpu_type, "gemm",
                           "gemm " + Fmt(mm) + "x" + Fmt(n) + "x" + Fmt(k), sf, ms / 1000.0,
                           false});
  }
  return out;
}

// throughput_comparsion.csv, e.g.
// 8xH100 1FP8-meta,128,2048,4,71.27394036,4,8704,0.056121494,122.1203704
StatusOr<std::vector<CalPoint>> ParseDstack(std::string_view csv, std::string_view origin,
                                            int* skipped) {
  std::vector<std::string_view> lines = Lines(csv);
  if (lines.empty() || !StartsWith(lines[0], "gpu,input_len,output_len,batch_size,elapsed_time")) {
    return InvalidArgumentError(std::string(origin) +
                                ":1: expected the header 'gpu,input_len,"
                                "output_len,batch_size,elapsed_time,...'");
  }
  ASSIGN_OR_RETURN(ModelSpec m, FindModel("llama3.1-405b"));
  m.weight_bytes_per_param = 1;  // FP8 checkpoints
  std::vector<CalPoint> out;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string_view> f = SplitString(lines[i], ',');
    if (f.size() < 5) return RowError(origin, i + 1, "row", "expected at least 5 columns");
    std::string label = ToLower(TrimWhitespace(f[0]));
    ASSIGN_OR_RETURN(double in, Number(f[1], origin, i + 1, "input_len"));
    ASSIGN_OR_RETURN(double outl, Number(f[2], origin, i + 1, "output_len"));
    ASSIGN_OR_RETURN(double batch, Number(f[3], origin, i + 1, "batch_size"));
    ASSIGN_OR_RETURN(double elapsed, Number(f[4], origin, i + 1, "elapsed_time"));
    if (batch < 1 || outl < 1 || elapsed <= 0)
      return RowError(origin, i + 1, "row", "must be positive");
    // Only the decode-dominated runs (128 prompt tokens); "2fp8" rows are the
    // 4-GPU rows doubled (derived), and the meta checkpoint on MI300X ran
    // without the vendor's FP8 KV cache tuning: both left out.
    bool h100 = label.find("h100") != std::string::npos;
    bool amd = label.find("-amd") != std::string::npos && label.find("2fp8") == std::string::npos;
    if (in != 128 || batch > 256 || (!h100 && !amd)) {
      ++*skipped;
      continue;
    }
    int tp = StartsWith(label, "4x") ? 4 : 8;
    std::string gpu = h100 ? "h100" : "mi300x";
    ModelSpec mm = m;
    mm.kv_bytes_per_value = amd ? 1 : 2;
    ASSIGN_OR_RETURN(GpuPeaks g, PeaksOfType(gpu));
    double ctx = batch * (in + outl / 2);
    out.push_back(CalPoint{"dstack", gpu, "decode",
                           "405b-fp8 tp" + std::to_string(tp) + " b" + Fmt(batch),
                           DecodeFeatures(mm, g, tp, batch, ctx), elapsed / outl, false});
  }
  return out;
}

StatusOr<CalData> LoadCalibrationData(const std::string& shared_dir) {
  namespace fs = std::filesystem;
  CalData data;
  const std::string t = shared_dir + "/traces/";
  auto add = [&](StatusOr<std::vector<CalPoint>> r) -> Status {
    RETURN_IF_ERROR(r.status());
    for (CalPoint& p : *r) data.points.push_back(std::move(p));
    return OkStatus();
  };
  auto read = [&](const std::string& path) { return ReadFileToString(path); };
  std::string sw = t + "splitwise-sim/perf_model.csv";
  if (fs::exists(sw)) {
    ASSIGN_OR_RETURN(std::string s, read(sw));
    RETURN_IF_ERROR(add(ParseSplitwise(s, sw, &data.skipped)));
  } else {
    data.missing.push_back(sw);
  }
  for (const char* gpu : {"a100", "h100"}) {
    for (const char* model : {"Llama-2-7b-hf", "Llama-2-70b-hf"}) {
      std::string p = t + "vidur-profiling/compute/" + gpu + "/meta-llama/" + model + "/mlp.csv";
      if (!fs::exists(p)) {
        data.missing.push_back(p);
        continue;
      }
      ASSIGN_OR_RETURN(std::string s, read(p));
      RETURN_IF_ERROR(
          add(ParseVidurMlp(s, p, std::string(gpu) == "a100" ? "a100-80gb" : "h100",
                            std::string(model) == "Llama-2-7b-hf" ? "llama2-7b" : "llama2-70b")));
    }
  }
  std::string ds = t + "distserve-profile/profiler-a100-80g.distserve.json";
  if (fs::exists(ds)) {
    ASSIGN_OR_RETURN(std::string s, read(ds));
    RETURN_IF_ERROR(add(ParseDistServe(s, ds)));
  } else {
    data.missing.push_back(ds);
  }
  for (const auto& [file, gpu] :
       {std::pair{"matmul_A100.csv", "a100-80gb"}, std::pair{"matmul_MI210.csv", "mi210"}}) {
    std::string p = t + "llmcompass-a100-mi210/" + file;
    if (!fs::exists(p)) {
      data.missing.push_back(p);
      continue;
    }
    ASSIGN_OR_RETURN(std::string s, read(p));
    RETURN_IF_ERROR(add(ParseLlmCompassMatmul(s, p, gpu)));
  }
  std::string dk = t + "dstack-benchmarks/h100sxm5_vs_mi300x/throughput_comparsion.csv";
  if (fs::exists(dk)) {
    ASSIGN_OR_RETURN(std::string s, read(dk));
    RETURN_IF_ERROR(add(ParseDstack(s, dk, &data.skipped)));
  } else {
    data.missing.push_back(dk);
  }
  return data;
}

}  // namespace gpufleet::plan
