// The kernel images built from stream_kernels.cu (CMakeLists.txt): present
// only when CMake found nvcc / hipcc; otherwise empty, and the STREAM kernel
// benchmarks are skipped with "built without nvcc".
#include "canary/kernel_module.h"

namespace gpufleet::canary {
namespace {

#if defined(GPUFLEET_HAVE_CUDA_KERNELS)
// A fatbin must be 8-byte aligned for cuModuleLoadData.
alignas(64) const unsigned char kCudaImage[] = {
#include "stream_kernels_cuda.inc"
};
#endif
#if defined(GPUFLEET_HAVE_HIP_KERNELS)
alignas(64) const unsigned char kHipImage[] = {
#include "stream_kernels_hip.inc"
};
#endif

}  // namespace

std::string_view EmbeddedStreamKernels(GpuVendor v) {
  if (v == GpuVendor::kNvidia) {
#if defined(GPUFLEET_HAVE_CUDA_KERNELS)
    return std::string_view(reinterpret_cast<const char*>(kCudaImage), sizeof(kCudaImage));
#endif
  } else {
#if defined(GPUFLEET_HAVE_HIP_KERNELS)
    return std::string_view(reinterpret_cast<const char*>(kHipImage), sizeof(kHipImage));
#endif
  }
  return {};
}

}  // namespace gpufleet::canary
