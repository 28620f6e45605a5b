// LoadedGpuRuntime: the GpuRuntime that dlopens a vendor's stack (see
// gpu_runtime.h for the contract). Private to canary/; made only by
// LoadGpuRuntime() (gpu_runtime.cc).
//
// The runtime library and the calls on it (devices, memory, streams, events)
// are in loaded_gpu_runtime.cc; the optional libraries (BLAS, BLASLt for fp8,
// the collective library) in loaded_gpu_runtime_libraries.cc. A missing
// optional library or symbol sets blas_status_ / ccl_status_ (or BLASLt's
// status) instead of failing Load().
//
// Lifetime: `spec` outlives the runtime (SpecFor() returns statics). The
// libraries stay loaded after destruction (OpenVendorLibrary). Thread
// safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "canary/blas_lt.h"
#include "canary/gpu_runtime.h"
#include "canary/gpu_vendor_api.h"
#include "canary/kernel_module.h"
#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpufleet::canary {

// fp8 workspace per device (cuBLASLt recommends 32 MiB on Hopper).
inline constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

// Opens the first of `names` in `dir` (or the loader's search path);
// Unavailable naming every path tried. Never dlclose'd: vendor runtimes keep
// threads that outlive an unload.
StatusOr<std::unique_ptr<DynamicLibrary>> OpenVendorLibrary(const std::string& dir,
                                                            const std::vector<std::string>& names);

class LoadedGpuRuntime final : public GpuRuntime {
 public:
  explicit LoadedGpuRuntime(const vendor::VendorSpec& spec) : spec_(spec) {}
  ~LoadedGpuRuntime() override;

  // Loads the runtime (required) and the optional libraries; see gpu_runtime.h.
  Status Load(const std::string& dir, std::string kernel_image);

  GpuVendor vendor() const override { return spec_.vendor; }
  int device_count() const override { return device_count_; }

  StatusOr<std::string> DeviceName(int device) override;
  StatusOr<HardwareTarget> Target(int device) override;

  Status SetDevice(int device) override;
  StatusOr<void*> DeviceAlloc(size_t bytes) override;
  Status DeviceFree(void* ptr) override;
  StatusOr<void*> PinnedAlloc(size_t bytes) override;
  Status PinnedFree(void* ptr) override;
  Status Memset(void* ptr, int value, size_t bytes) override;
  Status Synchronize() override;

  StatusOr<void*> CreateStream() override;
  Status DestroyStream(void* s) override;
  Status SyncStream(void* s) override;
  Status Memcpy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) override;

  StatusOr<void*> CreateEvent() override;
  Status DestroyEvent(void* e) override;
  Status RecordEvent(void* e, void* stream) override;
  StatusOr<double> ElapsedSeconds(void* start, void* stop) override;

  Status BlasStatus() const override { return blas_status_; }

  Status Gemm(GemmPrecision precision, int n, const void* a, const void* b, void* c,
              void* stream) override;
  Status Axpy(int n, float alpha, const void* x, void* y, void* stream) override;

  Status KernelStatus() const override { return kernels_->status(); }

  Status LaunchStreamKernel(StreamKernel kernel, uint64_t n, double scalar, void* a, void* b,
                            void* c, void* stream) override;

  Status CollectiveStatus() const override { return ccl_status_; }

  Status AllReduceSum(const std::vector<void*>& send, const std::vector<void*>& recv, size_t count,
                      const std::vector<void*>& streams) override;

 private:
  // fp8 through BLASLt on the current device: checks the architecture, then
  // makes (once per device and size) the plan and its workspace.
  Status Fp8Gemm(int n, const void* a, const void* b, void* c, void* stream);

  void LoadBlas(const std::string& dir);
  void LoadCollectives(const std::string& dir);
  StatusOr<void*> BlasHandle(void* stream);
  // Status of a runtime (or, with `blas`, a BLAS) call; CclCheck of a
  // collective library call. Both name the call and the vendor's error.
  Status Check(int rc, const std::string& call, bool blas = false) const;
  Status CclCheck(int rc, const std::string& call) const;

  struct Fp8State {
    void* workspace = nullptr;  // device memory, kLtWorkspaceBytes
    std::unique_ptr<Fp8GemmPlan> plan;
  };

  const vendor::VendorSpec& spec_;
  std::unique_ptr<DynamicLibrary> runtime_, blas_, ccl_;
  std::unique_ptr<BlasLt> blas_lt_;
  std::unique_ptr<KernelModule> kernels_;
  std::vector<Fp8State> fp8_;  // per device
  int device_count_ = 0;
  int current_device_ = 0;
  Status blas_status_ = OkStatus();
  Status ccl_status_ = OkStatus();
  std::vector<void*> blas_handles_;  // per device, made on first use
  std::vector<void*> comms_;         // per device, made on the first all-reduce

  vendor::GetDeviceCountFn* get_device_count_ = nullptr;
  vendor::SetDeviceFn* set_device_ = nullptr;
  vendor::GetDevicePropertiesFn* get_device_properties_ = nullptr;
  vendor::MallocFn* malloc_ = nullptr;
  vendor::FreeFn* free_ = nullptr;
  vendor::HostAllocFn* host_alloc_ = nullptr;
  vendor::FreeFn* host_free_ = nullptr;
  vendor::MemsetFn* memset_ = nullptr;
  vendor::DeviceSynchronizeFn* device_synchronize_ = nullptr;
  vendor::StreamCreateFn* stream_create_ = nullptr;
  vendor::StreamFn* stream_destroy_ = nullptr;
  vendor::StreamFn* stream_synchronize_ = nullptr;
  vendor::MemcpyAsyncFn* memcpy_async_ = nullptr;
  vendor::EventCreateFn* event_create_ = nullptr;
  vendor::EventFn* event_destroy_ = nullptr;
  vendor::EventRecordFn* event_record_ = nullptr;
  vendor::EventFn* event_synchronize_ = nullptr;
  vendor::EventElapsedTimeFn* event_elapsed_time_ = nullptr;
  vendor::GetVersionFn* runtime_get_version_ = nullptr;
  vendor::GetVersionFn* driver_get_version_ = nullptr;
  vendor::GetErrorStringFn* get_error_string_ = nullptr;
  vendor::DeviceGetAttributeFn* device_get_attribute_ = nullptr;

  vendor::BlasCreateFn* blas_create_ = nullptr;
  vendor::BlasDestroyFn* blas_destroy_ = nullptr;
  vendor::BlasSetStreamFn* blas_set_stream_ = nullptr;
  vendor::BlasGetVersionFn* blas_get_version_ = nullptr;
  vendor::GemmExFn* gemm_ex_ = nullptr;
  vendor::SaxpyFn* saxpy_ = nullptr;

  vendor::CclGetVersionFn* ccl_get_version_ = nullptr;
  vendor::CclCommInitAllFn* ccl_comm_init_all_ = nullptr;
  vendor::CclCommDestroyFn* ccl_comm_destroy_ = nullptr;
  vendor::CclAllReduceFn* ccl_all_reduce_ = nullptr;
  vendor::CclGroupFn* ccl_group_start_ = nullptr;
  vendor::CclGroupFn* ccl_group_end_ = nullptr;
  vendor::CclGetErrorStringFn* ccl_get_error_string_ = nullptr;
};

}  // namespace gpufleet::canary
