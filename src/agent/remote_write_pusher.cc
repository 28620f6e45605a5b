#include "agent/remote_write_pusher.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "expo/remote_write.h"

namespace gpufleet {

StatusOr<bool> RemoteWritePusher::PushNew() {
  std::shared_ptr<const Snapshot> snapshot = source_();
  if (snapshot == nullptr || snapshot->timestamp_ns <= last_pushed_ns_) return false;
  RemoteWriteRequest request =
      ToRemoteWrite(snapshot->samples, snapshot->timestamp_ns / 1'000'000);
  for (size_t begin = 0; begin < request.series.size(); begin += kMaxSeriesPerBatch) {
    size_t end = std::min(request.series.size(), begin + kMaxSeriesPerBatch);
    RemoteWriteRequest batch;
    batch.series.assign(std::make_move_iterator(request.series.begin() + begin),
                        std::make_move_iterator(request.series.begin() + end));
    uint64_t samples = 0;
    for (const RemoteWriteSeries& s : batch.series) samples += s.samples.size();
    // A failure mid-snapshot re-sends the earlier batches next time: at-least-once.
    RETURN_IF_ERROR(forwarder_.Enqueue(EncodeRemoteWrite(batch), samples));
  }
  last_pushed_ns_ = snapshot->timestamp_ns;
  ++pushed_;
  return true;
}

void RemoteWritePusher::Run(int64_t poll_ns) {
  std::string last_error;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_for(lock, std::chrono::nanoseconds(poll_ns), [&] { return stop_; })) break;
    }
    StatusOr<bool> pushed = PushNew();
    if (!pushed.ok() && pushed.status().ToString() != last_error) {
      last_error = pushed.status().ToString();
      std::fprintf(stderr, "gpufleet agent: remote write: %s\n", last_error.c_str());
    }
  }
}

void RemoteWritePusher::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

}  // namespace gpufleet
