// KernelModule: gpufleet's own GPU kernels (src/canary/stream_kernels.cu),
// compiled at build time by nvcc (a fatbin for sm_80, sm_90 + PTX) or hipcc
// (a code object bundle) when one exists, embedded in the binary, and loaded
// at run time through the CUDA driver API (libcuda.so.1: cuModuleLoadData,
// cuModuleGetFunction, cuLaunchKernel) or HIP's module API (libamdhip64:
// hipModuleLoadData ...). Nothing is linked.
//
// CUDA: modules load into the context current on the calling thread, which
// is the runtime's primary context once cudaSetDevice and a runtime call
// (cudaMalloc) have run on the device; one module per device.
//
// Thread safety: none; one runner thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "canary/gpu_runtime.h"
#include "canary/gpu_vendor_api.h"
#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet::canary {

// The embedded image for `v`; empty when built without nvcc / hipcc.
std::string_view EmbeddedStreamKernels(GpuVendor v);

// The kernels' names in the image (extern "C").
inline constexpr const char* kStreamCopyKernel = "gpufleet_stream_copy";
inline constexpr const char* kStreamTriadKernel = "gpufleet_stream_triad";
// Threads per block (BabelStream's TBSIZE).
inline constexpr unsigned kStreamBlockSize = 1024;

class KernelModule {
 public:
  // Never null. `image` empty: status() says the build had no compiler.
  // `runtime` is the vendor runtime (HIP's module API lives there);
  // `runtime_error_string` names runtime errors (HIP).
  static std::unique_ptr<KernelModule> Load(const vendor::VendorSpec& spec,
                                            const std::string& dir, const DynamicLibrary& runtime,
                                            vendor::GetErrorStringFn* runtime_error_string,
                                            std::string image);

  const Status& status() const { return status_; }

  // Enqueues the kernel over `n` doubles on `stream` on the current device
  // `device`, loading the module there first if needed.
  // copy: c[i] = a[i]; triad: a[i] = b[i] + scalar * c[i].
  Status Launch(int device, StreamKernel kernel, uint64_t n, double scalar, void* a, void* b,
                void* c, void* stream);

 private:
  explicit KernelModule(const vendor::VendorSpec& spec) : spec_(spec) {}
  Status Check(int rc, const std::string& call) const;
  Status EnsureLoaded(int device);

  struct PerDevice {
    void* module = nullptr;
    void* copy = nullptr;
    void* triad = nullptr;
  };

  const vendor::VendorSpec& spec_;
  std::string image_;
  std::unique_ptr<DynamicLibrary> driver_;  // CUDA only
  Status status_ = OkStatus();
  std::vector<PerDevice> devices_;

  vendor::CtxGetCurrentFn* ctx_get_current_ = nullptr;
  vendor::ModuleLoadDataFn* module_load_data_ = nullptr;
  vendor::ModuleGetFunctionFn* module_get_function_ = nullptr;
  vendor::LaunchKernelFn* launch_kernel_ = nullptr;
  vendor::DriverGetErrorStringFn* driver_error_string_ = nullptr;
  vendor::GetErrorStringFn* runtime_error_string_ = nullptr;
};

}  // namespace gpufleet::canary
