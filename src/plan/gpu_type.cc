#include "plan/gpu_type.h"

#include "core/embedded.h"
#include "core/strings.h"
#include "core/toml_reader.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::plan {

StatusOr<GpuPeaks> PeaksOf(std::string_view hardware_key) {
  const GpuModelSpec* s = HardwareCatalog::Default().Find(hardware_key);
  if (s == nullptr) {
    return NotFoundError("GPU '" + std::string(hardware_key) +
                         "' is not in the hardware catalog (data/hardware.toml)");
  }
  GpuPeaks p;
  p.flops_per_s = s->peak_bf16_flops > 0 ? s->peak_bf16_flops : s->peak_fp16_flops;
  p.memory_bytes_per_s = s->memory_bandwidth_bytes_per_s;
  p.memory_bytes = static_cast<double>(s->memory_bytes);
  p.link_bytes_per_s =
      s->interconnect_bytes_per_s > 0 ? s->interconnect_bytes_per_s : s->pcie_bytes_per_s;
  if (!(p.flops_per_s > 0) || !(p.memory_bytes_per_s > 0) || !(p.memory_bytes > 0)) {
    return InvalidArgumentError("GPU '" + std::string(hardware_key) +
                                "' lacks peak FLOP/s, bandwidth or memory in the catalog");
  }
  return p;
}

StatusOr<std::vector<GpuType>> ParseGpuTypes(std::string_view text, std::string_view origin) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  TomlReader top(root, origin);
  RETURN_IF_ERROR(top.CheckKeys({"gpu_type"}));
  const toml::array* arr = root["gpu_type"].as_array();
  if (arr == nullptr) return top.Missing("gpu_type");
  std::vector<GpuType> out;
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::table* t = (*arr)[i].as_table();
    if (t == nullptr) return top.Error((*arr)[i], "gpu_type entries must be tables");
    TomlReader r(*t, origin, "gpu_type[" + std::to_string(i) + "]");
    RETURN_IF_ERROR(r.CheckKeys({"key", "hardware", "price_usd_per_hour", "power_cap"}));
    GpuType g;
    RETURN_IF_ERROR(r.Require("key", g.key));
    RETURN_IF_ERROR(r.Require("hardware", g.hardware));
    RETURN_IF_ERROR(r.Require("price_usd_per_hour", g.price_usd_per_hour, 0.0, 1e6));
    RETURN_IF_ERROR(r.Read("power_cap", g.power_cap, 0.1, 1.0));
    auto peaks = PeaksOf(g.hardware);
    if (!peaks.ok()) return r.FieldError(*t->get("hardware"), "hardware", peaks.status().message());
    g.peaks = *peaks;
    out.push_back(std::move(g));
  }
  return out;
}

const std::vector<GpuType>& DefaultGpuTypes() {
  static const std::vector<GpuType>* types = [] {
    auto text = FindEmbeddedFile("plan/gpus.toml");
    GPUFLEET_CHECK(text.has_value());
    auto parsed = ParseGpuTypes(*text, "data/plan/gpus.toml");
    if (!parsed.ok()) CheckFailed(__FILE__, __LINE__, "GPU types", parsed.status().ToString());
    return new std::vector<GpuType>(std::move(parsed).value());
  }();
  return *types;
}

StatusOr<GpuType> ResolveGpuType(std::string_view spec) {
  std::string_view key = spec;
  std::optional<double> price;
  size_t colon = spec.find(':');
  if (colon != std::string_view::npos) {
    key = spec.substr(0, colon);
    price = ParseDouble(spec.substr(colon + 1));
    if (!price || !(*price >= 0) || *price > 1e6) {
      return InvalidArgumentError("GPU type '" + std::string(spec) +
                                  "': price after ':' must be a number of USD per GPU-hour");
    }
  }
  for (const GpuType& g : DefaultGpuTypes()) {
    if (g.key == key) {
      GpuType out = g;
      if (price) out.price_usd_per_hour = *price;
      return out;
    }
  }
  if (!price) {
    return InvalidArgumentError("GPU type '" + std::string(key) +
                                "' is not in data/plan/gpus.toml; give a price as '" +
                                std::string(key) + ":USD_PER_HOUR' to use a catalog GPU");
  }
  ASSIGN_OR_RETURN(GpuPeaks peaks, PeaksOf(key));
  GpuType g;
  g.key = std::string(key);
  g.hardware = std::string(key);
  g.price_usd_per_hour = *price;
  g.peaks = peaks;
  return g;
}

}  // namespace gpufleet::plan
