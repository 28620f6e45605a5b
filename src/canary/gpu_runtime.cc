#include "canary/gpu_runtime.h"

#include <cstring>
#include <utility>

#include "canary/blas_lt.h"
#include "canary/gpu_vendor_api.h"
#include "canary/kernel_module.h"
#include "core/dynamic_library.h"

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

namespace {

using namespace vendor;  // NOLINT(build/namespaces): the function pointer types

// Opens the first of `names` in `dir` (or the loader's search path);
// Unavailable naming every path tried. Never dlclose'd: vendor runtimes keep
// threads that outlive an unload.
StatusOr<std::unique_ptr<DynamicLibrary>> OpenVendorLibrary(const std::string& dir,
                                                            const std::vector<std::string>& names) {
  StatusOr<std::unique_ptr<DynamicLibrary>> lib = DynamicLibrary::OpenIn(dir, names);
  if (!lib.ok()) return UnavailableError(lib.status().message());
  (*lib)->KeepLoadedAtDestruction();
  return lib;
}

// fp8 workspace per device (cuBLASLt recommends 32 MiB on Hopper).
constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

class LoadedGpuRuntime final : public GpuRuntime {
 public:
  explicit LoadedGpuRuntime(const VendorSpec& spec) : spec_(spec) {}
  ~LoadedGpuRuntime() override {
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

  Status Load(const std::string& dir, std::string kernel_image) {
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
    kernels_ =
        KernelModule::Load(spec_, dir, *runtime_, get_error_string_, std::move(kernel_image));
    return OkStatus();
  }

  GpuVendor vendor() const override { return spec_.vendor; }
  int device_count() const override { return device_count_; }

  StatusOr<std::string> DeviceName(int device) override {
    if (get_device_properties_ == nullptr) {
      return UnavailableError(runtime_->path() + " lacks " + spec_.device_properties_symbols[0]);
    }
    std::vector<char> props(kDevicePropertiesBufferBytes, '\0');
    RETURN_IF_ERROR(
        Check(get_device_properties_(props.data(), device), spec_.device_properties_symbols[0]));
    return std::string(props.data(), strnlen(props.data(), 256));
  }

  StatusOr<HardwareTarget> Target(int device) override {
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

  Status SetDevice(int device) override {
    RETURN_IF_ERROR(Check(set_device_(device), spec_.runtime_prefix + "SetDevice"));
    current_device_ = device;
    return OkStatus();
  }

  StatusOr<void*> DeviceAlloc(size_t bytes) override {
    void* p = nullptr;
    RETURN_IF_ERROR(Check(malloc_(&p, bytes), spec_.runtime_prefix + "Malloc"));
    return p;
  }
  Status DeviceFree(void* ptr) override { return Check(free_(ptr), spec_.runtime_prefix + "Free"); }
  StatusOr<void*> PinnedAlloc(size_t bytes) override {
    void* p = nullptr;
    RETURN_IF_ERROR(Check(host_alloc_(&p, bytes, 0), spec_.host_alloc_symbol));
    return p;
  }
  Status PinnedFree(void* ptr) override { return Check(host_free_(ptr), spec_.host_free_symbol); }
  Status Memset(void* ptr, int value, size_t bytes) override {
    return Check(memset_(ptr, value, bytes), spec_.runtime_prefix + "Memset");
  }
  Status Synchronize() override {
    return Check(device_synchronize_(), spec_.runtime_prefix + "DeviceSynchronize");
  }

  StatusOr<void*> CreateStream() override {
    void* s = nullptr;
    RETURN_IF_ERROR(Check(stream_create_(&s), spec_.runtime_prefix + "StreamCreate"));
    return s;
  }
  Status DestroyStream(void* s) override {
    return Check(stream_destroy_(s), spec_.runtime_prefix + "StreamDestroy");
  }
  Status SyncStream(void* s) override {
    return Check(stream_synchronize_(s), spec_.runtime_prefix + "StreamSynchronize");
  }
  Status Memcpy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) override {
    int k = kind == CopyKind::kHostToDevice   ? spec_.memcpy_h2d
            : kind == CopyKind::kDeviceToHost ? spec_.memcpy_d2h
                                              : spec_.memcpy_d2d;
    return Check(memcpy_async_(dst, src, bytes, k, stream), spec_.runtime_prefix + "MemcpyAsync");
  }

  StatusOr<void*> CreateEvent() override {
    void* e = nullptr;
    RETURN_IF_ERROR(Check(event_create_(&e), spec_.runtime_prefix + "EventCreate"));
    return e;
  }
  Status DestroyEvent(void* e) override {
    return Check(event_destroy_(e), spec_.runtime_prefix + "EventDestroy");
  }
  Status RecordEvent(void* e, void* stream) override {
    return Check(event_record_(e, stream), spec_.runtime_prefix + "EventRecord");
  }
  StatusOr<double> ElapsedSeconds(void* start, void* stop) override {
    RETURN_IF_ERROR(Check(event_synchronize_(stop), spec_.runtime_prefix + "EventSynchronize"));
    float ms = 0;
    RETURN_IF_ERROR(
        Check(event_elapsed_time_(&ms, start, stop), spec_.runtime_prefix + "EventElapsedTime"));
    return static_cast<double>(ms) / 1e3;
  }

  Status BlasStatus() const override { return blas_status_; }

  Status Gemm(GemmPrecision precision, int n, const void* a, const void* b, void* c,
              void* stream) override {
    // fp8 needs only BLASLt, not the BLAS library.
    if (precision == GemmPrecision::kFp8) return Fp8Gemm(n, a, b, c, stream);
    RETURN_IF_ERROR(blas_status_);
    int type = 0;
    switch (precision) {
      case GemmPrecision::kFp32:
        type = spec_.type_fp32;
        break;
      case GemmPrecision::kFp16:
        type = spec_.type_fp16;
        break;
      case GemmPrecision::kBf16:
        type = spec_.type_bf16;
        break;
      case GemmPrecision::kFp8:
        break;  // handled above
    }
    ASSIGN_OR_RETURN(void* handle, BlasHandle(stream));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    return Check(gemm_ex_(handle, spec_.op_n, spec_.op_n, n, n, n, &alpha, a, type, n, b, type, n,
                          &beta, c, type, n, spec_.compute_32f, spec_.gemm_algo_default),
                 spec_.blas_gemm_ex, /*blas=*/true);
  }

  Status Axpy(int n, float alpha, const void* x, void* y, void* stream) override {
    RETURN_IF_ERROR(blas_status_);
    ASSIGN_OR_RETURN(void* handle, BlasHandle(stream));
    return Check(
        saxpy_(handle, n, &alpha, static_cast<const float*>(x), 1, static_cast<float*>(y), 1),
        spec_.blas_saxpy, /*blas=*/true);
  }

  Status KernelStatus() const override { return kernels_->status(); }

  Status LaunchStreamKernel(StreamKernel kernel, uint64_t n, double scalar, void* a, void* b,
                            void* c, void* stream) override {
    return kernels_->Launch(current_device_, kernel, n, scalar, a, b, c, stream);
  }

  Status CollectiveStatus() const override { return ccl_status_; }

  Status AllReduceSum(const std::vector<void*>& send, const std::vector<void*>& recv, size_t count,
                      const std::vector<void*>& streams) override {
    RETURN_IF_ERROR(ccl_status_);
    size_t n = static_cast<size_t>(device_count_);
    if (send.size() != n || recv.size() != n || streams.size() != n) {
      return InvalidArgumentError("AllReduceSum: need one buffer pair and stream per device (" +
                                  std::to_string(n) + ")");
    }
    if (comms_.empty()) {
      std::vector<void*> comms(n, nullptr);
      std::vector<int> devs(n);
      for (size_t i = 0; i < n; ++i) devs[i] = static_cast<int>(i);
      RETURN_IF_ERROR(CclCheck(ccl_comm_init_all_(comms.data(), device_count_, devs.data()),
                               "ncclCommInitAll"));
      comms_ = std::move(comms);
    }
    RETURN_IF_ERROR(CclCheck(ccl_group_start_(), "ncclGroupStart"));
    Status launch = OkStatus();
    for (size_t i = 0; i < n && launch.ok(); ++i) {
      launch = CclCheck(ccl_all_reduce_(send[i], recv[i], count, spec_.ccl_float32, spec_.ccl_sum,
                                        comms_[i], streams[i]),
                        "ncclAllReduce");
    }
    Status end = CclCheck(ccl_group_end_(), "ncclGroupEnd");
    RETURN_IF_ERROR(launch);
    return end;
  }

 private:
  // fp8 through BLASLt on the current device: checks the architecture, then
  // makes (once per device and size) the plan and its workspace.
  Status Fp8Gemm(int n, const void* a, const void* b, void* c, void* stream) {
    Fp8State& st = fp8_[static_cast<size_t>(current_device_)];
    if (st.plan == nullptr || st.plan->n() != n) {
      if (device_get_attribute_ == nullptr) {
        return UnavailableError(runtime_->path() + " lacks " + spec_.runtime_prefix +
                                "DeviceGetAttribute (needed to tell whether the GPU has fp8)");
      }
      int major = 0, minor = 0;
      RETURN_IF_ERROR(Check(device_get_attribute_(&major, spec_.attr_cc_major, current_device_),
                            spec_.runtime_prefix + "DeviceGetAttribute"));
      RETURN_IF_ERROR(Check(device_get_attribute_(&minor, spec_.attr_cc_minor, current_device_),
                            spec_.runtime_prefix + "DeviceGetAttribute"));
      ASSIGN_OR_RETURN(Fp8Support support, Fp8SupportFor(spec_, major, minor));
      RETURN_IF_ERROR(blas_lt_->status());
      st.plan.reset();
      if (st.workspace == nullptr) {
        RETURN_IF_ERROR(
            Check(malloc_(&st.workspace, kLtWorkspaceBytes), spec_.runtime_prefix + "Malloc"));
      }
      ASSIGN_OR_RETURN(st.plan,
                       blas_lt_->MakePlan(n, support.data_type, st.workspace, kLtWorkspaceBytes));
    }
    return blas_lt_->Run(*st.plan, a, b, c, stream);
  }

  void LoadBlas(const std::string& dir) {
    StatusOr<std::unique_ptr<DynamicLibrary>> lib = OpenVendorLibrary(dir, spec_.blas_libraries);
    if (!lib.ok()) {
      blas_status_ = lib.status();
      return;
    }
    blas_ = std::move(lib).value();
    std::string missing;
    blas_->Require(spec_.blas_create, blas_create_, &missing);
    blas_->Require(spec_.blas_destroy, blas_destroy_, &missing);
    blas_->Require(spec_.blas_set_stream, blas_set_stream_, &missing);
    if (!blas_->Bind(spec_.blas_gemm_ex, gemm_ex_) && !spec_.blas_gemm_ex_fallback.empty() &&
        blas_->Symbol(spec_.blas_gemm_ex_fallback_marker.c_str()) != nullptr) {
      blas_->Bind(spec_.blas_gemm_ex_fallback, gemm_ex_);
    }
    if (gemm_ex_ == nullptr) missing += (missing.empty() ? "" : ", ") + spec_.blas_gemm_ex;
    blas_->Require(spec_.blas_saxpy, saxpy_, &missing);
    if (!spec_.blas_get_version.empty()) blas_->Bind(spec_.blas_get_version, blas_get_version_);
    if (!missing.empty()) {
      blas_status_ = UnavailableError(blas_->path() + " lacks symbol(s): " + missing);
      return;
    }
    // A handle for device 0 up front, so Target() can ask for the version.
    if (set_device_(0) == 0) {
      void* h = nullptr;
      int rc = blas_create_(&h);
      if (rc != 0) {
        blas_status_ =
            UnavailableError(spec_.blas_create + " failed with status " + std::to_string(rc));
        return;
      }
      blas_handles_[0] = h;
    }
  }

  void LoadCollectives(const std::string& dir) {
    StatusOr<std::unique_ptr<DynamicLibrary>> lib = OpenVendorLibrary(dir, spec_.ccl_libraries);
    if (!lib.ok()) {
      ccl_status_ = lib.status();
      return;
    }
    ccl_ = std::move(lib).value();
    std::string missing;
    ccl_->Require("ncclCommInitAll", ccl_comm_init_all_, &missing);
    ccl_->Require("ncclCommDestroy", ccl_comm_destroy_, &missing);
    ccl_->Require("ncclAllReduce", ccl_all_reduce_, &missing);
    ccl_->Require("ncclGroupStart", ccl_group_start_, &missing);
    ccl_->Require("ncclGroupEnd", ccl_group_end_, &missing);
    ccl_->Bind("ncclGetVersion", ccl_get_version_);
    ccl_->Bind("ncclGetErrorString", ccl_get_error_string_);
    if (!missing.empty())
      ccl_status_ = UnavailableError(ccl_->path() + " lacks symbol(s): " + missing);
  }

  StatusOr<void*> BlasHandle(void* stream) {
    void*& h = blas_handles_[static_cast<size_t>(current_device_)];
    if (h == nullptr) RETURN_IF_ERROR(Check(blas_create_(&h), spec_.blas_create, true));
    RETURN_IF_ERROR(Check(blas_set_stream_(h, stream), spec_.blas_set_stream, true));
    return h;
  }

  Status Check(int rc, const std::string& call, bool blas = false) const {
    if (rc == 0) return OkStatus();
    std::string what = std::to_string(rc);
    if (!blas && get_error_string_ != nullptr) {
      const char* s = get_error_string_(rc);
      if (s != nullptr) what += " (" + std::string(s) + ")";
    }
    return InternalError(call + " failed with " + (blas ? "status " : "error ") + what);
  }
  Status CclCheck(int rc, const std::string& call) const {
    if (rc == 0) return OkStatus();
    std::string what = std::to_string(rc);
    if (ccl_get_error_string_ != nullptr) {
      const char* s = ccl_get_error_string_(rc);
      if (s != nullptr) what += " (" + std::string(s) + ")";
    }
    return InternalError(spec_.ccl_name + ": " + call + " failed with " + what);
  }

  struct Fp8State {
    void* workspace = nullptr;  // device memory, kLtWorkspaceBytes
    std::unique_ptr<Fp8GemmPlan> plan;
  };

  const VendorSpec& spec_;
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

  GetDeviceCountFn* get_device_count_ = nullptr;
  SetDeviceFn* set_device_ = nullptr;
  GetDevicePropertiesFn* get_device_properties_ = nullptr;
  MallocFn* malloc_ = nullptr;
  FreeFn* free_ = nullptr;
  HostAllocFn* host_alloc_ = nullptr;
  FreeFn* host_free_ = nullptr;
  MemsetFn* memset_ = nullptr;
  DeviceSynchronizeFn* device_synchronize_ = nullptr;
  StreamCreateFn* stream_create_ = nullptr;
  StreamFn* stream_destroy_ = nullptr;
  StreamFn* stream_synchronize_ = nullptr;
  MemcpyAsyncFn* memcpy_async_ = nullptr;
  EventCreateFn* event_create_ = nullptr;
  EventFn* event_destroy_ = nullptr;
  EventRecordFn* event_record_ = nullptr;
  EventFn* event_synchronize_ = nullptr;
  EventElapsedTimeFn* event_elapsed_time_ = nullptr;
  GetVersionFn* runtime_get_version_ = nullptr;
  GetVersionFn* driver_get_version_ = nullptr;
  GetErrorStringFn* get_error_string_ = nullptr;
  DeviceGetAttributeFn* device_get_attribute_ = nullptr;

  BlasCreateFn* blas_create_ = nullptr;
  BlasDestroyFn* blas_destroy_ = nullptr;
  BlasSetStreamFn* blas_set_stream_ = nullptr;
  BlasGetVersionFn* blas_get_version_ = nullptr;
  GemmExFn* gemm_ex_ = nullptr;
  SaxpyFn* saxpy_ = nullptr;

  CclGetVersionFn* ccl_get_version_ = nullptr;
  CclCommInitAllFn* ccl_comm_init_all_ = nullptr;
  CclCommDestroyFn* ccl_comm_destroy_ = nullptr;
  CclAllReduceFn* ccl_all_reduce_ = nullptr;
  CclGroupFn* ccl_group_start_ = nullptr;
  CclGroupFn* ccl_group_end_ = nullptr;
  CclGetErrorStringFn* ccl_get_error_string_ = nullptr;
};

}  // namespace

StatusOr<std::unique_ptr<GpuRuntime>> LoadGpuRuntime(const GpuRuntimeOptions& options,
                                                     std::string kernel_image) {
  auto rt = std::make_unique<LoadedGpuRuntime>(SpecFor(options.vendor));
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
