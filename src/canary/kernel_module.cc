#include "canary/kernel_module.h"

#include <utility>

namespace gpufleet::canary {

std::unique_ptr<KernelModule> KernelModule::Load(const vendor::VendorSpec& spec,
                                                 const std::string& dir,
                                                 const DynamicLibrary& runtime,
                                                 vendor::GetErrorStringFn* runtime_error_string,
                                                 std::string image) {
  std::unique_ptr<KernelModule> m(new KernelModule(spec));
  m->runtime_error_string_ = runtime_error_string;
  if (image.empty()) {
    m->status_ = UnavailableError("gpufleet was built without " + spec.module_compiler +
                                  ": no built-in kernels");
    return m;
  }
  m->image_ = std::move(image);
  const DynamicLibrary* lib = &runtime;
  if (!spec.module_libraries.empty()) {
    // The driver library sits with the driver, not the toolkit: DIR first,
    // then the loader's search.
    StatusOr<std::unique_ptr<DynamicLibrary>> d =
        DynamicLibrary::OpenIn(dir, spec.module_libraries);
    if (!d.ok() && !dir.empty()) d = DynamicLibrary::Open(spec.module_libraries);
    if (!d.ok()) {
      m->status_ = UnavailableError(d.status().message());
      return m;
    }
    m->driver_ = std::move(d).value();
    m->driver_->KeepLoadedAtDestruction();
    lib = m->driver_.get();
  }
  std::string missing;
  vendor::DriverInitFn* init = nullptr;
  if (!spec.sym_init.empty()) lib->Require(spec.sym_init, init, &missing);
  if (!spec.sym_ctx_get_current.empty()) {
    lib->Require(spec.sym_ctx_get_current, m->ctx_get_current_, &missing);
  }
  lib->Require(spec.sym_module_load_data, m->module_load_data_, &missing);
  lib->Require(spec.sym_module_get_function, m->module_get_function_, &missing);
  lib->Require(spec.sym_launch_kernel, m->launch_kernel_, &missing);
  if (!spec.sym_get_error_string.empty()) {
    lib->Bind(spec.sym_get_error_string, m->driver_error_string_);
  }
  if (!missing.empty()) {
    m->status_ = UnavailableError(lib->path() + " lacks symbol(s): " + missing);
    return m;
  }
  if (init != nullptr) {
    Status st = m->Check(init(0), spec.sym_init);
    if (!st.ok()) m->status_ = UnavailableError(st.message());
  }
  return m;
}

Status KernelModule::Check(int rc, const std::string& call) const {
  if (rc == 0) return OkStatus();
  std::string what = std::to_string(rc);
  const char* s = nullptr;
  if (driver_error_string_ != nullptr) {
    if (driver_error_string_(rc, &s) != 0) s = nullptr;
  } else if (runtime_error_string_ != nullptr) {
    s = runtime_error_string_(rc);
  }
  if (s != nullptr) what += " (" + std::string(s) + ")";
  return InternalError(call + " failed with error " + what);
}

Status KernelModule::EnsureLoaded(int device) {
  if (device < 0) return InvalidArgumentError("negative device");
  if (devices_.size() <= static_cast<size_t>(device)) {
    devices_.resize(static_cast<size_t>(device) + 1);
  }
  PerDevice& d = devices_[static_cast<size_t>(device)];
  if (d.module != nullptr) return OkStatus();
  if (ctx_get_current_ != nullptr) {
    void* ctx = nullptr;
    RETURN_IF_ERROR(Check(ctx_get_current_(&ctx), spec_.sym_ctx_get_current));
    if (ctx == nullptr) {
      return FailedPreconditionError(spec_.sym_ctx_get_current +
                                     ": no current context on device " + std::to_string(device) +
                                     " (the runtime has not initialised it)");
    }
  }
  void* module = nullptr;
  RETURN_IF_ERROR(Check(module_load_data_(&module, image_.data()), spec_.sym_module_load_data));
  void* copy = nullptr;
  void* triad = nullptr;
  RETURN_IF_ERROR(Check(module_get_function_(&copy, module, kStreamCopyKernel),
                        spec_.sym_module_get_function + "(" + kStreamCopyKernel + ")"));
  RETURN_IF_ERROR(Check(module_get_function_(&triad, module, kStreamTriadKernel),
                        spec_.sym_module_get_function + "(" + kStreamTriadKernel + ")"));
  d = PerDevice{module, copy, triad};
  return OkStatus();
}

Status KernelModule::Launch(int device, StreamKernel kernel, uint64_t n, double scalar, void* a,
                            void* b, void* c, void* stream) {
  RETURN_IF_ERROR(status_);
  if (n == 0) return InvalidArgumentError("stream kernel over 0 elements");
  uint64_t blocks = (n + kStreamBlockSize - 1) / kStreamBlockSize;
  if (blocks > 0x7fffffffULL) {
    return InvalidArgumentError("stream kernel over " + std::to_string(n) +
                                " elements needs more than 2^31-1 blocks");
  }
  RETURN_IF_ERROR(EnsureLoaded(device));
  const PerDevice& d = devices_[static_cast<size_t>(device)];
  // Arguments by address, in the kernels' parameter order
  // (stream_kernels.cu).
  void* function = nullptr;
  std::vector<void*> params;
  if (kernel == StreamKernel::kCopy) {
    function = d.copy;
    params = {&a, &c, &n};
  } else {
    function = d.triad;
    params = {&a, &b, &c, &scalar, &n};
  }
  return Check(launch_kernel_(function, static_cast<unsigned>(blocks), 1, 1, kStreamBlockSize, 1,
                              1, 0, stream, params.data(), nullptr),
               spec_.sym_launch_kernel + (kernel == StreamKernel::kCopy ? "(copy)" : "(triad)"));
}

}  // namespace gpufleet::canary
