// GPU resources for the canary benchmarks (runner.cc), released on scope
// exit, and the event timing around a run of operations. Private to canary/.
//
// Both act on the runtime's current device; the caller makes the owning
// device current again before they go. Thread safety: none.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "canary/gpu_runtime.h"
#include "core/status.h"

namespace gpufleet::canary {

// Non-zero, finite in every precision (0x3c3c is 1.06 as fp16, 0.0115 as
// bf16): all-zero operands let some GPUs clock up and overstate throughput.
inline constexpr int kFillByte = 0x3c;

// Device buffers freed on scope exit (errors on free are ignored: the
// benchmark's own status is what matters).
class DeviceBuffers {
 public:
  explicit DeviceBuffers(GpuRuntime& rt) : rt_(rt) {}
  ~DeviceBuffers() {
    for (void* p : device_) rt_.DeviceFree(p).IgnoreError();
    for (void* p : pinned_) rt_.PinnedFree(p).IgnoreError();
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  // A device buffer of `bytes`, filled with kFillByte.
  StatusOr<void*> Device(size_t bytes);
  StatusOr<void*> Pinned(size_t bytes) {
    ASSIGN_OR_RETURN(void* p, rt_.PinnedAlloc(bytes));
    pinned_.push_back(p);
    return p;
  }

 private:
  GpuRuntime& rt_;
  std::vector<void*> device_;
  std::vector<void*> pinned_;
};

// A stream destroyed on scope exit; Create() makes it.
class Stream {
 public:
  explicit Stream(GpuRuntime& rt) : rt_(rt) {}
  ~Stream() {
    if (s_ != nullptr) rt_.DestroyStream(s_).IgnoreError();
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Status Create() {
    ASSIGN_OR_RETURN(s_, rt_.CreateStream());
    return OkStatus();
  }
  void* get() const { return s_; }

 private:
  GpuRuntime& rt_;
  void* s_ = nullptr;
};

// Device time of `iters` calls of `op` on `stream`, after `warmup` untimed
// ones. Internal when the event timer reports no positive time.
StatusOr<double> TimeOnStream(GpuRuntime& rt, void* stream, int warmup, int iters,
                              const std::function<Status()>& op);

}  // namespace gpufleet::canary
