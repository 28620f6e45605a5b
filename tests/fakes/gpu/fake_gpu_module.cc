// Fake kernel modules: the CUDA driver API subset of libcuda.so.1 (built with
// FAKE_GPU_CUDA as its own library) or HIP's module API (FAKE_GPU_HIP, built
// into the fake libamdhip64). Images and launches as fake_gpu_control.h
// describes; nothing runs, the device clock advances.
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fakes/gpu/fake_gpu_control.h"
#include "tests/fakes/gpu/fake_gpu_vendor.h"

namespace {

constexpr std::string_view kFakePrefix = "gpufleet-fake-module:";
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

struct FakeModule {
  int device;
  std::string image;
};
struct FakeFunction {
  FakeModule* module;
  std::string name;
};

std::mutex& Mu() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

// Every module and function handed out, kept until the process ends: in the
// real libraries handles belong to the driver (functions die with their
// module, and gpufleet keeps modules for the runtime's life), so callers
// never free them; holding them here keeps LeakSanitizer quiet about that.
template <typename T>
T* Keep(std::unique_ptr<T> p) {
  static auto* kept = new std::vector<std::shared_ptr<void>>();
  std::lock_guard<std::mutex> lock(Mu());
  T* raw = p.get();
  kept->push_back(std::shared_ptr<T>(std::move(p)));
  return raw;
}

// The image's bytes: a fatbin is sized by its header (magic u32, version
// u16, header size u16, payload size u64); the fake text by its NUL.
bool ReadImage(const void* image, std::string* out) {
  const auto* p = static_cast<const unsigned char*>(image);
  uint32_t magic = 0;
  std::memcpy(&magic, p, sizeof(magic));
  if (magic == kFatbinMagic) {
    uint16_t header = 0;
    uint64_t payload = 0;
    std::memcpy(&header, p + 6, sizeof(header));
    std::memcpy(&payload, p + 8, sizeof(payload));
    if (header < 16 || payload == 0 || payload > (uint64_t{1} << 30)) return false;
    out->assign(reinterpret_cast<const char*>(p), header + payload);
    return true;
  }
  std::string_view text(static_cast<const char*>(image));
  if (text.substr(0, kFakePrefix.size()) != kFakePrefix) return false;
  out->assign(text);
  return true;
}

}  // namespace

extern "C" {

#if defined(FAKE_GPU_CUDA)
__attribute__((visibility("default"))) int cuInit(unsigned int flags) {
  if (flags != 0) return kFakeInvalidValue;
  return FAKE_CTL(ShouldFail)("cuInit") ? kFakeInvalidDevice : kFakeSuccess;
}

// The "context" is the current device + 1 (never null once a device is set).
__attribute__((visibility("default"))) int cuCtxGetCurrent(void** ctx) {
  if (ctx == nullptr) return kFakeInvalidValue;
  *ctx = FAKE_CTL(ShouldFail)("cuCtxGetCurrent")
             ? nullptr
             : reinterpret_cast<void*>(static_cast<uintptr_t>(FAKE_CTL(CurrentDevice)() + 1));
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int cuGetErrorString(int error, const char** str) {
  if (str == nullptr) return kFakeInvalidValue;
  switch (error) {
    case kFakeInvalidImage:
      *str = "device kernel image is invalid";
      return kFakeSuccess;
    case kFakeNotFound:
      *str = "named symbol not found";
      return kFakeSuccess;
    case kFakeInvalidHandle:
      *str = "invalid resource handle";
      return kFakeSuccess;
    case kFakeInvalidValue:
      *str = "invalid argument";
      return kFakeSuccess;
    default:
      *str = nullptr;
      return kFakeInvalidValue;
  }
}
#endif

__attribute__((visibility("default"))) int FAKE_MODULE(LoadData)(void** module, const void* image) {
  if (module == nullptr || image == nullptr) return kFakeInvalidValue;
  if (FAKE_CTL(ShouldFail)(FAKE_STR(FAKE_MODULE(LoadData)))) return kFakeInvalidImage;
  auto m = std::make_unique<FakeModule>(FakeModule{FAKE_CTL(CurrentDevice)(), {}});
  if (!ReadImage(image, &m->image)) return kFakeInvalidImage;
  *module = Keep(std::move(m));
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_MODULE(GetFunction)(void** function, void* module,
                                                                   const char* name) {
  if (function == nullptr || module == nullptr || name == nullptr) return kFakeInvalidValue;
  auto* m = static_cast<FakeModule*>(module);
  if (m->image.find(name) == std::string::npos) return kFakeNotFound;
  *function = Keep(std::make_unique<FakeFunction>(FakeFunction{m, name}));
  return kFakeSuccess;
}

#if defined(FAKE_GPU_HIP)
#define FAKE_LAUNCH hipModuleLaunchKernel
#else
#define FAKE_LAUNCH cuLaunchKernel
#endif
__attribute__((visibility("default"))) int FAKE_LAUNCH(void* function, unsigned gx, unsigned gy,
                                                       unsigned gz, unsigned bx, unsigned by,
                                                       unsigned bz, unsigned shared, void* stream,
                                                       void** params, void** extra) {
  if (function == nullptr || params == nullptr || extra != nullptr || gx == 0 || gy != 1 ||
      gz != 1 || bx == 0 || bx > 1024 || by != 1 || bz != 1 || shared != 0) {
    return kFakeInvalidValue;
  }
  if (FAKE_CTL(ShouldFail)(FAKE_STR(FAKE_LAUNCH))) return kFakeInvalidValue;
  auto* f = static_cast<FakeFunction*>(function);
  if (f->module->device != FAKE_CTL(CurrentDevice)()) return kFakeInvalidHandle;
  uint64_t n = 0;
  double words = 0;
  size_t pointers = 0;
  if (f->name == "gpufleet_stream_copy") {
    std::memcpy(&n, params[2], sizeof(n));
    words = 2;
    pointers = 2;
  } else if (f->name == "gpufleet_stream_triad") {
    std::memcpy(&n, params[4], sizeof(n));
    words = 3;
    pointers = 3;
  } else {
    return kFakeInvalidValue;
  }
  for (size_t i = 0; i < pointers; ++i) {
    void* p = nullptr;
    std::memcpy(&p, params[i], sizeof(p));
    if (p == nullptr) return kFakeInvalidValue;
  }
  // Every element needs a thread.
  if (n == 0 || static_cast<uint64_t>(gx) * bx < n) return kFakeInvalidValue;
  double bytes = words * static_cast<double>(n) * sizeof(double);
  double gbps = FAKE_CTL(Number)("stream_kernel_gbps", FAKE_CTL(Number)("memory_gbps", 4000));
  FAKE_CTL(Advance)(stream, bytes / (gbps * 1e9));
  return kFakeSuccess;
}

}  // extern "C"
