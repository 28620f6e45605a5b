#include "canary/magnitude.h"

#include <algorithm>

#include "core/strings.h"

namespace gpufleet::canary {
namespace {

std::optional<double> GemmPeak(const GpuModelSpec& m, std::string_view precision) {
  if (precision == "bf16") return m.peak_bf16_flops;
  if (precision == "fp16") return m.peak_fp16_flops;
  if (precision == "fp32") return m.peak_fp32_flops;
  if (precision == "fp64") return m.peak_fp64_flops;
  if (precision == "fp8") return m.peak_fp8_flops;
  return std::nullopt;
}

PeakBound Bound(double peak, std::string_view what, std::string_view unit, const GpuModelSpec& m,
                bool check_low) {
  PeakBound b;
  b.peak = peak;
  b.what =
      std::string(what) + " " + FormatDouble(peak) + " " + std::string(unit) + " (" + m.key + ")";
  b.check_low = check_low;
  return b;
}

}  // namespace

std::optional<PeakBound> PeakFor(const HardwareCatalog& catalog, std::string_view model,
                                 std::string_view benchmark_id, std::string_view unit) {
  const GpuModelSpec* m = catalog.Find(model);
  if (m == nullptr) return std::nullopt;
  std::optional<PeakBound> bound;
  if (unit == "bytes_per_second") {
    if (StartsWith(benchmark_id, "stream.") && m->memory_bandwidth_bytes_per_s > 0) {
      bound = Bound(m->memory_bandwidth_bytes_per_s, "memory bandwidth", unit, *m, true);
    } else if ((StartsWith(benchmark_id, "copy.h2d") || StartsWith(benchmark_id, "copy.d2h")) &&
               m->pcie_bytes_per_s > 0) {
      bound = Bound(m->pcie_bytes_per_s, "PCIe bandwidth", unit, *m, true);
    } else if (StartsWith(benchmark_id, "nccl.") &&
               benchmark_id.find(".busbw@") != std::string_view::npos) {
      double link = std::max(m->interconnect_bytes_per_s, m->pcie_bytes_per_s);
      if (link > 0) bound = Bound(2 * link, "2x link bandwidth", unit, *m, false);
    }
  } else if (unit == "flop_per_second" && StartsWith(benchmark_id, "gemm.")) {
    std::string_view precision = benchmark_id.substr(5);
    precision = precision.substr(0, precision.find('@'));  // "bf16@8192": built-in runner
    std::optional<double> peak = GemmPeak(*m, precision);
    if (peak.has_value() && *peak > 0) {
      bound = Bound(*peak, "peak " + std::string(precision), unit, *m, true);
    }
  }
  return bound;
}

Status CheckMagnitude(const PeakBound& bound, double value) {
  if (value > bound.peak * kPeakMargin) {
    return InvalidArgumentError(FormatDouble(value) + " is above the hardware peak (" + bound.what +
                                "): an error in the input, e.g. a unit slip");
  }
  if (bound.check_low && value * kImplausiblyLowFactor < bound.peak) {
    return InvalidArgumentError(FormatDouble(value) + " is over 1000x below the hardware peak (" +
                                bound.what + "): likely a unit error (MB vs GB?)");
  }
  return OkStatus();
}

}  // namespace gpufleet::canary
