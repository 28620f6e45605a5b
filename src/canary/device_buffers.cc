#include "canary/device_buffers.h"

#include <string>

namespace gpufleet::canary {

StatusOr<void*> DeviceBuffers::Device(size_t bytes) {
  ASSIGN_OR_RETURN(void* p, rt_.DeviceAlloc(bytes));
  device_.push_back(p);
  RETURN_IF_ERROR(rt_.Memset(p, kFillByte, bytes));
  return p;
}

StatusOr<double> TimeOnStream(GpuRuntime& rt, void* stream, int warmup, int iters,
                              const std::function<Status()>& op) {
  for (int i = 0; i < warmup; ++i) RETURN_IF_ERROR(op());
  RETURN_IF_ERROR(rt.SyncStream(stream));
  ASSIGN_OR_RETURN(void* start, rt.CreateEvent());
  StatusOr<void*> stop = rt.CreateEvent();
  if (!stop.ok()) {
    rt.DestroyEvent(start).IgnoreError();
    return stop.status();
  }
  Status st = rt.RecordEvent(start, stream);
  for (int i = 0; i < iters && st.ok(); ++i) st = op();
  if (st.ok()) st = rt.RecordEvent(*stop, stream);
  StatusOr<double> seconds = st.ok() ? rt.ElapsedSeconds(start, *stop) : StatusOr<double>(st);
  rt.DestroyEvent(start).IgnoreError();
  rt.DestroyEvent(*stop).IgnoreError();
  if (seconds.ok() && !(*seconds > 0)) {
    return InternalError("event timer reported " + std::to_string(*seconds) + " s for " +
                         std::to_string(iters) + " operations");
  }
  return seconds;
}

}  // namespace gpufleet::canary
