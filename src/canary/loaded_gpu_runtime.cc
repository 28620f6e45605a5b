#include "canary/loaded_gpu_runtime.h"

#include <cstring>
#include <utility>

namespace gpufleet::canary {

using namespace vendor;  // NOLINT(build/namespaces): the function pointer types

StatusOr<std::unique_ptr<DynamicLibrary>> OpenVendorLibrary(const std::string& dir,
                                                            const std::vector<std::string>& names) {
  StatusOr<std::unique_ptr<DynamicLibrary>> lib = DynamicLibrary::OpenIn(dir, names);
  if (!lib.ok()) return UnavailableError(lib.status().message());
  (*lib)->KeepLoadedAtDestruction();
  return lib;
}

LoadedGpuRuntime::~LoadedGpuRuntime() {
  for (size_t d = 0; d < fp8_.size(); ++d) {
    if (fp8_[d].workspace == nullptr || set_device_(static_cast<int>(d)) != 0) continue;
    fp8_[d].plan.reset();
    free_(fp8_[d].workspace);
  }
  for (void* comm : comms_) {
    if (comm != nullptr && ccl_comm_destroy_ != nullptr) ccl_comm_destroy_(comm);
  }
  for (size_t d = 0; d < blas_handles_.size(); ++d) {
    if (blas_handles_[d] != nullptr && set_device_(static_cast<int>(d)) == 0) {
      blas_destroy_(blas_handles_[d]);
    }
  }
}

Status LoadedGpuRuntime::Load(const std::string& dir, std::string kernel_image) {
  ASSIGN_OR_RETURN(runtime_, OpenVendorLibrary(dir, spec_.runtime_libraries));
  const std::string& p = spec_.runtime_prefix;
  std::string missing;
  runtime_->Require(p + "GetDeviceCount", get_device_count_, &missing);
  runtime_->Require(p + "SetDevice", set_device_, &missing);
  runtime_->Require(p + "Malloc", malloc_, &missing);
  runtime_->Require(p + "Free", free_, &missing);
  runtime_->Require(spec_.host_alloc_symbol, host_alloc_, &missing);
  runtime_->Require(spec_.host_free_symbol, host_free_, &missing);
  runtime_->Require(p + "Memset", memset_, &missing);
  runtime_->Require(p + "DeviceSynchronize", device_synchronize_, &missing);
  runtime_->Require(p + "StreamCreate", stream_create_, &missing);
  runtime_->Require(p + "StreamDestroy", stream_destroy_, &missing);
  runtime_->Require(p + "StreamSynchronize", stream_synchronize_, &missing);
  runtime_->Require(p + "MemcpyAsync", memcpy_async_, &missing);
  runtime_->Require(p + "EventCreate", event_create_, &missing);
  runtime_->Require(p + "EventDestroy", event_destroy_, &missing);
  runtime_->Require(p + "EventRecord", event_record_, &missing);
  runtime_->Require(p + "EventSynchronize", event_synchronize_, &missing);
  runtime_->Require(p + "EventElapsedTime", event_elapsed_time_, &missing);
  if (!missing.empty()) {
    return UnavailableError(runtime_->path() + " lacks required symbol(s): " + missing);
  }
  for (const std::string& s : spec_.device_properties_symbols) {
    if (runtime_->Bind(s, get_device_properties_)) break;
  }
  runtime_->Bind(p + "RuntimeGetVersion", runtime_get_version_);
  runtime_->Bind(p + "DriverGetVersion", driver_get_version_);
  runtime_->Bind(p + "GetErrorString", get_error_string_);
  runtime_->Bind(p + "DeviceGetAttribute", device_get_attribute_);

  int count = 0;
  RETURN_IF_ERROR(Check(get_device_count_(&count), p + "GetDeviceCount"));
  if (count <= 0) return UnavailableError(runtime_->path() + ": no " + p + " device");
  device_count_ = count;
  blas_handles_.assign(static_cast<size_t>(count), nullptr);
  fp8_.resize(static_cast<size_t>(count));
  LoadBlas(dir);
  LoadCollectives(dir);
  blas_lt_ = BlasLt::Load(spec_, dir);
  kernels_ = KernelModule::Load(spec_, dir, *runtime_, get_error_string_, std::move(kernel_image));
  return OkStatus();
}

StatusOr<std::string> LoadedGpuRuntime::DeviceName(int device) {
  if (get_device_properties_ == nullptr) {
    return UnavailableError(runtime_->path() + " lacks " + spec_.device_properties_symbols[0]);
  }
  std::vector<char> props(kDevicePropertiesBufferBytes, '\0');
  RETURN_IF_ERROR(
      Check(get_device_properties_(props.data(), device), spec_.device_properties_symbols[0]));
  return std::string(props.data(), strnlen(props.data(), 256));
}

StatusOr<HardwareTarget> LoadedGpuRuntime::Target(int device) {
  HardwareTarget t;
  ASSIGN_OR_RETURN(t.model, DeviceName(device));
  int v = 0;
  if (runtime_get_version_ != nullptr && runtime_get_version_(&v) == 0) {
    t.runtime = RuntimeVersionName(spec_.vendor, v);
  }
  if (driver_get_version_ != nullptr && driver_get_version_(&v) == 0) {
    // The runtime API knows only the driver's API level, not its build
    // ("550.54.15"); --target driver=... overrides it.
    t.driver = spec_.runtime_prefix + "-driver-" + std::to_string(v);
  }
  std::string libs;
  if (blas_status_.ok() && blas_get_version_ != nullptr && blas_handles_[0] != nullptr &&
      blas_get_version_(blas_handles_[0], &v) == 0) {
    libs = spec_.blas_name + "-" + BlasVersionName(v);
  }
  if (ccl_status_.ok() && ccl_get_version_ != nullptr && ccl_get_version_(&v) == 0) {
    if (!libs.empty()) libs += "+";
    libs += spec_.ccl_name + "-" + CclVersionName(v);
  }
  t.libraries = libs;
  return t;
}

Status LoadedGpuRuntime::SetDevice(int device) {
  RETURN_IF_ERROR(Check(set_device_(device), spec_.runtime_prefix + "SetDevice"));
  current_device_ = device;
  return OkStatus();
}

StatusOr<void*> LoadedGpuRuntime::DeviceAlloc(size_t bytes) {
  void* p = nullptr;
  RETURN_IF_ERROR(Check(malloc_(&p, bytes), spec_.runtime_prefix + "Malloc"));
  return p;
}

Status LoadedGpuRuntime::DeviceFree(void* ptr) {
  return Check(free_(ptr), spec_.runtime_prefix + "Free");
}

StatusOr<void*> LoadedGpuRuntime::PinnedAlloc(size_t bytes) {
  void* p = nullptr;
  RETURN_IF_ERROR(Check(host_alloc_(&p, bytes, 0), spec_.host_alloc_symbol));
  return p;
}

Status LoadedGpuRuntime::PinnedFree(void* ptr) {
  return Check(host_free_(ptr), spec_.host_free_symbol);
}

Status LoadedGpuRuntime::Memset(void* ptr, int value, size_t bytes) {
  return Check(memset_(ptr, value, bytes), spec_.runtime_prefix + "Memset");
}

Status LoadedGpuRuntime::Synchronize() {
  return Check(device_synchronize_(), spec_.runtime_prefix + "DeviceSynchronize");
}

StatusOr<void*> LoadedGpuRuntime::CreateStream() {
  void* s = nullptr;
  RETURN_IF_ERROR(Check(stream_create_(&s), spec_.runtime_prefix + "StreamCreate"));
  return s;
}

Status LoadedGpuRuntime::DestroyStream(void* s) {
  return Check(stream_destroy_(s), spec_.runtime_prefix + "StreamDestroy");
}

Status LoadedGpuRuntime::SyncStream(void* s) {
  return Check(stream_synchronize_(s), spec_.runtime_prefix + "StreamSynchronize");
}

Status LoadedGpuRuntime::Memcpy(void* dst, const void* src, size_t bytes, CopyKind kind,
                                void* stream) {
  int k = kind == CopyKind::kHostToDevice   ? spec_.memcpy_h2d
          : kind == CopyKind::kDeviceToHost ? spec_.memcpy_d2h
                                            : spec_.memcpy_d2d;
  return Check(memcpy_async_(dst, src, bytes, k, stream), spec_.runtime_prefix + "MemcpyAsync");
}

StatusOr<void*> LoadedGpuRuntime::CreateEvent() {
  void* e = nullptr;
  RETURN_IF_ERROR(Check(event_create_(&e), spec_.runtime_prefix + "EventCreate"));
  return e;
}

Status LoadedGpuRuntime::DestroyEvent(void* e) {
  return Check(event_destroy_(e), spec_.runtime_prefix + "EventDestroy");
}

Status LoadedGpuRuntime::RecordEvent(void* e, void* stream) {
  return Check(event_record_(e, stream), spec_.runtime_prefix + "EventRecord");
}

StatusOr<double> LoadedGpuRuntime::ElapsedSeconds(void* start, void* stop) {
  RETURN_IF_ERROR(Check(event_synchronize_(stop), spec_.runtime_prefix + "EventSynchronize"));
  float ms = 0;
  RETURN_IF_ERROR(
      Check(event_elapsed_time_(&ms, start, stop), spec_.runtime_prefix + "EventElapsedTime"));
  return static_cast<double>(ms) / 1e3;
}

Status LoadedGpuRuntime::LaunchStreamKernel(StreamKernel kernel, uint64_t n, double scalar, void* a,
                                            void* b, void* c, void* stream) {
  return kernels_->Launch(current_device_, kernel, n, scalar, a, b, c, stream);
}

Status LoadedGpuRuntime::Check(int rc, const std::string& call, bool blas) const {
  if (rc == 0) return OkStatus();
  std::string what = std::to_string(rc);
  if (!blas && get_error_string_ != nullptr) {
    const char* s = get_error_string_(rc);
    if (s != nullptr) what += " (" + std::string(s) + ")";
  }
  return InternalError(call + " failed with " + (blas ? "status " : "error ") + what);
}

}  // namespace gpufleet::canary
