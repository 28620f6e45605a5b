// The fake GPU runtime (libcudart.so.12 / libamdhip64.so.6): devices with
// virtual clocks (fake_gpu_control.h). Device pointers are addresses that
// are never dereferenced; pinned host memory is real (never touched).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/fakes/common/fake_config.h"
#include "tests/fakes/gpu/fake_gpu_control.h"
#include "tests/fakes/gpu/fake_gpu_vendor.h"

namespace {

struct FakeStream {
  int device;
};
struct FakeEvent {
  int device = -1;
  double t = -1;  // virtual seconds; < 0 until recorded
};

struct State {
  std::mutex mu;
  fake_common::ConfigFile config{FAKE_CONFIG_ENV};
  int device_count = 2;
  int current = 0;
  std::vector<double> clock_s;
  std::map<uintptr_t, size_t> allocations;
  uintptr_t next_address = 0x7f0000000000;
  uint64_t rng = 1;

  // REQUIRES: mu held.
  void Refresh() {
    if (!config.Reload() && !clock_s.empty()) return;
    device_count = static_cast<int>(config.Int("device_count", 2));
    clock_s.assign(static_cast<size_t>(std::max(device_count, 0)), 0.0);
    current = 0;
    rng = 0x9e3779b97f4a7c15ULL;
  }
  double Number(const char* key, double fallback) const {
    const std::string* v = config.Find(key);
    return v == nullptr ? fallback : std::strtod(v->c_str(), nullptr);
  }
  // slowdown * (1 + uniform(-jitter, jitter)), deterministic per load.
  double Scale() {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = static_cast<double>(rng >> 11) / static_cast<double>(1ULL << 53);
    return Number("slowdown", 1.0) * (1.0 + Number("jitter", 0.002) * (2 * u - 1));
  }
  bool ShouldFail(const char* entry) const {
    const std::string* v = config.Find("fail");
    if (v == nullptr) return false;
    for (const std::string& s : fake_common::SplitList(*v)) {
      if (s == entry) return true;
    }
    return false;
  }
  bool ValidDevice(int d) const { return d >= 0 && d < device_count; }
  int DeviceOf(void* stream) const {
    return stream == nullptr ? current : static_cast<FakeStream*>(stream)->device;
  }
};

State& S() {
  static State* s = new State();
  return *s;
}

#define LOCKED()                          \
  State& s = S();                         \
  std::lock_guard<std::mutex> lock(s.mu); \
  s.Refresh()

#define FAIL_IF_SCRIPTED(name) \
  if (s.ShouldFail(name)) return kFakeInvalidValue

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void FAKE_CTL(Advance)(void* stream, double seconds) {
  LOCKED();
  int d = s.DeviceOf(stream);
  if (!s.ValidDevice(d)) return;
  double device_slowdown = s.Number(("slowdown." + std::to_string(d)).c_str(), 1.0);
  s.clock_s[static_cast<size_t>(d)] += seconds * s.Scale() * device_slowdown;
}

__attribute__((visibility("default"))) void FAKE_CTL(Collective)(int n, double seconds) {
  LOCKED();
  n = std::min(n, s.device_count);
  double latest = 0;
  for (int d = 0; d < n; ++d) latest = std::max(latest, s.clock_s[static_cast<size_t>(d)]);
  double end = latest + seconds * s.Scale();
  for (int d = 0; d < n; ++d) s.clock_s[static_cast<size_t>(d)] = end;
}

__attribute__((visibility("default"))) double FAKE_CTL(Number)(const char* key, double fallback) {
  LOCKED();
  return s.Number(key, fallback);
}

__attribute__((visibility("default"))) int FAKE_CTL(ShouldFail)(const char* entry_point) {
  LOCKED();
  return s.ShouldFail(entry_point) ? 1 : 0;
}

__attribute__((visibility("default"))) int FAKE_CTL(CurrentDevice)() {
  LOCKED();
  return s.current;
}

__attribute__((visibility("default"))) int FAKE_RT(GetDeviceCount)(int* count) {
  LOCKED();
  if (count == nullptr) return kFakeInvalidValue;
  *count = s.device_count;
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(SetDevice)(int device) {
  LOCKED();
  if (!s.ValidDevice(device)) return kFakeInvalidDevice;
  s.current = device;
  return kFakeSuccess;
}

#if defined(FAKE_GPU_HIP)
#define FAKE_PROPS_NAME hipGetDevicePropertiesR0600
#else
#define FAKE_PROPS_NAME cudaGetDeviceProperties_v2
#endif
__attribute__((visibility("default"))) int FAKE_PROPS_NAME(void* props, int device) {
  LOCKED();
  if (props == nullptr) return kFakeInvalidValue;
  if (!s.ValidDevice(device)) return kFakeInvalidDevice;
  const std::string* name = s.config.Find("name");
  fake_common::CopyString(static_cast<char*>(props), 256,
                          name != nullptr ? name->c_str() : FAKE_DEFAULT_NAME);
  return kFakeSuccess;
}

// Compute capability only (CUDA 75/76, HIP 23/61); "gfx" 9.4 = MI300.
__attribute__((visibility("default"))) int FAKE_RT(DeviceGetAttribute)(int* value, int attr,
                                                                      int device) {
  LOCKED();
  FAIL_IF_SCRIPTED(FAKE_STR(FAKE_RT(DeviceGetAttribute)));
  if (value == nullptr) return kFakeInvalidValue;
  if (!s.ValidDevice(device)) return kFakeInvalidDevice;
  if (attr == FAKE_ATTR_CC_MAJOR) {
    *value = static_cast<int>(s.Number("cc_major", FAKE_DEFAULT_CC_MAJOR));
  } else if (attr == FAKE_ATTR_CC_MINOR) {
    *value = static_cast<int>(s.Number("cc_minor", FAKE_DEFAULT_CC_MINOR));
  } else {
    return kFakeInvalidValue;
  }
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(Malloc)(void** ptr, size_t bytes) {
  long sleep_us = 0;
  {
    LOCKED();
    FAIL_IF_SCRIPTED(FAKE_STR(FAKE_RT(Malloc)));
    if (ptr == nullptr || bytes == 0) return kFakeInvalidValue;
    *ptr = reinterpret_cast<void*>(s.next_address);
    s.allocations[s.next_address] = bytes;
    s.next_address += (bytes + 0xfff) & ~size_t{0xfff};
    sleep_us = static_cast<long>(s.Number("alloc_us", 0));
  }
  if (sleep_us > 0) ::usleep(static_cast<useconds_t>(sleep_us));
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(Free)(void* ptr) {
  LOCKED();
  if (ptr == nullptr) return kFakeSuccess;
  return s.allocations.erase(reinterpret_cast<uintptr_t>(ptr)) == 1 ? kFakeSuccess
                                                                    : kFakeInvalidValue;
}

#if defined(FAKE_GPU_HIP)
#define FAKE_HOST_ALLOC hipHostMalloc
#define FAKE_HOST_FREE hipHostFree
#else
#define FAKE_HOST_ALLOC cudaHostAlloc
#define FAKE_HOST_FREE cudaFreeHost
#endif
__attribute__((visibility("default"))) int FAKE_HOST_ALLOC(void** ptr, size_t bytes, unsigned) {
  if (ptr == nullptr || bytes == 0) return kFakeInvalidValue;
  *ptr = std::malloc(bytes);
  return *ptr == nullptr ? 2 : kFakeSuccess;  // 2: out of memory in both APIs
}

__attribute__((visibility("default"))) int FAKE_HOST_FREE(void* ptr) {
  std::free(ptr);
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(Memset)(void* ptr, int, size_t bytes) {
  LOCKED();
  auto it = s.allocations.upper_bound(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.allocations.begin()) return kFakeInvalidValue;
  --it;
  if (reinterpret_cast<uintptr_t>(ptr) + bytes > it->first + it->second) return kFakeInvalidValue;
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(DeviceSynchronize)() { return kFakeSuccess; }

__attribute__((visibility("default"))) int FAKE_RT(StreamCreate)(void** stream) {
  LOCKED();
  if (stream == nullptr) return kFakeInvalidValue;
  *stream = new FakeStream{s.current};
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(StreamDestroy)(void* stream) {
  delete static_cast<FakeStream*>(stream);
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(StreamSynchronize)(void*) {
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(MemcpyAsync)(void* dst, const void* src,
                                                                size_t bytes, int kind,
                                                                void* stream) {
  double seconds = 0;
  {
    LOCKED();
    FAIL_IF_SCRIPTED(FAKE_STR(FAKE_RT(MemcpyAsync)));
    if (dst == nullptr || src == nullptr) return kFakeInvalidValue;
    double b = static_cast<double>(bytes);
    switch (kind) {
      case 1:  // HostToDevice
        seconds = b / (s.Number("h2d_gbps", 55) * 1e9);
        break;
      case 2:  // DeviceToHost
        seconds = b / (s.Number("d2h_gbps", 55) * 1e9);
        break;
      case 3:  // DeviceToDevice: read + write
        seconds = 2 * b / (s.Number("memory_gbps", 4000) * 1e9);
        break;
      default:
        return kFakeInvalidValue;
    }
  }
  FAKE_CTL(Advance)(stream, seconds);
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(EventCreate)(void** event) {
  if (event == nullptr) return kFakeInvalidValue;
  *event = new FakeEvent();
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(EventDestroy)(void* event) {
  delete static_cast<FakeEvent*>(event);
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(EventRecord)(void* event, void* stream) {
  LOCKED();
  if (event == nullptr) return kFakeInvalidValue;
  auto* e = static_cast<FakeEvent*>(event);
  e->device = s.DeviceOf(stream);
  if (!s.ValidDevice(e->device)) return kFakeInvalidValue;
  e->t = s.clock_s[static_cast<size_t>(e->device)];
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(EventSynchronize)(void* event) {
  if (event == nullptr) return kFakeInvalidValue;
  return static_cast<FakeEvent*>(event)->t < 0 ? kFakeNotReady : kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(EventElapsedTime)(float* ms, void* start,
                                                                     void* stop) {
  if (ms == nullptr || start == nullptr || stop == nullptr) return kFakeInvalidValue;
  auto* a = static_cast<FakeEvent*>(start);
  auto* b = static_cast<FakeEvent*>(stop);
  if (a->t < 0 || b->t < 0) return kFakeNotReady;
  *ms = static_cast<float>((b->t - a->t) * 1e3);
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(RuntimeGetVersion)(int* v) {
  LOCKED();
  if (v == nullptr) return kFakeInvalidValue;
  *v = static_cast<int>(s.Number("runtime_version", FAKE_DEFAULT_RUNTIME_VERSION));
  return kFakeSuccess;
}

__attribute__((visibility("default"))) int FAKE_RT(DriverGetVersion)(int* v) {
  return FAKE_RT(RuntimeGetVersion)(v);
}

__attribute__((visibility("default"))) const char* FAKE_RT(GetErrorString)(int e) {
  switch (e) {
    case kFakeSuccess:
      return "no error";
    case kFakeInvalidValue:
      return "invalid argument";
    case kFakeInvalidDevice:
      return "invalid device ordinal";
    case kFakeNotReady:
      return "device not ready";
    default:
      return "unknown error";
  }
}

}  // extern "C"
