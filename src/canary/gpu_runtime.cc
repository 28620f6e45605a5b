#include "canary/gpu_runtime.h"

#include <utility>

#include "canary/gpu_vendor_api.h"
#include "canary/kernel_module.h"
#include "canary/loaded_gpu_runtime.h"

namespace gpufleet::canary {

std::string_view GpuVendorName(GpuVendor v) { return v == GpuVendor::kAmd ? "amd" : "nvidia"; }

std::string_view GemmPrecisionName(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kFp32:
      return "fp32";
    case GemmPrecision::kFp16:
      return "fp16";
    case GemmPrecision::kBf16:
      return "bf16";
    case GemmPrecision::kFp8:
      return "fp8";
  }
  return "fp32";
}

size_t GemmElementBytes(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kFp32:
      return 4;
    case GemmPrecision::kFp16:
    case GemmPrecision::kBf16:
      return 2;
    case GemmPrecision::kFp8:
      return 1;
  }
  return 4;
}

size_t GemmOutputElementBytes(GemmPrecision p) {
  return p == GemmPrecision::kFp8 ? 2 : GemmElementBytes(p);
}

StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntime(const GpuRuntimeOptions& options,
                                                     std::string kernel_image) {
  auto rt = std::make_unique<LoadedGpuRuntime>(vendor::SpecFor(options.vendor));
  RETURN_IF_ERROR(rt->Load(options.library_dir, std::move(kernel_image)));
  return std::unique_ptr<GpuRuntime>(std::move(rt));
}

StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntime(const GpuRuntimeOptions& options) {
  return LoadGpuRuntime(options, std::string(EmbeddedStreamKernels(options.vendor)));
}

StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntimeAuto(const std::string& library_dir) {
  std::string why;
  for (GpuVendor v : {GpuVendor::kNvidia, GpuVendor::kAmd}) {
    StatusOr<std::unique_ptr<GpuRuntime>> rt = LoadGpuRuntime({v, library_dir});
    if (rt.ok()) return rt;
    why += std::string(why.empty() ? "" : "; ") + std::string(GpuVendorName(v)) + ": " +
           rt.status().message();
  }
  return UnavailableError("no GPU runtime found: " + why);
}

}  // namespace gpufleet::canary
