// GpuRuntime: the seam between the canary runners and a vendor's GPU stack
// (runtime + BLAS + BLASLt + collective library + gpufleet's own kernels).
// The real implementation loads libcudart / libcublas / libcublasLt /
// libnccl / libcuda (NVIDIA) or libamdhip64 / libhipblas / libhipblaslt /
// librccl (AMD) at run time with dlopen; nothing is linked and no vendor
// header is needed. Tests load fake libraries with the same sonames and
// symbols (tests/fakes/gpu/).
//
// Handles (device buffers, streams, events) are opaque pointers owned by the
// vendor library; the caller frees what it allocates. All calls act on the
// current device (SetDevice). Errors name the library call that failed and
// the vendor's error string.
//
// A missing runtime library fails LoadGpuRuntime(). A missing BLAS, BLASLt,
// collective or driver library (or one of their symbols) does not:
// BlasStatus() / CollectiveStatus() / KernelStatus() or the fp8 Gemm call
// then say Unavailable naming it, and the runners skip only the benchmarks
// that need it.
//
// Thread safety: none; one runner thread drives a runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "canary/result.h"
#include "core/status.h"

namespace gpufleet::canary {

enum class GpuVendor { kNvidia, kAmd };
std::string_view GpuVendorName(GpuVendor v);  // "nvidia", "amd"

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };

// GEMM input precision. Accumulation is fp32 for all of them. fp8 (E4M3)
// goes through cuBLASLt / hipBLASLt with a bf16 output, on GPUs that have
// it (compute capability >= 8.9; gfx942, gfx950); the others through GemmEx
// with the output in the input precision.
enum class GemmPrecision { kFp32, kFp16, kBf16, kFp8 };
std::string_view GemmPrecisionName(GemmPrecision p);  // "fp32", "fp16", "bf16", "fp8"
size_t GemmElementBytes(GemmPrecision p);        // of A and B
size_t GemmOutputElementBytes(GemmPrecision p);  // of C (fp8: bf16, 2)

// gpufleet's own STREAM kernels over doubles (BabelStream's definitions):
// copy c[i] = a[i]; triad a[i] = b[i] + scalar * c[i].
enum class StreamKernel { kCopy, kTriad };

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;

  virtual GpuVendor vendor() const = 0;
  virtual int device_count() const = 0;
  // The vendor's marketing name ("NVIDIA H200").
  virtual StatusOr<std::string> DeviceName(int device) = 0;
  // model (the device name), driver, runtime and library versions as the
  // libraries report them; image is left empty for the caller.
  virtual StatusOr<HardwareTarget> Target(int device) = 0;

  virtual Status SetDevice(int device) = 0;
  virtual StatusOr<void*> DeviceAlloc(size_t bytes) = 0;
  virtual Status DeviceFree(void* ptr) = 0;
  // Page-locked host memory (cudaHostAlloc / hipHostMalloc).
  virtual StatusOr<void*> PinnedAlloc(size_t bytes) = 0;
  virtual Status PinnedFree(void* ptr) = 0;
  virtual Status Memset(void* device_ptr, int value, size_t bytes) = 0;
  virtual Status Synchronize() = 0;  // the current device

  virtual StatusOr<void*> CreateStream() = 0;
  virtual Status DestroyStream(void* stream) = 0;
  virtual Status SyncStream(void* stream) = 0;
  // Asynchronous on `stream`.
  virtual Status Memcpy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) = 0;

  // Device-side timing: events recorded on a stream; ElapsedSeconds waits for
  // `stop` and returns the device time between the two.
  virtual StatusOr<void*> CreateEvent() = 0;
  virtual Status DestroyEvent(void* event) = 0;
  virtual Status RecordEvent(void* event, void* stream) = 0;
  virtual StatusOr<double> ElapsedSeconds(void* start, void* stop) = 0;

  // --- BLAS (cuBLAS / hipBLAS), on the current device.
  virtual Status BlasStatus() const = 0;
  // C = A * B for n x n column-major matrices of `precision`, fp32 compute
  // (fp8: C = A^T * B through BLASLt, C in bf16). fp8 on a GPU without it:
  // Unimplemented naming the architecture; without the BLASLt library:
  // Unavailable naming it.
  virtual Status Gemm(GemmPrecision precision, int n, const void* a, const void* b, void* c,
                      void* stream) = 0;
  // y = alpha * x + y over `n` floats.
  virtual Status Axpy(int n, float alpha, const void* x, void* y, void* stream) = 0;

  // --- Built-in kernels (compiled with nvcc / hipcc at build time).
  // Unavailable "built without nvcc", or naming the missing driver library.
  virtual Status KernelStatus() const = 0;
  // Enqueues `kernel` over `n` doubles on `stream`, on the current device.
  virtual Status LaunchStreamKernel(StreamKernel kernel, uint64_t n, double scalar, void* a,
                                    void* b, void* c, void* stream) = 0;

  // --- Collectives (NCCL / RCCL) across all devices of the node.
  virtual Status CollectiveStatus() const = 0;
  // Sum all-reduce of `count` floats, one buffer pair and stream per device
  // (index = device), launched as one group. Communicators are made on the
  // first call (ncclCommInitAll over every device).
  virtual Status AllReduceSum(const std::vector<void*>& send, const std::vector<void*>& recv,
                              size_t count, const std::vector<void*>& streams) = 0;
};

struct GpuRuntimeOptions {
  GpuVendor vendor = GpuVendor::kNvidia;
  // Directory to load the libraries from; empty = the dynamic loader's search
  // (LD_LIBRARY_PATH, ld.so.cache).
  std::string library_dir;
};

// Loads the vendor's runtime (required) and its BLAS and collective
// libraries (optional, see above). Unavailable naming every library name
// tried when the runtime cannot be loaded, or a required runtime symbol is
// missing; also when the runtime reports no device.
StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntime(const GpuRuntimeOptions& options);
// Same, loading `kernel_image` instead of the kernels embedded at build time
// ("" = none, as when built without nvcc/hipcc). Tests pass a dummy image
// the fake driver accepts.
StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntime(const GpuRuntimeOptions& options,
                                                     std::string kernel_image);

// "auto": the first of nvidia, amd whose runtime loads and sees a device.
StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntimeAuto(const std::string& library_dir);

}  // namespace gpufleet::canary
